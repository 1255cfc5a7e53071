import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A report file that grows while the run goes on: bytes are buffered and appended to the file whenever the buffer
/// passes ``threshold``, and by ``flush()``. The file is opened for each flush and closed again, so a run with a
/// thousand boards never holds thousands of descriptors; memory per file is bounded by the threshold (plus one
/// append). A write that fails keeps the bytes in the buffer and reports the error with the path.
///
/// With a ``writer``, a full buffer is written out on the writer's thread instead of the appending one: an append
/// then never waits for the disk (the HCI host appends captures on the thread that reads its controller).
final class AppendFile: Sendable {
    let path: String
    let threshold: Int
    let writer: OutputWriter?
    private let buffer = Mutex<[UInt8]>([])
    /// Held while bytes taken from the buffer go to the disk, so that flushes write in the order they took them.
    private let writing = Mutex(())

    /// Creates the file, which must not exist yet (a run never writes into a file it did not create).
    init(creating path: String, threshold: Int = 8 * 1024, writer: OutputWriter? = nil) throws(OutputError) {
        self.path = path
        self.threshold = threshold
        self.writer = writer
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OutputError(path: path, errno: errno) }
        close(descriptor)
    }

    /// Adds `bytes`; writes the buffer out when it passes the threshold (on the writer's thread when there is one;
    /// its errors then go to the writer's handler).
    func append(_ bytes: some Sequence<UInt8>) throws(OutputError) {
        let full = buffer.withLock { buffer -> Bool in
            buffer.append(contentsOf: bytes)
            return buffer.count >= threshold
        }
        guard full else { return }
        if let writer { writer.flushSoon(self) } else { try flush() }
    }

    /// Adds what `write` appends to the buffer, written straight into it; then as ``append(_:)``.
    func append(_ write: (inout [UInt8]) -> Void) throws(OutputError) {
        let full = buffer.withLock { buffer -> Bool in
            write(&buffer)
            return buffer.count >= threshold
        }
        guard full else { return }
        if let writer { writer.flushSoon(self) } else { try flush() }
    }

    /// Writes everything buffered out soon: on the writer's thread when there is one, here and now otherwise.
    func flushSoon() throws(OutputError) {
        if let writer { writer.flushSoon(self) } else { try flush() }
    }

    /// Writes out everything buffered. The buffer is only held while its bytes are taken: appends go on meanwhile.
    func flush() throws(OutputError) {
        try writing.withLock { _ throws(OutputError) in
            let bytes = buffer.withLock { buffer -> [UInt8] in
                defer { buffer.removeAll(keepingCapacity: buffer.count <= threshold * 2) }
                return buffer
            }
            guard !bytes.isEmpty else { return }
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                putBack(bytes[...])
                throw OutputError(path: path, errno: code)
            }
            defer { close(descriptor) }
            let (written, failure) = Descriptor.writeAll(descriptor, bytes[...])
            if let failure {
                putBack(bytes[written...])
                throw OutputError(path: path, errno: failure)
            }
        }
    }

    /// Returns bytes a failed write took to the front of the buffer, ahead of what was appended meanwhile.
    private func putBack(_ bytes: ArraySlice<UInt8>) {
        buffer.withLock { $0.insert(contentsOf: bytes, at: 0) }
    }
}

extension AppendFile {
    /// Takes the bytes not yet written out (after a flush failed), leaving the buffer empty.
    func takeBuffered() -> [UInt8] {
        buffer.withLock { buffer in
            defer { buffer.removeAll() }
            return buffer
        }
    }

    /// Writes `bytes` to `path` whole or not at all: into a new file beside it, then renamed over it.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(OutputError) {
        let temporary = path + ".partial"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OutputError(path: path, errno: errno) }
        if let failure = Descriptor.writeAll(descriptor, bytes[...]).errno {
            close(descriptor)
            unlink(temporary)
            throw OutputError(path: path, errno: failure)
        }
        guard close(descriptor) == 0, rename(temporary, path) == 0 else {
            let error = OutputError(path: path, errno: errno)
            unlink(temporary)
            throw error
        }
    }
}

/// A report file that could not be created or written: the path and the system's reason.
public struct OutputError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, message: String(cString: strerror(code)))
    }

    public var description: String { "cannot write \(path): \(message)" }
}

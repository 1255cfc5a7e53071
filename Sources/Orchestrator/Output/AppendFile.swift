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
final class AppendFile: Sendable {
    let path: String
    let threshold: Int
    private let buffer = Mutex<[UInt8]>([])

    /// Creates the file, which must not exist yet (a run never writes into a file it did not create).
    init(creating path: String, threshold: Int = 8 * 1024) throws(OutputError) {
        self.path = path
        self.threshold = threshold
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OutputError(path: path, errno: errno) }
        close(descriptor)
    }

    /// Adds `bytes`; writes the buffer out when it passes the threshold.
    func append(_ bytes: some Sequence<UInt8>) throws(OutputError) {
        let full = buffer.withLock { buffer -> Bool in
            buffer.append(contentsOf: bytes)
            return buffer.count >= threshold
        }
        if full { try flush() }
    }

    /// Writes out everything buffered.
    func flush() throws(OutputError) {
        try buffer.withLock { buffer throws(OutputError) in
            guard !buffer.isEmpty else { return }
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { throw OutputError(path: path, errno: errno) }
            defer { close(descriptor) }
            let (written, failure) = Descriptor.writeAll(descriptor, buffer[...])
            if let failure {
                buffer.removeFirst(written)
                throw OutputError(path: path, errno: failure)
            }
            buffer.removeAll(keepingCapacity: buffer.count <= threshold * 2)
        }
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

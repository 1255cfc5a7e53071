import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes whole lines straight to a file descriptor (stdout, stderr) with `write(2)`: each line leaves the process
/// when it is printed, whether the descriptor is a terminal, a pipe or a file, so progress is never stuck in a
/// buffer. When the reader goes away (EPIPE: `blerig run … | head -1`), the output goes quiet and the run carries
/// on; ``isClosed`` tells.
public final class LineOutput: Sendable {
    private let descriptor: Int32
    private let closed = Atomic(false)
    private let lock = Mutex(())

    public static let standardOutput = LineOutput(descriptor: STDOUT_FILENO)
    public static let standardError = LineOutput(descriptor: STDERR_FILENO)

    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// True once a write failed because nobody reads any more.
    public var isClosed: Bool { closed.load(ordering: .relaxed) }

    /// Writes `line` and a newline; returns false when the output is closed.
    @discardableResult
    public func print(_ line: String) -> Bool {
        guard !isClosed else { return false }
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return lock.withLock { _ in
            guard Descriptor.writeAll(descriptor, bytes[...]).errno == nil else {
                closed.store(true, ordering: .relaxed)
                return false
            }
            return true
        }
    }
}

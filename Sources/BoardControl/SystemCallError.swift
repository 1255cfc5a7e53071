import Glibc

/// A failed system call: which one, and its errno, so a message can say
/// `TIOCMSET failed: Inappropriate ioctl for device (ENOTTY, errno 25)` and the caller can match on ``code``.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was called: `open`, `TIOCMSET`, `poll`, `write /sys/.../disable`.
    public var call: String
    public var code: Int32

    public init(_ call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The calling thread's errno, read right after `call` failed.
    static func current(_ call: String) -> SystemCallError { SystemCallError(call, code: errno) }

    /// `ENOTTY` for the values board control meets, `errno 123` for the others.
    public var name: String { Self.names[code] ?? "errno \(code)" }

    /// `Inappropriate ioctl for device (ENOTTY, errno 25)`.
    public var reason: String {
        let text = String(cString: strerror(code))
        return Self.names[code].map { "\(text) (\($0), errno \(code))" } ?? "\(text) (errno \(code))"
    }

    public var description: String { "\(call) failed: \(reason)" }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF",
        EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", ENODEV: "ENODEV", EINVAL: "EINVAL",
        ENOTTY: "ENOTTY", EPIPE: "EPIPE", EROFS: "EROFS", ENOTDIR: "ENOTDIR", ETIMEDOUT: "ETIMEDOUT",
        ESHUTDOWN: "ESHUTDOWN", EPROTO: "EPROTO", EOPNOTSUPP: "EOPNOTSUPP",
    ]
}

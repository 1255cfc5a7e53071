import Glibc

/// The errno of a failed system call, named as the man pages name it, so a message can say
/// "Address family not supported by protocol (EAFNOSUPPORT, errno 97)" and a test can match on ``code``.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32

    public init(_ code: Int32) { self.code = code }

    /// The calling thread's `errno`, read right after the failing call.
    public static var current: Errno { Errno(errno) }

    /// `EAFNOSUPPORT` for the values these transports meet, `errno 123` for the others.
    public var name: String { Self.names[code] ?? "errno \(code)" }

    /// `Connection refused (ECONNREFUSED, errno 111)`.
    public var description: String {
        let text = String(cString: strerror(code))
        return Self.names[code].map { "\(text) (\($0), errno \(code))" } ?? "\(text) (errno \(code))"
    }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF",
        EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", ENODEV: "ENODEV", EINVAL: "EINVAL",
        ENOTTY: "ENOTTY", EPIPE: "EPIPE", EUSERS: "EUSERS", ENOTSOCK: "ENOTSOCK", EPROTONOSUPPORT: "EPROTONOSUPPORT",
        EAFNOSUPPORT: "EAFNOSUPPORT", EADDRINUSE: "EADDRINUSE", ENETDOWN: "ENETDOWN", ENETUNREACH: "ENETUNREACH",
        ECONNRESET: "ECONNRESET", ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH",
        EALREADY: "EALREADY", EINPROGRESS: "EINPROGRESS", EBADFD: "EBADFD", ERFKILL: "ERFKILL",
    ]
}

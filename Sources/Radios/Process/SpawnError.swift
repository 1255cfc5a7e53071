import Foundation

/// A child process that could not be started or supervised: what was tried, and the system's reason.
public struct SpawnError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// The text of `errno` (or of `code`), for messages.
    static func errno(_ code: Int32 = Glibc.errno) -> String { String(cString: strerror(code)) }
}

/// How a process ended.
public enum ProcessExit: Sendable, Hashable, CustomStringConvertible {
    /// It called exit with this status.
    case exited(Int32)
    /// A signal ended it.
    case signalled(Int32)

    init(waitStatus status: Int32) {
        self = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    public var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "was ended by signal \(signal) (\(String(cString: strsignal(signal))))"
        }
    }
}

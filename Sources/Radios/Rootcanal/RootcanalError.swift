/// Why rootcanal could not be found, started or talked to. `message` says what happened; `fix` what to do;
/// `log` quotes the end of rootcanal's own log when there is one.
public struct RootcanalError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// No interpreter or venv with rootcanal was found (`make interop-deps` installs it).
        case notInstalled
        /// The process could not be started at all.
        case spawnFailed
        /// rootcanal logged "Address already in use" for one of its ports.
        case portInUse
        /// rootcanal did not log that it listens on all its ports within the startup timeout.
        case startupTimeout
        /// rootcanal exited while starting.
        case exited
        /// The test channel could not be reached, or closed, or did not answer in time.
        case testChannel
        /// The test channel answered something other than what the command promises.
        case unexpectedReply
        /// A command that the test channel's framing cannot carry (a name or argument over 255 bytes).
        case invalidCommand
        /// rootcanal listened on an address other than loopback, reachable from the network; blerig stopped it.
        case notLoopback
    }

    public var code: Code
    public var message: String
    public var fix: String?
    /// The last lines of rootcanal's log, when the error concerns a process blerig started.
    public var log: String?

    public init(_ code: Code, _ message: String, fix: String? = nil, log: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
        self.log = log
    }

    public var description: String {
        var text = fix.map { "\(message) (\($0))" } ?? message
        if let log, !log.isEmpty { text += "\nrootcanal's log ends with:\n\(log)" }
        return text
    }
}

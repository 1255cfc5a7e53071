/// Something on the bench failed: a device missing, busy or gone, a permission, an operation the hardware cannot
/// do. The message says what and where, and what to do about it.
public struct BenchError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The device the rig names is not there (no adapter, no serial port, no hub).
        public static let missing = Code(rawValue: "missing")
        /// The device is there but another process holds it.
        public static let busy = Code(rawValue: "busy")
        /// The process lacks a permission or capability it needs.
        public static let permission = Code(rawValue: "permission")
        /// The device went away while the run used it.
        public static let gone = Code(rawValue: "gone")
        /// The device cannot do what was asked.
        public static let unsupported = Code(rawValue: "unsupported")
        /// The wait for the device was cancelled (the run was interrupted).
        public static let cancelled = Code(rawValue: "cancelled")
        /// Input or output failed.
        public static let io = Code(rawValue: "io")

        public var description: String { rawValue }
    }

    public var code: Code
    /// One line: what failed, where, and what to do.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

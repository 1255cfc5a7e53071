import BLECore

extension Mgmt {
    /// The status of a command (Command Complete, Command Status) and of Connect Failed (mgmt-api.txt,
    /// "Status codes").
    public struct Status: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let success = Self(rawValue: 0x00)
        public static let unknownCommand = Self(rawValue: 0x01)
        public static let notConnected = Self(rawValue: 0x02)
        public static let failed = Self(rawValue: 0x03)
        public static let connectFailed = Self(rawValue: 0x04)
        public static let authenticationFailed = Self(rawValue: 0x05)
        public static let noResources = Self(rawValue: 0x07)
        public static let timeout = Self(rawValue: 0x08)
        public static let alreadyConnected = Self(rawValue: 0x09)
        public static let busy = Self(rawValue: 0x0A)
        public static let rejected = Self(rawValue: 0x0B)
        public static let notSupported = Self(rawValue: 0x0C)
        public static let invalidParameters = Self(rawValue: 0x0D)
        public static let disconnected = Self(rawValue: 0x0E)
        public static let notPowered = Self(rawValue: 0x0F)
        public static let cancelled = Self(rawValue: 0x10)
        public static let invalidIndex = Self(rawValue: 0x11)
        public static let rfkilled = Self(rawValue: 0x12)
        public static let alreadyPaired = Self(rawValue: 0x13)
        public static let permissionDenied = Self(rawValue: 0x14)

        private static let names = [
            "Success", "Unknown Command", "Not Connected", "Failed", "Connect Failed", "Authentication Failed",
            "Not Paired", "No Resources", "Timeout", "Already Connected", "Busy", "Rejected", "Not Supported",
            "Invalid Parameters", "Disconnected", "Not Powered", "Cancelled", "Invalid Index", "RFKilled",
            "Already Paired", "Permission Denied",
        ]

        /// `Busy (0x0a)`.
        public var description: String {
            let name = Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "status"
            return "\(name) (0x\(rawValue < 0x10 ? "0" : "")\(String(rawValue, radix: 16)))"
        }

        /// The HCI reason closest to a Connect Failed status (the kernel turns HCI errors into these, losing
        /// detail): a timeout is 0x08, anything else 0x3E, connection failed to be established.
        public var hciReason: HCIErrorCode {
            switch self {
            case .timeout: .connectionTimeout
            case .authenticationFailed: .authenticationFailure
            case .noResources: .connectionLimitExceeded
            default: .connectionFailedToBeEstablished
            }
        }
    }
}

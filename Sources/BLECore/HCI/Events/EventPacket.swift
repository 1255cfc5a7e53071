extension HCI {
    /// An HCI Event packet (Core 5.4 Vol 4 Part E §5.4.4): event code u8, parameter length u8, parameters.
    public struct EventPacket: Hashable, Sendable, CustomStringConvertible {
        public static let headerLength = 2
        /// The length field is a u8.
        public static let maximumParameterLength = 255

        public var code: EventCode
        public var parameters: [UInt8]

        public init(code: EventCode, parameters: [UInt8]) {
            precondition(parameters.count <= Self.maximumParameterLength, "HCI event parameters hold at most 255 bytes")
            self.code = code
            self.parameters = parameters
        }

        /// Decodes exactly one event (without an H4 indicator): the length field must describe the rest.
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            var reader = ByteReader(bytes, context: "HCI event packet")
            code = EventCode(rawValue: try reader.readUInt8("event code"))
            let length = Int(try reader.readUInt8("parameter total length"))
            parameters = try reader.readBytes(length, "parameters")
            try reader.expectEnd()
        }

        public var encoded: [UInt8] { [code.rawValue, UInt8(parameters.count)] + parameters }

        /// For an LE Meta event, its subevent code (the first parameter).
        public var leSubevent: LESubevent? {
            code == .leMeta ? parameters.first.map(LESubevent.init(rawValue:)) : nil
        }

        /// `event 0x05 (Disconnection Complete) 00400013`.
        public var description: String { "event \(code) \(parameters.hexString)" }
    }

    /// An HCI event code (Core 5.4 Vol 4 Part E §7.7).
    public struct EventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// §7.7.5.
        public static let disconnectionComplete = Self(rawValue: 0x05)
        public static let encryptionChange = Self(rawValue: 0x08)
        public static let commandComplete = Self(rawValue: 0x0E)
        public static let commandStatus = Self(rawValue: 0x0F)
        public static let hardwareError = Self(rawValue: 0x10)
        public static let numberOfCompletedPackets = Self(rawValue: 0x13)
        public static let dataBufferOverflow = Self(rawValue: 0x1A)
        /// §7.7.65: every LE event, told apart by its subevent code.
        public static let leMeta = Self(rawValue: 0x3E)

        public var name: String {
            switch self {
            case .disconnectionComplete: "Disconnection Complete"
            case .encryptionChange: "Encryption Change"
            case .commandComplete: "Command Complete"
            case .commandStatus: "Command Status"
            case .hardwareError: "Hardware Error"
            case .numberOfCompletedPackets: "Number Of Completed Packets"
            case .dataBufferOverflow: "Data Buffer Overflow"
            case .leMeta: "LE Meta"
            default: "event"
            }
        }

        /// `0x3E (LE Meta)`.
        public var description: String {
            let hex = String(rawValue, radix: 16, uppercase: true)
            return "0x\(hex.count < 2 ? "0" : "")\(hex) (\(name))"
        }

        /// `HCI event 0x3E (LE Meta)`, what decoding errors of the event's parameters say they were decoding: made
        /// once for each code blerig knows, as every event from the controller is decoded.
        var decodingContext: String { Self.decodingContexts[rawValue] ?? "HCI event \(self)" }

        private static let decodingContexts: [UInt8: String] = Dictionary(
            uniqueKeysWithValues: [
                Self.disconnectionComplete, .encryptionChange, .commandComplete, .commandStatus, .hardwareError,
                .numberOfCompletedPackets, .dataBufferOverflow, .leMeta,
            ].map { ($0.rawValue, "HCI event \($0)") })
    }

    /// An LE Meta event's subevent code (Core 5.4 Vol 4 Part E §7.7.65).
    public struct LESubevent: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// §7.7.65.1.
        public static let connectionComplete = Self(rawValue: 0x01)
        public static let advertisingReport = Self(rawValue: 0x02)
        public static let connectionUpdateComplete = Self(rawValue: 0x03)
        public static let readRemoteFeaturesComplete = Self(rawValue: 0x04)
        public static let longTermKeyRequest = Self(rawValue: 0x05)
        public static let remoteConnectionParameterRequest = Self(rawValue: 0x06)
        public static let dataLengthChange = Self(rawValue: 0x07)
        public static let enhancedConnectionComplete = Self(rawValue: 0x0A)
        public static let phyUpdateComplete = Self(rawValue: 0x0C)
        public static let extendedAdvertisingReport = Self(rawValue: 0x0D)

        public var name: String {
            switch self {
            case .connectionComplete: "LE Connection Complete"
            case .advertisingReport: "LE Advertising Report"
            case .connectionUpdateComplete: "LE Connection Update Complete"
            case .readRemoteFeaturesComplete: "LE Read Remote Features Complete"
            case .longTermKeyRequest: "LE Long Term Key Request"
            case .remoteConnectionParameterRequest: "LE Remote Connection Parameter Request"
            case .dataLengthChange: "LE Data Length Change"
            case .enhancedConnectionComplete: "LE Enhanced Connection Complete"
            case .phyUpdateComplete: "LE PHY Update Complete"
            case .extendedAdvertisingReport: "LE Extended Advertising Report"
            default: "LE subevent"
            }
        }

        /// `0x01 (LE Connection Complete)`.
        public var description: String {
            let hex = String(rawValue, radix: 16, uppercase: true)
            return "0x\(hex.count < 2 ? "0" : "")\(hex) (\(name))"
        }
    }
}

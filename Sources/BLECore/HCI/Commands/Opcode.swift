extension HCI {
    /// An HCI command opcode: the OpCode Group Field (6 bits) and OpCode Command Field (10 bits)
    /// (Core 5.4 Vol 4 Part E §5.4.1).
    public struct Opcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public init(group: UInt8, command: UInt16) { rawValue = UInt16(group) << 10 | command & 0x03FF }

        public var group: UInt8 { UInt8(rawValue >> 10) }
        public var command: UInt16 { rawValue & 0x03FF }

        // Link Control (OGF 0x01), §7.1.
        public static let disconnect = Self(rawValue: 0x0406)
        // Controller & Baseband (OGF 0x03), §7.3.
        public static let setEventMask = Self(rawValue: 0x0C01)
        public static let reset = Self(rawValue: 0x0C03)
        // Informational parameters (OGF 0x04), §7.4.
        public static let readLocalVersionInformation = Self(rawValue: 0x1001)
        public static let readLocalSupportedFeatures = Self(rawValue: 0x1003)
        public static let readBufferSize = Self(rawValue: 0x1005)
        public static let readBDAddr = Self(rawValue: 0x1009)
        // LE Controller (OGF 0x08), §7.8.
        public static let leSetEventMask = Self(rawValue: 0x2001)
        public static let leReadBufferSize = Self(rawValue: 0x2002)
        public static let leReadLocalSupportedFeatures = Self(rawValue: 0x2003)
        public static let leSetRandomAddress = Self(rawValue: 0x2005)
        public static let leSetAdvertisingParameters = Self(rawValue: 0x2006)
        public static let leSetAdvertisingData = Self(rawValue: 0x2008)
        public static let leSetScanResponseData = Self(rawValue: 0x2009)
        public static let leSetAdvertisingEnable = Self(rawValue: 0x200A)
        public static let leSetScanParameters = Self(rawValue: 0x200B)
        public static let leSetScanEnable = Self(rawValue: 0x200C)
        public static let leCreateConnection = Self(rawValue: 0x200D)
        public static let leCreateConnectionCancel = Self(rawValue: 0x200E)
        public static let leConnectionUpdate = Self(rawValue: 0x2013)
        public static let leRemoteConnectionParameterRequestReply = Self(rawValue: 0x2020)
        public static let leRemoteConnectionParameterRequestNegativeReply = Self(rawValue: 0x2021)
        public static let leSetDataLength = Self(rawValue: 0x2022)
        public static let leWriteSuggestedDefaultDataLength = Self(rawValue: 0x2024)
        public static let leSetPHY = Self(rawValue: 0x2032)
        public static let leSetExtendedScanParameters = Self(rawValue: 0x2041)
        public static let leSetExtendedScanEnable = Self(rawValue: 0x2042)
        public static let leExtendedCreateConnection = Self(rawValue: 0x2043)

        public var name: String {
            switch self {
            case .disconnect: "Disconnect"
            case .setEventMask: "Set Event Mask"
            case .reset: "Reset"
            case .readLocalVersionInformation: "Read Local Version Information"
            case .readLocalSupportedFeatures: "Read Local Supported Features"
            case .readBufferSize: "Read Buffer Size"
            case .readBDAddr: "Read BD_ADDR"
            case .leSetEventMask: "LE Set Event Mask"
            case .leReadBufferSize: "LE Read Buffer Size"
            case .leReadLocalSupportedFeatures: "LE Read Local Supported Features"
            case .leSetRandomAddress: "LE Set Random Address"
            case .leSetAdvertisingParameters: "LE Set Advertising Parameters"
            case .leSetAdvertisingData: "LE Set Advertising Data"
            case .leSetScanResponseData: "LE Set Scan Response Data"
            case .leSetAdvertisingEnable: "LE Set Advertising Enable"
            case .leSetScanParameters: "LE Set Scan Parameters"
            case .leSetScanEnable: "LE Set Scan Enable"
            case .leCreateConnection: "LE Create Connection"
            case .leCreateConnectionCancel: "LE Create Connection Cancel"
            case .leConnectionUpdate: "LE Connection Update"
            case .leRemoteConnectionParameterRequestReply: "LE Remote Connection Parameter Request Reply"
            case .leRemoteConnectionParameterRequestNegativeReply:
                "LE Remote Connection Parameter Request Negative Reply"
            case .leSetDataLength: "LE Set Data Length"
            case .leWriteSuggestedDefaultDataLength: "LE Write Suggested Default Data Length"
            case .leSetPHY: "LE Set PHY"
            case .leSetExtendedScanParameters: "LE Set Extended Scan Parameters"
            case .leSetExtendedScanEnable: "LE Set Extended Scan Enable"
            case .leExtendedCreateConnection: "LE Extended Create Connection"
            default: "command"
            }
        }

        /// `0x200D (LE Create Connection)`.
        public var description: String { "0x\(String(rawValue, radix: 16, uppercase: true).leftPadded(4)) (\(name))" }
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

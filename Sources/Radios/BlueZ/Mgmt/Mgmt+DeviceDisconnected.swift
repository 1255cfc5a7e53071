import BLECore

extension Mgmt {
    /// Device Disconnected Event (mgmt-api.txt: event code 0x000C): Address (6), Address_Type (1), Reason (1).
    /// The kernel folds the HCI reason into five: 0 unspecified, 1 connection timeout, 2 terminated by the local
    /// host, 3 terminated by the remote host, 4 authentication failure, 5 local host for suspend.
    public struct DeviceDisconnected: MgmtEvent {
        public static let code = EventCode.deviceDisconnected

        public struct Reason: RawRepresentable, Hashable, Sendable {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }

            public static let unspecified = Self(rawValue: 0)
            public static let connectionTimeout = Self(rawValue: 1)
            public static let localHost = Self(rawValue: 2)
            public static let remote = Self(rawValue: 3)
            public static let authenticationFailure = Self(rawValue: 4)
            public static let localHostSuspend = Self(rawValue: 5)

            /// The HCI reason it stands for: 0x08, 0x16, 0x13 (the kernel sends 3 for 0x13, 0x14 and 0x15 alike),
            /// 0x05; 0x1F when unspecified.
            public var hciReason: HCIErrorCode {
                switch self {
                case .connectionTimeout: .connectionTimeout
                case .localHost, .localHostSuspend: .localHostTerminated
                case .remote: .remoteUserTerminated
                case .authenticationFailure: .authenticationFailure
                default: .unspecifiedError
                }
            }
        }

        public var address: Address
        public var reason: Reason

        public init(address: Address, reason: Reason) {
            self.address = address
            self.reason = reason
        }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Device Disconnected event")
            address = try reader.readMgmtAddress()
            // Kernels before 3.12 sent no reason.
            reason = reader.isAtEnd ? .unspecified : Reason(rawValue: try reader.readUInt8("Reason"))
            try reader.expectEnd()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 8)
            writer.write(address)
            writer.write(reason.rawValue)
            return writer.bytes
        }
    }

    /// Connect Failed Event (mgmt-api.txt: event code 0x000D): Address (6), Address_Type (1), Status (1). A link
    /// the kernel tried to make for someone did not come up.
    public struct ConnectFailed: MgmtEvent {
        public static let code = EventCode.connectFailed
        public var address: Address
        public var status: Status

        public init(address: Address, status: Status) {
            self.address = address
            self.status = status
        }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Connect Failed event")
            address = try reader.readMgmtAddress()
            status = Status(rawValue: try reader.readUInt8("Status"))
            try reader.expectEnd()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 8)
            writer.write(address)
            writer.write(status.rawValue)
            return writer.bytes
        }
    }
}

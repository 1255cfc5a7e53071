import BLECore

/// The Linux kernel's Bluetooth Management protocol (BlueZ `doc/mgmt-api.txt`, `doc/mgmt-protocol.rst`): what a
/// program speaks on an `HCI_CHANNEL_CONTROL` socket to power an adapter, discover LE devices and hear about links,
/// beside bluetoothd rather than instead of it. Sans-I/O: commands encode to bytes, events decode from bytes.
///
/// Every packet, either way, is a 6-byte header (opcode or event code, controller index, parameter length, all
/// little-endian) and its parameters. A socket read returns one whole packet.
public enum Mgmt {
    /// The index of commands and events that concern no controller (Read Controller Index List).
    public static let noIndex: UInt16 = 0xFFFF

    /// A command's opcode (mgmt-api.txt, "Commands").
    public struct Opcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let readIndexList = Self(rawValue: 0x0003)
        public static let readControllerInfo = Self(rawValue: 0x0004)
        public static let setPowered = Self(rawValue: 0x0005)
        public static let disconnect = Self(rawValue: 0x0014)
        public static let startDiscovery = Self(rawValue: 0x0023)
        public static let stopDiscovery = Self(rawValue: 0x0024)
        public static let loadConnectionParameters = Self(rawValue: 0x0035)

        private static let names: [UInt16: String] = [
            0x0003: "Read Controller Index List", 0x0004: "Read Controller Information", 0x0005: "Set Powered",
            0x0014: "Disconnect", 0x0023: "Start Discovery", 0x0024: "Stop Discovery",
            0x0035: "Load Connection Parameters",
        ]

        /// `Set Powered (0x0005)`.
        public var description: String {
            "\(Self.names[rawValue] ?? "command") (\(Mgmt.hex(rawValue)))"
        }
    }

    /// An event's code (mgmt-api.txt, "Events").
    public struct EventCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let commandComplete = Self(rawValue: 0x0001)
        public static let commandStatus = Self(rawValue: 0x0002)
        public static let indexRemoved = Self(rawValue: 0x0005)
        public static let newSettings = Self(rawValue: 0x0006)
        public static let deviceConnected = Self(rawValue: 0x000B)
        public static let deviceDisconnected = Self(rawValue: 0x000C)
        public static let connectFailed = Self(rawValue: 0x000D)
        public static let deviceFound = Self(rawValue: 0x0012)
        public static let discovering = Self(rawValue: 0x0013)
    }

    /// The address type of mgmt's `Address_Type` fields: 0 BR/EDR, 1 LE public, 2 LE random.
    public struct AddressType: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let bredr = Self(rawValue: 0)
        public static let lePublic = Self(rawValue: 1)
        public static let leRandom = Self(rawValue: 2)

        /// The LE type of an address.
        public init(_ address: DeviceAddress) { self = address.kind == .public ? .lePublic : .leRandom }

    }

    /// The discovery bitmask of Start/Stop Discovery and the Discovering event: bit 0 BR/EDR, 1 LE public,
    /// 2 LE random.
    public struct DiscoveryTypes: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let bredr = Self(rawValue: 1 << 0)
        public static let lePublic = Self(rawValue: 1 << 1)
        public static let leRandom = Self(rawValue: 1 << 2)
        /// LE only, both address types: what `btmgmt find -l` asks for.
        public static let le: Self = [.lePublic, .leRandom]
    }

    /// The adapter's settings bitmask (Read Controller Information, New Settings).
    public struct Settings: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let powered = Self(rawValue: 1 << 0)
        public static let connectable = Self(rawValue: 1 << 1)
        public static let bredr = Self(rawValue: 1 << 7)
        public static let le = Self(rawValue: 1 << 9)
        public static let advertising = Self(rawValue: 1 << 10)
    }
}

extension Mgmt {
    /// One mgmt packet: the header's code and index, and the parameters (mgmt-api.txt, "Packet Structures").
    public struct Packet: Hashable, Sendable {
        /// The opcode of a command, or the code of an event.
        public var code: UInt16
        public var index: UInt16
        public var parameters: [UInt8]

        public init(code: UInt16, index: UInt16, parameters: [UInt8]) {
            self.code = code
            self.index = index
            self.parameters = parameters
        }

        public static let headerSize = 6

        public var encoded: [UInt8] {
            var writer = ByteWriter(capacity: Self.headerSize + parameters.count)
            writer.write(code)
            writer.write(index)
            writer.write(UInt16(parameters.count))
            writer.write(contentsOf: parameters)
            return writer.bytes
        }

        /// Decodes one whole packet; the length field must match the bytes that follow it.
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            var reader = ByteReader(bytes, context: "mgmt packet")
            code = try reader.readUInt16("code")
            index = try reader.readUInt16("index")
            let length = Int(try reader.readUInt16("parameter length"))
            parameters = try reader.readBytes(length, "parameters")
            try reader.expectEnd()
        }
    }
}

extension Mgmt {
    /// mgmt's `Address` and `Address_Type` pair: six bytes of BD_ADDR, least significant first, then the type.
    public struct Address: Hashable, Sendable, CustomStringConvertible {
        public var value: UInt64
        public var type: AddressType

        public init(value: UInt64, type: AddressType) {
            self.value = value
            self.type = type
        }

        public init(_ address: DeviceAddress) { self.init(value: address.value, type: AddressType(address)) }

        /// The LE address, or nil for BR/EDR and unknown types.
        public var le: DeviceAddress? {
            switch type {
            case .lePublic: DeviceAddress(value, kind: .public)
            case .leRandom: DeviceAddress(value, kind: .random)
            default: nil
            }
        }

        public var description: String { le?.description ?? "\(DeviceAddress(value)) (type \(type.rawValue))" }
    }

    /// `0x0005`.
    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension ByteReader {
    mutating func readMgmtAddress() throws(DecodingError) -> Mgmt.Address {
        let bytes = try readBytes(6, "address")
        let value = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Mgmt.Address(value: value, type: Mgmt.AddressType(rawValue: try readUInt8("address type")))
    }
}

extension ByteWriter {
    mutating func write(_ address: Mgmt.Address) {
        writeBDAddr(address.value)
        write(address.type.rawValue)
    }

    /// Six bytes of BD_ADDR, least significant first.
    mutating func writeBDAddr(_ value: UInt64) {
        for shift in stride(from: 0, to: 48, by: 8) { write(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}

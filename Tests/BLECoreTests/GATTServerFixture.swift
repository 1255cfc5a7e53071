import Testing

@testable import BLECore

/// A realistic database: Device Information, Battery, a custom 128-bit sensor service (esp-point UUID base) with
/// notify and indicate characteristics and an include of Battery, and a secondary service.
///
/// | handle | attribute |
/// |---|---|
/// | 0x0001 | «Primary Service» 180A, group end 0x0005 |
/// | 0x0002/3 | Manufacturer Name 2A29 (read) "Espressif" |
/// | 0x0004/5 | Model Number 2A24 (read) "esp-point" |
/// | 0x0006 | «Primary Service» 180F, group end 0x000A |
/// | 0x0007/8/9 | Battery Level 2A19 (read, notify; fixed 1 byte) 0x64, CCCD 0x0009 |
/// | 0x000A | User Description "Battery" |
/// | 0x000B | «Primary Service» e5b10100, group end 0x0018 |
/// | 0x000C | «Include» Battery 0x0006–0x000A |
/// | 0x000D/E/F | Reading e5b10101 (read, notify; dynamic, fixed 14), CCCD 0x000F |
/// | 0x0010/11/12 | Log Control e5b10102 (write, indicate; dynamic), CCCD 0x0012 |
/// | 0x0013/14 | Secure e5b10204 (read needs encryption, write needs authentication) 0x0000 |
/// | 0x0015/16 | Long e5b10205 (read, write, write without response) bytes 0...99 |
/// | 0x0017/18 | Auth e5b10203 (read, write; dynamic, fixed 16) |
/// | 0x0019 | «Secondary Service» FEED, group end 0x001D |
/// | 0x001A/1B | Device Name 2A00 (read needs authorization) "sec" |
/// | 0x001C/1D | Appearance 2A01 (write only) |
enum GATTServerTestProfile {
    static func custom(_ short: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: 0xE5B1_0000_7C3A_4F0E | UInt64(short) << 32, low: 0x9D2B_5A1C_3E7F_9B20)
    }

    /// Little-endian wire hex of a custom UUID.
    static func wire(_ short: UInt16) -> String { custom(short).littleEndianBytes(width: 16)!.hexString }

    static let sensor = custom(0x0100)
    static let reading = custom(0x0101)
    static let logControl = custom(0x0102)
    static let auth = custom(0x0203)
    static let secure = custom(0x0204)
    static let long = custom(0x0205)
    static let longValue: [UInt8] = Array(0..<100)
    static let readingValue: [UInt8] = Array(0xA0..<0xAE)

    static let services: [GATTServer.Service] = [
        .init(
            BluetoothUUID(0x180A),
            characteristics: [
                .init(BluetoothUUID(0x2A29), properties: .read, value: .stored("Espressif")),
                .init(BluetoothUUID(0x2A24), properties: .read, value: .stored("esp-point")),
            ]),
        .init(
            BluetoothUUID(0x180F),
            characteristics: [
                .init(
                    BluetoothUUID(0x2A19), properties: [.read, .notify], value: .stored([100]), length: .fixed(1),
                    descriptors: [.userDescription("Battery")])
            ]),
        .init(
            sensor, includes: [BluetoothUUID(0x180F)],
            characteristics: [
                .init(reading, properties: [.read, .notify], value: .dynamic, length: .fixed(14)),
                .init(logControl, properties: [.write, .indicate], value: .dynamic),
                .init(
                    secure, properties: [.read, .write],
                    permissions: [.read, .write, .readEncrypted, .writeAuthenticated],
                    value: .stored([0, 0])),
                .init(long, properties: [.read, .write, .writeWithoutResponse], value: .stored(longValue)),
                .init(auth, properties: [.read, .write], value: .dynamic, length: .fixed(16)),
            ]),
        .init(
            BluetoothUUID(0xFEED), isPrimary: false,
            characteristics: [
                .init(
                    BluetoothUUID(0x2A00), properties: .read, permissions: [.read, .readAuthorized],
                    value: .stored("sec")),
                .init(BluetoothUUID(0x2A01), properties: .write),
            ]),
    ]
}

/// A board-model-like application: a dynamic Reading, a per-connection Auth challenge whose answer is each byte
/// XOR 0x5A, and Log Control writes refused with 0x05 until the connection authenticated. Records every call.
struct RecordingGATTApplication: GATTServerApplication {
    enum Event: Hashable {
        case read(UInt16, GATTServer.ConnectionID)
        case write([UInt8], GATTServer.WriteKind, UInt16, GATTServer.ConnectionID)
        case configuration(GATT.ClientConfiguration, cccd: UInt16, value: UInt16, GATTServer.ConnectionID)
        case confirmed(UInt16, GATTServer.ConnectionID)
    }

    var events: [Event] = []
    var authenticated: Set<GATTServer.ConnectionID> = []

    static func challenge(_ connection: GATTServer.ConnectionID) -> [UInt8] {
        (0..<16).map { UInt8($0) &+ UInt8(truncatingIfNeeded: connection.rawValue) &* 16 }
    }

    static func answer(_ connection: GATTServer.ConnectionID) -> [UInt8] { challenge(connection).map { $0 ^ 0x5A } }

    mutating func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
        events.append(.read(access.handle, access.connection))
        switch access.characteristic {
        case GATTServerTestProfile.reading: return .success(GATTServerTestProfile.readingValue)
        case GATTServerTestProfile.auth: return .success(Self.challenge(access.connection))
        default: return .failure(.unlikelyError)
        }
    }

    mutating func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode? {
        events.append(.write(value, kind, access.handle, access.connection))
        switch access.characteristic {
        case GATTServerTestProfile.logControl:
            return authenticated.contains(access.connection) ? nil : .insufficientAuthentication
        case GATTServerTestProfile.auth:
            guard value == Self.answer(access.connection) else { return .unlikelyError }
            authenticated.insert(access.connection)
            return nil
        default: return nil
        }
    }

    mutating func clientConfigurationChanged(_ configuration: GATT.ClientConfiguration, _ access: GATTServer.Access) {
        #expect(access.descriptor == GATT.AttributeType.clientCharacteristicConfiguration)
        events.append(
            .configuration(
                configuration, cccd: access.handle, value: access.characteristicValueHandle, access.connection))
    }

    mutating func indicationConfirmed(_ access: GATTServer.Access) {
        events.append(.confirmed(access.handle, access.connection))
    }
}

/// A server over the test profile with a recording application, driven by hex PDUs.
struct GATTServerHarness {
    var server: GATTServer
    var app = RecordingGATTApplication()

    init(configuration: GATTServer.Configuration = .init()) throws {
        server = try GATTServer(services: GATTServerTestProfile.services, configuration: configuration)
    }

    mutating func receive(_ hex: String, from connection: GATTServer.ConnectionID = 1) -> [GATTServer.Action] {
        guard let bytes = [UInt8](hex: hex) else {
            Issue.record("bad hex in test: \(hex)")
            return []
        }
        return server.receive(bytes, from: connection, application: &app)
    }
}

/// The action sending the PDU written in hex.
func sendPDU(_ hex: String, to connection: GATTServer.ConnectionID = 1) -> GATTServer.Action {
    .send([UInt8](hex: hex) ?? [], to: connection)
}

/// Hex of a string's UTF-8 bytes.
func utf8Hex(_ text: String) -> String { Array(text.utf8).hexString }

/// Hex of any run of bytes.
func bytesHex(_ bytes: some Collection<UInt8>) -> String { Array(bytes).hexString }

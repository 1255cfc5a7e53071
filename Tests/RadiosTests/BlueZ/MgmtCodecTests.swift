import BLECore
import Testing

@testable import Radios

/// One mgmt message as bytes (the parameters as mgmt-api.txt lays them out) and the value it decodes to.
struct MgmtVector: Sendable, CustomTestStringConvertible {
    var name: String
    var packet: [UInt8]
    /// Decodes the packet's parameters and encodes them again.
    var roundTrip: @Sendable (Mgmt.Packet) throws -> [UInt8]
    var check: @Sendable (Mgmt.Packet) throws -> Bool
    var testDescription: String { name }
}

private func command<C: MgmtCommand>(_ name: String, _ value: C, _ packet: [UInt8]) -> MgmtVector {
    MgmtVector(
        name: name, packet: packet,
        roundTrip: { try C(parameters: $0.parameters).packet(index: $0.index).encoded },
        check: { try C(parameters: $0.parameters) == value && $0.code == C.opcode.rawValue })
}

private func reply<C: MgmtCommand>(_ name: String, _: C.Type, _ value: C.Reply, _ parameters: [UInt8]) -> MgmtVector {
    let packet = Mgmt.CommandComplete(C.self, reply: value).packet(index: 0).encoded
    return MgmtVector(
        name: name, packet: packet,
        roundTrip: { packet in
            guard case let .commandComplete(complete) = try Mgmt.Event(decoding: packet) else { return [] }
            let decoded = try C.Reply(parameters: complete.returned)
            return Mgmt.CommandComplete(C.self, reply: decoded).packet(index: packet.index).encoded
        },
        check: { packet in
            guard case let .commandComplete(complete) = try Mgmt.Event(decoding: packet) else { return false }
            return try C.Reply(parameters: complete.returned) == value && complete.returned == parameters
        })
}

private func event(_ name: String, _ value: Mgmt.Event, _ packet: [UInt8]) -> MgmtVector {
    MgmtVector(
        name: name, packet: packet,
        roundTrip: { try Mgmt.Event(decoding: $0).packet(index: $0.index).encoded },
        check: { try Mgmt.Event(decoding: $0) == value })
}

/// E4:0A:C4:12:1A:2B (random), as mgmt writes it: least significant byte first, then type 2.
private let board = DeviceAddress(0xE4_0A_C4_12_1A_2B, kind: .random)
private let boardBytes: [UInt8] = [0x2B, 0x1A, 0x12, 0xC4, 0x0A, 0xE4, 0x02]

let mgmtVectors: [MgmtVector] = [
    command("Read Controller Index List", Mgmt.ReadIndexList(), [0x03, 0x00, 0xFF, 0xFF, 0x00, 0x00]),
    command("Read Controller Information", Mgmt.ReadControllerInfo(), [0x04, 0x00, 0x00, 0x00, 0x00, 0x00]),
    command("Set Powered on", Mgmt.SetPowered(true), [0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]),
    command("Set Powered off", Mgmt.SetPowered(false), [0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00]),
    command("Start Discovery LE", Mgmt.StartDiscovery(.le), [0x23, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06]),
    command("Stop Discovery LE", Mgmt.StopDiscovery(.le), [0x24, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06]),
    command("Disconnect", Mgmt.Disconnect(Mgmt.Address(board)), [0x14, 0x00, 0x00, 0x00, 0x07, 0x00] + boardBytes),
    command(
        "Load Connection Parameters (15 ms, 4 s)",
        Mgmt.LoadConnectionParameters([
            .init(board, HCI.ConnectionParameters(interval: .milliseconds(15), supervisionTimeout: .seconds(4)))
        ]),
        [0x35, 0x00, 0x00, 0x00, 0x11, 0x00, 0x01, 0x00] + boardBytes + [0x0C, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x90, 0x01]),
    reply("Read Controller Index List reply", Mgmt.ReadIndexList.self, .init(indexes: [0, 1]), [2, 0, 0, 0, 1, 0]),
    reply("Set Powered reply", Mgmt.SetPowered.self, .init([.powered, .le]), [0x01, 0x02, 0x00, 0x00]),
    reply(
        "Read Controller Information reply", Mgmt.ReadControllerInfo.self,
        .init(address: 0x00_1A_7D_DA_71_13, supported: [.powered, .le], current: [.le], name: "hci0 box"),
        [0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 0x0C, 0xF1, 0x05, 0x01, 0x02, 0, 0, 0x00, 0x02, 0, 0, 0, 0, 0]
            + Array("hci0 box".utf8) + [UInt8](repeating: 0, count: 241) + [UInt8](repeating: 0, count: 11)),
    event(
        "Command Status: Permission Denied",
        .commandStatus(.init(opcode: .startDiscovery, status: .permissionDenied)),
        [0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x23, 0x00, 0x14]),
    event(
        "Device Found, connectable, with a name", .deviceFound(.init(address: .init(board), rssi: -60, eir: [5, 0x09] + Array("ESP1".utf8))),
        [0x12, 0x00, 0x00, 0x00, 0x14, 0x00] + boardBytes + [0xC4, 0, 0, 0, 0, 0x06, 0x00, 0x05, 0x09]
            + Array("ESP1".utf8)),
    event(
        "Device Found, not connectable", .deviceFound(.init(address: .init(board), rssi: 127, flags: .notConnectable, eir: [])),
        [0x12, 0x00, 0x00, 0x00, 0x0E, 0x00] + boardBytes + [0x7F, 0x04, 0, 0, 0, 0x00, 0x00]),
    event(
        "Device Connected", .deviceConnected(.init(address: .init(board), flags: 0x08)),
        [0x0B, 0x00, 0x00, 0x00, 0x0D, 0x00] + boardBytes + [0x08, 0, 0, 0, 0, 0]),
    event(
        "Device Disconnected: remote", .deviceDisconnected(.init(address: .init(board), reason: .remote)),
        [0x0C, 0x00, 0x00, 0x00, 0x08, 0x00] + boardBytes + [0x03]),
    event(
        "Connect Failed: Connect Failed", .connectFailed(.init(address: .init(board), status: .connectFailed)),
        [0x0D, 0x00, 0x00, 0x00, 0x08, 0x00] + boardBytes + [0x04]),
    event(
        "Discovering LE stopped", .discovering(.init(types: .le, discovering: false)),
        [0x13, 0x00, 0x00, 0x00, 0x02, 0x00, 0x06, 0x00]),
    event("New Settings", .newSettings(.init([.powered, .le])), [0x06, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x02, 0, 0]),
    event("Index Removed", .indexRemoved, [0x05, 0x00, 0x00, 0x00, 0x00, 0x00]),
    event("an event blerig does not use stays raw", .other(code: 0x0019, parameters: [1, 2]), [0x19, 0, 0, 0, 2, 0, 1, 2]),
]

@Suite("mgmt commands and events (mgmt-api.txt) as bytes")
struct MgmtCodecTests {
    @Test("each message decodes to its value and encodes back to the same bytes", arguments: mgmtVectors)
    func roundTrips(vector: MgmtVector) throws {
        let packet = try Mgmt.Packet(decoding: vector.packet)
        #expect(packet.encoded == vector.packet)
        #expect(try vector.check(packet))
        #expect(try vector.roundTrip(packet) == vector.packet)
    }

    /// A datagram socket hands over whole packets, but a kernel bug or a short read must not trap: fed one byte
    /// more at a time, every cut packet throws and only the whole one decodes.
    @Test("drip-fed: every prefix of a packet is rejected, never trapped on", arguments: mgmtVectors)
    func prefixesAreRejected(vector: MgmtVector) throws {
        for count in 0..<vector.packet.count {
            #expect(throws: DecodingError.self) { try Mgmt.Packet(decoding: vector.packet.prefix(count)) }
        }
        #expect(throws: DecodingError.self) { try Mgmt.Packet(decoding: vector.packet + [0]) }
    }

    @Test("parameters cut short inside a correct header throw with the field's name")
    func truncatedParameters() throws {
        let found = Mgmt.Packet(code: 0x0012, index: 0, parameters: boardBytes + [0xC4, 0, 0, 0, 0, 0x06, 0x00, 0x05])
        #expect {
            try Mgmt.Event(decoding: found)
        } throws: { error in
            "\(error)".contains("Device Found event") && "\(error)".contains("EIR_Data")
        }
        #expect(throws: DecodingError.self) { try Mgmt.SetPowered(parameters: [2]) }
    }

    @Test(
        "Device Disconnected's five reasons stand for HCI reasons",
        arguments: [
            (Mgmt.DeviceDisconnected.Reason.unspecified, HCIErrorCode.unspecifiedError),
            (.connectionTimeout, .connectionTimeout), (.localHost, .localHostTerminated),
            (.remote, .remoteUserTerminated), (.authenticationFailure, .authenticationFailure),
            (.localHostSuspend, .localHostTerminated),
        ])
    func disconnectReasons(reason: Mgmt.DeviceDisconnected.Reason, hci: HCIErrorCode) {
        #expect(reason.hciReason == hci)
    }

    @Test("statuses print with their mgmt-api.txt names")
    func statusNames() {
        #expect("\(Mgmt.Status.busy)" == "Busy (0x0a)")
        #expect("\(Mgmt.Status.permissionDenied)" == "Permission Denied (0x14)")
        #expect("\(Mgmt.Opcode.setPowered)" == "Set Powered (0x0005)")
    }
}

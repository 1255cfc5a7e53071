import BLECore
import Foundation
import Testing

/// blerig's HCI codecs against Bumble's: every command blerig sends encodes byte for byte as Bumble encodes it,
/// and every event Bumble encodes decodes to the fields it was given. Bumble is a host nobody here wrote.
@Suite(.serialized) struct HCIBumbleVectorTests {
    static let peer = DeviceAddress(0xC0_AA_BB_CC_DD_EE, kind: .random)
    static let parameters = HCI.ConnectionParameters(intervalMin: 12, intervalMax: 12, supervisionTimeout: 400)
    static var scan: HCI.ScanParameters { .init(active: true, interval: 16, window: 16, ownAddressKind: .random) }
    static var create: HCI.CreateConnection { .init(peer: peer, parameters: parameters, ownAddressKind: .random) }

    static let commands: [String: HCI.Command] = [
        "reset": .reset,
        "setEventMask": .setEventMask(HCIHost.eventMask),
        "leSetEventMask": .leSetEventMask(HCIHost.leEventMask),
        "leSetRandomAddress": .leSetRandomAddress(DeviceAddress(0xC1_22_33_44_55_66, kind: .random)),
        "leSetAdvertisingParameters": .leSetAdvertisingParameters(
            .init(interval: .milliseconds(100), ownAddressKind: .random)),
        "leSetAdvertisingData": .leSetAdvertisingData([2, 1, 6, 3, 9, 0x41, 0x42]),
        "leSetScanResponseData": .leSetScanResponseData([3, 9, 0x41, 0x42]),
        "leSetAdvertisingEnable": .leSetAdvertisingEnable(true),
        "leSetScanParameters": .leSetScanParameters(scan),
        "leSetScanEnable": .leSetScanEnable(true, filterDuplicates: false),
        "leCreateConnection": .leCreateConnection(create),
        "leCreateConnectionCancel": .leCreateConnectionCancel,
        "leExtendedCreateConnection": .leExtendedCreateConnection(create),
        "leSetExtendedScanParameters": .leSetExtendedScanParameters(scan),
        "leSetExtendedScanEnable": .leSetExtendedScanEnable(true, filterDuplicates: false),
        "leConnectionUpdate": .leConnectionUpdate(
            handle: 0x40, .init(intervalMin: 24, intervalMax: 40, latency: 1, supervisionTimeout: 500)),
        "leSetDataLength": .leSetDataLength(handle: 0x40, txOctets: 251, txTime: 2120),
        "leSetPHY": .leSetPHY(handle: 0x40, tx: .le2M, rx: [.le1M, .le2M]),
        "disconnect": .disconnect(handle: 0x40, reason: .remoteUserTerminated),
    ]

    static let events: [String: HCI.Event] = [
        "commandComplete": .commandComplete(numberOfCommands: 1, opcode: .reset, returnParameters: [0]),
        "commandStatus": .commandStatus(.commandDisallowed, numberOfCommands: 1, opcode: .leCreateConnection),
        "disconnectionComplete": .disconnectionComplete(.init(handle: 0x40, reason: .connectionTimeout)),
        "numberOfCompletedPackets": .numberOfCompletedPackets([(0x40, 2), (0x41, 1)]),
        "leConnectionComplete": .leConnectionComplete(
            .init(handle: 0x40, role: .central, peerAddress: peer, connectionInterval: 12, supervisionTimeout: 400)),
        "leDataLengthChange": .leDataLengthChange(
            handle: 0x40, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27, maxRxTime: 328),
        "lePHYUpdateComplete": .lePHYUpdateComplete(.success, handle: 0x40, tx: 2, rx: 2),
    ]

    @Test(.enabled(if: InteropEnvironment.runs, InteropEnvironment.skipReason))
    func commandsAndEventsAgreeWithBumble() throws {
        let vectors = try Self.runPython(script: "hci_vectors.py")
        var seen = 0
        for line in vectors.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: String]
            let name = object["name"]!
            let bytes = try #require([UInt8](hex: object["hex"]!))
            if let command = Self.commands[name] {
                #expect(command.h4.encoded == bytes, "\(name): blerig \(command.h4.encoded.hexString), Bumble \(bytes.hexString)")
                seen += 1
            } else if let event = Self.events[name] {
                let packet = try HCI.H4Packet(decoding: bytes)
                let decoded = try HCI.Event(decoding: packet.eventPacket())
                #expect(decoded == event, "\(name): decoded \(decoded), expected \(event)")
                seen += 1
            } else {
                Issue.record("Bumble printed \(name), which this test does not know")
            }
        }
        #expect(seen == Self.commands.count + Self.events.count)
    }
}

extension HCIBumbleVectorTests {
    /// Runs a script from `share/blerig/peers/` with the venv's python to completion; its standard output.
    static func runPython(script: String) throws -> String {
        let process = Process()
        process.executableURL = URL(filePath: try InteropEnvironment.venv().python)
        process.arguments = [InteropEnvironment.peersDirectory + "/" + script]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw VectorError("\(script) exited with \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    struct VectorError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension [UInt8] {
    init?(hex: String) {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }
}

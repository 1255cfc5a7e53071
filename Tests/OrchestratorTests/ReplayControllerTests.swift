import BLECore
import BenchCore
import Foundation
import Synchronization
import Testing

@testable import Benchmarks

@Suite("the host replay's controller")
struct ReplayControllerTests {
    static let reset = HCI.Command.reset.h4
    static let readAddress = HCI.Command.readBDAddr.h4
    static let scan = HCI.Command.leSetScanEnable(true, filterDuplicates: false).h4
    static func done(_ command: HCI.Command, _ parameters: [UInt8] = [0]) -> HCI.H4Packet {
        HCI.Event.commandComplete(numberOfCommands: 1, opcode: command.opcode, returnParameters: parameters).h4
    }

    /// Reset once, then Read BD_ADDR and LE Set Scan Enable over and over: the cycle starts at the second host packet.
    static let recording: [(HCI.Direction, HCI.H4Packet)] = [
        (.hostToController, reset), (.controllerToHost, done(.reset)),
        (.hostToController, readAddress), (.controllerToHost, done(.readBDAddr, [0, 1, 2, 3, 4, 5, 6])),
        (.hostToController, scan), (.controllerToHost, done(.leSetScanEnable(true, filterDuplicates: false))),
        (.controllerToHost, done(.readBDAddr, [0, 6, 5, 4, 3, 2, 1])),
    ]

    /// Collects what the controller delivers, and waits for a count of it.
    final class Host: Sendable {
        let packets = Mutex<[HCI.H4Packet]>([])
        let closedWith = Mutex<String??>(.none)

        func start(_ controller: ReplayController) {
            controller.start(
                packet: { packet in self.packets.withLock { $0.append(packet) } },
                closed: { error in self.closedWith.withLock { $0 = .some(error.map { "\($0)" }) } })
        }

        func wait(until condition: @Sendable () -> Bool) async throws {
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            while !condition() {
                guard ContinuousClock.now < deadline else { throw CancellationError() }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    @Test("answers each host packet with the controller's packets after it, then repeats the cycle")
    func answersAndRepeats() async throws {
        let controller = try ReplayController(Self.recording, cycleStart: 1)
        let host = Host()
        host.start(controller)
        for packet in [Self.reset, Self.readAddress, Self.scan, Self.readAddress, Self.scan, Self.readAddress] {
            try controller.send(packet)
        }
        try await host.wait { host.packets.withLock { $0.count } == 8 }
        let answers = Self.recording.filter { $0.0 == .controllerToHost }.map(\.1)
        #expect(host.packets.withLock { $0 } == answers + Array(answers[1...]) + [answers[1]])
        #expect(controller.sent == 6)
        #expect(controller.diverged == nil)
        controller.close()
        try await host.wait { host.closedWith.withLock { $0 } != nil }
        #expect(host.closedWith.withLock { $0 } == .some(nil))
        #expect(throws: HCITransportError.self) { try controller.send(Self.readAddress) }
    }

    @Test("a host packet the recording does not have at its place fails the send and closes with both named")
    func divergence() async throws {
        let controller = try ReplayController(Self.recording, cycleStart: 1)
        let host = Host()
        host.start(controller)
        try controller.send(Self.reset)
        #expect(throws: HCITransportError.self) { try controller.send(Self.scan) }
        let why = try #require(controller.diverged)
        #expect(
            why == "host packet 2 left the recording: it sent command 0x200C where the recording has command 0x1009")
        try await host.wait { host.closedWith.withLock { $0 } != nil }
        #expect(host.closedWith.withLock { $0 }??.contains("left the recording") == true)
        // What the first packet earned may or may not have been delivered before the close; nothing after it was.
        #expect(host.packets.withLock { $0.count } <= 1)
    }

    @Test("a recording that does not begin with the host, or has no host packet to repeat, is refused")
    func badRecordings() {
        #expect(throws: BenchmarkError.self) {
            _ = try ReplayController([(.controllerToHost, Self.done(.reset))] + Self.recording, cycleStart: 0)
        }
        #expect(throws: BenchmarkError.self) { _ = try ReplayController(Self.recording, cycleStart: 3) }
        #expect(throws: BenchmarkError.self) { _ = try ReplayController([], cycleStart: 0) }
    }

    @Test("ACL data is told apart by its ATT opcode; a continuation fragment by its length")
    func aclLabels() {
        func acl(_ flags: UInt8, _ payload: [UInt8]) -> HCI.H4Packet {
            HCI.H4Packet(type: .aclData, body: [0x40, flags, UInt8(payload.count), 0] + payload)
        }
        let request = acl(0x00, [3, 0, 4, 0, 0x02, 0xF7, 0x00])
        let other = acl(0x00, [3, 0, 4, 0, 0x0A, 0x03, 0x00])
        #expect(ReplayController.difference(request, request) == nil)
        #expect(
            ReplayController.difference(other, request)
                == "it sent ACL data starting ATT opcode 0x0A where the recording has ACL data starting ATT opcode "
                + "0x02")
        #expect(ReplayController.difference(acl(0x10, [1, 2]), acl(0x10, [3, 4])) == nil)
        #expect(ReplayController.difference(acl(0x10, [1, 2]), acl(0x10, [3])) != nil)
    }
}

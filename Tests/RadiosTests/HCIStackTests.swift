import BLECore
import BenchCore
import Foundation
import Synchronization
import Testing

@testable import Radios

/// A controller in the test: every command the stack sends is decoded and answered by `answer`, on a thread of
/// its own, as a transport's reader thread would deliver the answer.
final class ScriptedTransport: HCITransport, @unchecked Sendable {
    let answer: @Sendable (HCI.Command, ScriptedTransport) -> [HCI.H4Packet]
    private let state = Mutex<
        (packet: (@Sendable (HCI.H4Packet) -> Void)?, closed: (@Sendable (HCITransportError?) -> Void)?, open: Bool)
    >((nil, nil, true))
    let sent = Mutex<[HCI.Command]>([])
    /// From now on every write fails (the controller's socket broke).
    let failWrites = Mutex(false)

    init(answer: @escaping @Sendable (HCI.Command, ScriptedTransport) -> [HCI.H4Packet]) { self.answer = answer }

    var description: String { "scripted controller" }

    func start(
        packet: @escaping @Sendable (HCI.H4Packet) -> Void, closed: @escaping @Sendable (HCITransportError?) -> Void
    ) {
        state.withLock { $0 = (packet, closed, true) }
    }

    func send(_ packet: HCI.H4Packet) throws(HCITransportError) {
        if failWrites.withLock({ $0 }) { throw HCITransportError(.io, "broken pipe") }
        guard state.withLock({ $0.open }) else {
            throw HCITransportError(.disconnected, "scripted controller is closed")
        }
        guard packet.type == .command,
            let command = try? HCI.Command(decoding: HCI.CommandPacket(decoding: packet.body))
        else { return }
        sent.withLock { $0.append(command) }
        let replies = answer(command, self)
        Thread.detachNewThread { [self] in for reply in replies { deliver(reply) } }
    }

    func deliver(_ packet: HCI.H4Packet) {
        let handler = state.withLock { $0.open ? $0.packet : nil }
        handler?(packet)
    }

    /// The controller goes away (a USB dongle pulled out).
    func vanish() {
        let closed = state.withLock { state -> (@Sendable (HCITransportError?) -> Void)? in
            state.open = false
            return state.closed
        }
        closed?(HCITransportError(.disconnected, "scripted controller vanished"))
    }

    func close() {
        let closed = state.withLock { state -> (@Sendable (HCITransportError?) -> Void)? in
            defer { state.closed = nil }
            state.open = false
            return state.closed
        }
        closed?(nil)
    }

    /// Answers initialisation like a small LE controller, and LE Create Connection with a status only.
    static func initialising(_ command: HCI.Command, _ transport: ScriptedTransport) -> [HCI.H4Packet] {
        var parameters: [UInt8] = [0]
        switch command {
        case .readLocalVersionInformation: parameters += [0x0C, 0, 0, 0x0C, 0xF1, 0x05, 0, 0]
        case .readLocalSupportedFeatures: parameters += [0, 0, 0, 0, 0x40, 0, 0, 0]
        case .readBDAddr: parameters += [1, 2, 3, 4, 5, 6]
        case .leReadBufferSize: parameters += [27, 0, 4]
        case .leReadLocalSupportedFeatures: parameters += [UInt8](repeating: 0, count: 8)
        case .leCreateConnection, .leExtendedCreateConnection:
            return [HCI.Event.commandStatus(.success, numberOfCommands: 1, opcode: command.opcode).h4]
        case .leCreateConnectionCancel:
            // The attempt ends with 0x02 Unknown Connection Identifier after the cancel completes.
            return [
                HCI.Event.commandComplete(numberOfCommands: 1, opcode: command.opcode, returnParameters: [0]).h4,
                HCI.Event.leConnectionComplete(
                    .init(
                        status: .unknownConnectionIdentifier, handle: 0, peerAddress: DeviceAddress(0),
                        connectionInterval: 0, supervisionTimeout: 0)
                ).h4,
            ]
        default: break
        }
        return [HCI.Event.commandComplete(numberOfCommands: 1, opcode: command.opcode, returnParameters: parameters).h4]
    }
}

@Suite struct HCIStackTests {
    @Test func aControllerThatNeverAnswersFailsTheOpenInTime() async throws {
        let transport = ScriptedTransport { _, _ in [] }
        let started = ContinuousClock.now
        await #expect {
            _ = try await HCIStack.open(
                transport, configuration: .init(commandTimeout: .seconds(120)), timeout: .milliseconds(300))
        } throws: { error in
            "\(error)" == "the controller on scripted controller did not finish initialising within 0.3 s"
        }
        // The open's own timeout ended it, not the command timeout (generous: other suites may load the machine).
        #expect(started.duration(to: .now) < .seconds(60))
        #expect(transport.sent.withLock { $0 } == [.reset])
    }

    @Test func aFailedInitialisationSaysWhichCommandAndStatus() async throws {
        let transport = ScriptedTransport { command, transport in
            if case .leSetEventMask = command {
                return [
                    HCI.Event.commandComplete(numberOfCommands: 1, opcode: command.opcode, returnParameters: [0x12]).h4
                ]
            }
            return ScriptedTransport.initialising(command, transport)
        }
        await #expect {
            _ = try await HCIStack.open(transport, timeout: .seconds(5))
        } throws: { error in
            "\(error)".contains("(LE Set Event Mask) returned 0x12 (invalid HCI command parameters)")
        }
    }

    @Test func aConnectionNobodyAnswersIsCancelledAndReportedAsNotFound() async throws {
        let transport = ScriptedTransport(answer: ScriptedTransport.initialising)
        let stack = try await HCIStack.open(transport, timeout: .seconds(5))
        let central = HCICentral(stack: stack)
        let peer = DeviceAddress(0xC0_01_02_03_04_05, kind: .random)
        await #expect(throws: CentralError.notFound(peer, waited: .milliseconds(200))) {
            _ = try await central.connect(to: peer, timeout: .milliseconds(200))
        }
        #expect(transport.sent.withLock { $0 }.contains(.leCreateConnectionCancel))
        await stack.shutdown()
    }

    @Test func aFailedWriteEndsTheStackAndIsReportedNotSwallowed() async throws {
        let transport = ScriptedTransport(answer: ScriptedTransport.initialising)
        let stack = try await HCIStack.open(transport, timeout: .seconds(5))
        let heard = Mutex<[String]>([])
        stack.whenTransportCloses { why in heard.withLock { $0.append(why) } }
        transport.failWrites.withLock { $0 = true }
        let peer = DeviceAddress(0xC0_01_02_03_04_05, kind: .random)
        await #expect(throws: CentralError.self) {
            _ = try await HCICentral(stack: stack).connect(to: peer, timeout: .seconds(5))
        }
        #expect(heard.withLock { $0 } == ["writing to scripted controller failed: broken pipe"])
        #expect(stack.failure == "writing to scripted controller failed: broken pipe")
        await stack.shutdown()
        #expect(heard.withLock { $0 }.count == 1, "closing after the failure is no second fault")
    }

    @Test func aShutdownWithoutLinksReturnsAtOnce() async throws {
        let transport = ScriptedTransport(answer: ScriptedTransport.initialising)
        let stack = try await HCIStack.open(transport, timeout: .seconds(5))
        let heard = Mutex<[String]>([])
        stack.whenTransportCloses { why in heard.withLock { $0.append(why) } }
        let started = ContinuousClock.now
        await stack.shutdown(grace: .seconds(30))
        #expect(started.duration(to: .now) < .seconds(5))
        #expect(heard.withLock { $0 }.isEmpty, "a shutdown is not a fault")
    }

    @Test func aVanishedControllerEndsScansAndSaysWhy() async throws {
        let transport = ScriptedTransport(answer: ScriptedTransport.initialising)
        let stack = try await HCIStack.open(transport, timeout: .seconds(5))
        let scan = HCICentral(stack: stack).scan(ScanFilter())
        transport.vanish()
        var reports = 0
        for await _ in scan { reports += 1 }
        #expect(reports == 0)
        #expect(stack.failure == "the transport scripted controller failed: scripted controller vanished")
        // Nothing more can be asked of it: a connection fails at once, as the radio being unavailable.
        await #expect(throws: CentralError.self) {
            _ = try await HCICentral(stack: stack).connect(to: DeviceAddress(1), timeout: .seconds(1))
        }
    }
}

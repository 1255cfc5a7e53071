import Synchronization
import Testing

@testable import BLECore

/// Doubles shared by the GATT client tests, in one namespace so they cannot collide with other suites' helpers.
enum GATTClientTesting {
    /// Drives a ``GATTClient`` the way the connection does, and hands every action back to the test to assert:
    /// each `send` is reported sent at `now`, as the shell does when it takes the request to the bearer.
    struct Harness {
        var client: GATTClient
        var now = RigInstant.origin
        private var nextID: UInt64 = 0

        init(_ client: GATTClient = GATTClient()) { self.client = client }

        mutating func start(_ procedure: GATTClient.Procedure) -> (GATTClient.OperationID, [GATTClient.Action]) {
            nextID += 1
            let id = GATTClient.OperationID(nextID)
            return (id, sent(client.start(procedure, id: id)))
        }

        mutating func receive(_ message: some ATTMessage) -> [GATTClient.Action] { receive(bytes: message.encoded) }

        mutating func receive(bytes: [UInt8]) -> [GATTClient.Action] { sent(client.receive(bytes, at: now)) }

        mutating func cancel(_ id: GATTClient.OperationID) -> [GATTClient.Action] { sent(client.cancel(id)) }

        mutating func expire(after duration: Duration) -> [GATTClient.Action] {
            now = now.advanced(by: duration)
            return sent(client.expire(at: now))
        }

        private mutating func sent(_ actions: [GATTClient.Action]) -> [GATTClient.Action] {
            if actions.contains(where: { if case .send = $0 { true } else { false } }) { client.didSend(at: now) }
            return actions
        }
    }

    /// A clock that moves only when the test advances it; `sleep` parks until then (or until cancelled).
    final class ManualClock: RigClock {
        private struct Sleeper {
            var deadline: RigInstant
            var continuation: CheckedContinuation<Void, any Error>
        }

        private struct State {
            var now = RigInstant.origin
            var sleepers: [UInt64: Sleeper] = [:]
            var nextKey: UInt64 = 0
        }

        private let state = Mutex(State())

        var now: RigInstant { state.withLock { $0.now } }
        var minimumResolution: Duration { .nanoseconds(1) }
        /// How many tasks are parked in `sleep`.
        var sleeperCount: Int { state.withLock { $0.sleepers.count } }

        func sleep(until deadline: RigInstant, tolerance: Duration? = nil) async throws {
            let key = state.withLock { state in
                state.nextKey += 1
                return state.nextKey
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let outcome = state.withLock { state -> Result<Void, any Error>? in
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if deadline <= state.now { return .success(()) }
                        state.sleepers[key] = Sleeper(deadline: deadline, continuation: continuation)
                        return nil
                    }
                    if let outcome { continuation.resume(with: outcome) }
                }
            } onCancel: {
                state.withLock { $0.sleepers.removeValue(forKey: key) }?.continuation.resume(
                    throwing: CancellationError())
            }
        }

        /// Moves time forward and wakes every sleeper whose deadline has come.
        func advance(by duration: Duration) {
            let due = state.withLock { state in
                state.now = state.now.advanced(by: duration)
                let now = state.now
                let due = state.sleepers.filter { $0.value.deadline <= now }
                for key in due.keys { state.sleepers[key] = nil }
                return Array(due.values)
            }
            for sleeper in due { sleeper.continuation.resume() }
        }
    }

    /// An ATT bearer that records what is sent and may answer at once through `onSend` (as a peer would).
    final class RecordingBearer: ATTBearer {
        private let state = Mutex<(sent: [[UInt8]], failure: GATTError?)>(([], nil))
        private let onSend: @Sendable ([UInt8]) -> Void

        init(onSend: @escaping @Sendable ([UInt8]) -> Void = { _ in }) { self.onSend = onSend }

        var sent: [[UInt8]] { state.withLock { $0.sent } }

        /// Makes every later `send` throw `error`.
        func fail(with error: GATTError) { state.withLock { $0.failure = error } }

        func send(_ pdu: [UInt8]) async throws(GATTError) {
            if let failure = state.withLock({ state -> GATTError? in
                if state.failure == nil { state.sent.append(pdu) }
                return state.failure
            }) {
                throw failure
            }
            onSend(pdu)
        }
    }

    /// Records what the connection asks of the transport; `disconnect` reports the link down at once.
    final class RecordingLink: LinkControl {
        private let state = Mutex<(replies: [[UInt8]], disconnects: Int)>(([], 0))
        private let onReply: @Sendable ([UInt8]) -> Void
        private let onDisconnect: @Sendable () -> Void

        init(
            onReply: @escaping @Sendable ([UInt8]) -> Void = { _ in }, onDisconnect: @escaping @Sendable () -> Void = {}
        ) {
            self.onReply = onReply
            self.onDisconnect = onDisconnect
        }

        var replies: [[UInt8]] { state.withLock { $0.replies } }
        var disconnects: Int { state.withLock { $0.disconnects } }

        func disconnect() async {
            state.withLock { $0.disconnects += 1 }
            onDisconnect()
        }

        func sendImmediately(_ pdu: [UInt8]) {
            state.withLock { $0.replies.append(pdu) }
            onReply(pdu)
        }
    }

    /// A link that keeps timers (``LinkControl/schedule(at:_:)``): it records each one, and the test fires them.
    final class TimerLink: LinkControl {
        private let state = Mutex<[(deadline: RigInstant, action: @Sendable () -> Void)]>([])

        /// The deadline of every timer asked for, in order.
        var deadlines: [RigInstant] { state.withLock { $0.map(\.deadline) } }

        func disconnect() async {}
        func sendImmediately(_ pdu: [UInt8]) {}

        func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> Bool {
            state.withLock { $0.append((deadline, action)) }
            return true
        }

        /// Runs the oldest timer not yet run.
        func fireNext() {
            let action = state.withLock { timers in timers.isEmpty ? nil : timers.removeFirst().action }
            action?()
        }
    }

    /// Yields until `condition` holds: lets the tasks under test reach their suspension points. Fails the test
    /// rather than spinning forever.
    static func settle(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, until condition: () -> Bool
    ) async {
        for _ in 0..<10_000 {
            if condition() { return }
            await Task.yield()
        }
        Issue.record("never settled: \(what)", sourceLocation: sourceLocation)
    }

    static let peer = DeviceAddress(0xC0FF_EE00_0001, kind: .random)

    /// Every event of a stream, once it has finished.
    static func collect(_ stream: AsyncStream<GATT.ValueEvent>) async -> [GATT.ValueEvent] {
        var events: [GATT.ValueEvent] = []
        for await event in stream { events.append(event) }
        return events
    }
}

extension GATTClient.Action {
    /// `.send(message.encoded)`.
    static func request(_ message: some ATTMessage) -> Self { .send(message.encoded) }

    static func done(_ id: GATTClient.OperationID, _ outcome: GATTClient.Outcome) -> Self {
        .complete(id, .success(outcome))
    }

    static func failed(_ id: GATTClient.OperationID, _ error: GATTError) -> Self { .complete(id, .failure(error)) }

    /// The error of a failed completion, for assertions on its message.
    var failure: GATTError? {
        if case .complete(_, .failure(let error)) = self { return error }
        return nil
    }
}

extension GATTClientTesting {
    /// The att helper's ``GATTServer`` on the other end of an in-memory link: requests from the connection go into
    /// `server.receive`, whatever it answers comes back through `connection.receive`, synchronously. It also checks
    /// the ATT rule the client must keep: never a second request before the first one's response.
    final class LoopbackPeer: ATTBearer, LinkControl {
        private struct State {
            var server: GATTServer
            var connection: GATTClientConnection?
            var inFlight = 0
            var violations: [String] = []
            var requests = 0
        }

        private let state: Mutex<State>
        static let id: GATTServer.ConnectionID = 1

        init(_ server: GATTServer) {
            var server = server
            server.connect(Self.id)
            state = Mutex(State(server: server))
        }

        func attach(_ connection: GATTClientConnection) { state.withLock { $0.connection = connection } }

        var server: GATTServer { state.withLock { $0.server } }
        /// Requests that went out while another was still unanswered.
        var violations: [String] { state.withLock { $0.violations } }
        var requests: Int { state.withLock { $0.requests } }

        func send(_ pdu: [UInt8]) async throws(GATTError) { deliver(pdu) }

        func sendImmediately(_ pdu: [UInt8]) { deliver(pdu) }

        func disconnect() async {
            state.withLock { $0.connection }?.linkDown(.localHostTerminated)
        }

        /// Pushes a notification or indication from the server (only to a subscribed client).
        func notify(_ handle: UInt16, _ value: [UInt8]) {
            forward(state.withLock { $0.server.notify(handle, value: value) })
        }

        func indicate(_ handle: UInt16, _ value: [UInt8]) {
            forward(state.withLock { $0.server.indicate(handle, value: value) })
        }

        private func deliver(_ pdu: [UInt8]) {
            let actions = state.withLock { state in
                let opcode = ATT.Opcode(rawValue: pdu.first ?? 0)
                if !opcode.isCommand, opcode != .handleValueConfirmation {
                    state.requests += 1
                    state.inFlight += 1
                    if state.inFlight > 1 { state.violations.append("\(opcode) sent with a request outstanding") }
                }
                return state.server.receive(pdu, from: Self.id)
            }
            forward(actions)
        }

        private func forward(_ actions: [GATTServer.Action]) {
            for case .send(let pdu, _) in actions {
                let connection = state.withLock { state in
                    let opcode = ATT.Opcode(rawValue: pdu.first ?? 0)
                    let pushed: Set<ATT.Opcode> = [
                        .handleValueNotification, .handleValueIndication, .multipleHandleValueNotification,
                    ]
                    if !pushed.contains(opcode) { state.inFlight -= 1 }
                    return state.connection
                }
                connection?.receive(pdu)
            }
        }
    }

    /// A small device: GAP, Battery with a notifying level, a 128-bit service with a notify/indicate stream and a
    /// 300-byte value, and a secondary service that primary discovery must not report.
    enum Device {
        static let service = BluetoothUUID("e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
        static let stream = BluetoothUUID("e5b10101-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
        static let long = BluetoothUUID("e5b10102-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
        static let longValue: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }

        static func server() throws -> GATTServer {
            try GATTServer(services: [
                .init(
                    BluetoothUUID(0x1800),
                    characteristics: [
                        .init(BluetoothUUID(0x2A00), properties: .read, value: .stored("blerig")),
                        .init(
                            BluetoothUUID(0x2A01), properties: .read, value: .stored([0x00, 0x00]), length: .fixed(2)),
                    ]),
                .init(
                    BluetoothUUID(0x180F),
                    characteristics: [
                        .init(
                            BluetoothUUID(0x2A19), properties: [.read, .notify], value: .stored([100]),
                            length: .fixed(1),
                            descriptors: [.userDescription("Battery level")])
                    ]),
                .init(
                    service,
                    characteristics: [
                        .init(stream, properties: [.read, .notify, .indicate], value: .stored([])),
                        .init(long, properties: [.read, .write, .writeWithoutResponse], value: .stored(longValue)),
                    ]),
                .init(
                    BluetoothUUID(0xFEED), isPrimary: false,
                    characteristics: [.init(BluetoothUUID(0x2A01), properties: .read, value: .stored([1, 2]))]),
            ])
        }
    }
}

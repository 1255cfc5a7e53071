import BLECore
import CentralStack
import Synchronization

/// Doubles for the probe tests.
enum ProbeTesting {
    /// A BLECore ``GATTServer`` on the other end of an in-memory link: what the client sends goes into
    /// `server.receive` (through `application`), what the server answers comes straight back. It keeps every PDU
    /// the server received, so a test can prove which requests were never sent.
    final class LoopbackServer<Application: GATTServerApplication & Sendable>: ATTBearer, LinkControl, Sendable {
        private struct State {
            var server: GATTServer
            var application: Application
            var connection: GATTClientConnection?
            var received: [[UInt8]] = []
        }

        private let state: Mutex<State>
        static var id: GATTServer.ConnectionID { 1 }

        init(_ server: GATTServer, application: Application) {
            var server = server
            server.connect(Self.id)
            state = Mutex(State(server: server, application: application))
        }

        /// A client connection over this loopback, on a clock nothing advances (every answer is immediate).
        func connect() -> GATTClientConnection {
            let connection = GATTClientConnection(
                peer: DeviceAddress(0xC0FF_EE00_0001, kind: .random), bearer: self, link: self, clock: WallClock())
            state.withLock { $0.connection = connection }
            return connection
        }

        /// Every PDU the server received, in order.
        var received: [[UInt8]] { state.withLock { $0.received } }

        /// How many requests with `opcode` named `handle` (the two bytes after the opcode) the server received.
        func requests(_ opcode: ATT.Opcode, handle: UInt16) -> Int {
            received.filter { pdu in
                pdu.count >= 3 && pdu[0] == opcode.rawValue && UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == handle
            }.count
        }

        func send(_ pdu: [UInt8]) async throws(GATTError) { deliver(pdu) }
        func sendImmediately(_ pdu: [UInt8]) { deliver(pdu) }

        func disconnect() async {
            state.withLock { $0.connection }?.linkDown(.localHostTerminated)
        }

        private func deliver(_ pdu: [UInt8]) {
            let (actions, connection) = state.withLock { state in
                state.received.append(pdu)
                return (state.server.receive(pdu, from: Self.id, application: &state.application), state.connection)
            }
            for case .send(let reply, _) in actions { connection?.receive(reply) }
        }
    }
}

extension GATTTable {
    /// The characteristic with this UUID, wherever it is.
    func characteristic(_ uuid: BluetoothUUID) -> Characteristic? {
        services.lazy.flatMap(\.characteristics).first { $0.uuid == uuid }
    }
}

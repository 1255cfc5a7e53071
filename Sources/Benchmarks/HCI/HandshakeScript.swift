import BLECore
import BenchCore
import Radios
import Synchronization

/// One handshake as blerig's central sent it, packet for packet: from LE (Extended) Create Connection to Disconnect,
/// each packet with what the central waited for before its next one. ``SocketFloor`` replays it on a bare socket.
struct HandshakeScript: Sendable, Equatable {
    /// What comes back before the next packet goes.
    enum Awaits: Sendable, Equatable {
        /// Command Complete or Command Status for this opcode.
        case commandDone(opcode: UInt16)
        /// LE Connection Complete or LE Enhanced Connection Complete, with success: it gives the link's handle.
        case linkUp
        /// Disconnection Complete.
        case linkDown
        /// A whole ATT PDU on the link (all its ACL fragments) starting with this opcode.
        case attPDU(opcode: UInt8)
    }

    struct Step: Sendable, Equatable {
        /// The H4 packet as it left the host: its type byte, header and parameters.
        var packet: [UInt8]
        var awaits: Awaits
    }

    var steps: [Step]

    static let leCreateConnection: UInt16 = 0x200D
    static let leExtendedCreateConnection: UInt16 = 0x2043
    static let disconnect: UInt16 = 0x0406
    static let attChannel: UInt16 = 0x0004

    /// The script of the traffic of one handshake, in the order it crossed the transport. Throws when it does not
    /// hold one whole handshake: a connection asked for, every ATT request answered, a Disconnect.
    static func recorded(_ traffic: [(HCI.Direction, HCI.H4Packet)]) throws(BenchmarkError) -> HandshakeScript {
        var steps: [Step] = []
        for (index, (direction, packet)) in traffic.enumerated() where direction == .hostToController {
            switch packet.type {
            case .command:
                guard packet.body.count >= 3, let opcode = packet.commandOpcode else {
                    throw BenchmarkError("the recorded handshake has a short command")
                }
                let awaits: Awaits =
                    switch opcode {
                    case leCreateConnection, leExtendedCreateConnection: .linkUp
                    case disconnect: .linkDown
                    default: .commandDone(opcode: opcode)
                    }
                steps.append(Step(packet: packet.encoded, awaits: awaits))
            case .aclData:
                let answers = traffic[(index + 1)...].lazy.filter { $0.0 == .controllerToHost }.map(\.1)
                guard let opcode = answers.lazy.compactMap(attOpcode).first else {
                    throw BenchmarkError("the recorded handshake has an ATT request that was never answered")
                }
                steps.append(Step(packet: packet.encoded, awaits: .attPDU(opcode: opcode)))
            default:
                continue
            }
        }
        guard steps.first?.awaits == .linkUp else {
            throw BenchmarkError("the recorded handshake does not begin with a connection request")
        }
        guard steps.last?.awaits == .linkDown else {
            throw BenchmarkError("the recorded handshake does not end with a Disconnect")
        }
        return HandshakeScript(steps: steps)
    }

    /// The ATT opcode an ACL packet starts, or nil when it continues a PDU or is not ATT.
    private static func attOpcode(_ packet: HCI.H4Packet) -> UInt8? {
        let body = packet.body
        guard packet.type == .aclData, body.count >= 9, (body[1] >> 4) & 0x3 != 0x1,
            UInt16(body[6]) | UInt16(body[7]) << 8 == attChannel
        else { return nil }
        return body[8]
    }
}

/// Collects what crossed a stack's transport while it is installed (``HCIStack/capture(into:as:)``), or what a
/// transport handed it (``HostReplay``'s recording).
final class TrafficRecorder: CaptureSink {
    private let traffic = Mutex<[(HCI.Direction, HCI.H4Packet)]>([])

    func record(radio: String, peer: DeviceAddress?, packet: HCI.H4Packet, direction: HCI.Direction, at: RigInstant) {
        append(direction, packet)
    }

    func append(_ direction: HCI.Direction, _ packet: HCI.H4Packet) {
        traffic.withLock { $0.append((direction, packet)) }
    }

    var recorded: [(HCI.Direction, HCI.H4Packet)] { traffic.withLock { $0 } }
}

/// Steps through a ``HandshakeScript`` as the packets from the controller come: which packet goes next, and when
/// the handshake is over. The link's handle is the controller's, so every packet that names the link is given it
/// once the link is up. Works on the bytes in place: replaying it allocates nothing.
struct HandshakeReplay {
    private(set) var packets: [[UInt8]]
    private let awaits: [HandshakeScript.Awaits]
    /// The step whose packet went last, and whose answer is awaited.
    private(set) var step = 0
    /// ATT PDU bytes still to come in continuation fragments.
    private var remaining = 0

    init(_ script: HandshakeScript) {
        packets = script.steps.map(\.packet)
        awaits = script.steps.map(\.awaits)
    }

    /// The step's command was answered with Command Status (its event is still to come).
    private var statusIn = false

    /// Whether a short packet may wait for the one behind it, as blerig's host allows it
    /// (``HCIHost/completionsCanWait``): while an ATT response is awaited, or the status of the command that connects
    /// or disconnects.
    var shortPacketsCanWait: Bool {
        switch awaits[step] {
        case .attPDU: true
        case .linkUp, .linkDown: !statusIn
        case .commandDone: false
        }
    }

    /// The bytes a read may wait for, as blerig's transport waits for them (``HCIHost/bytesBeforeAnswer``): the rest
    /// of a fragmented ATT response, with one indicator and ACL header; else more than a short packet while one may
    /// wait; else none (0).
    var bytesToWaitFor: Int32 {
        guard shortPacketsCanWait else { return 0 }
        guard remaining > 0 else { return TCPTransport.coalescingThreshold }
        return max(TCPTransport.coalescingThreshold, Int32(clamping: 1 + 4 + remaining))
    }

    enum Progress: Equatable {
        /// Nothing to send yet.
        case waiting
        /// Send ``packets``[``step``] next.
        case send
        /// The handshake is over; the next begins with step 0.
        case done
    }

    /// The answer to one H4 packet from the controller (its type byte first).
    mutating func received(_ bytes: UnsafeRawBufferPointer) throws(BenchmarkError) -> Progress {
        guard bytes.count >= 3 else { return .waiting }
        let awaited = awaits[step]
        if bytes[0] == HCI.PacketType.event.rawValue {
            let code = bytes[1]
            if code == 0x05, awaited != .linkDown {
                throw BenchmarkError("the link went down at step \(step + 1) of the replayed handshake")
            }
            if code == 0x0F, bytes.count >= 7, opcode(bytes, at: 5) == opcode(packets[step]) { statusIn = true }
            switch awaited {
            case let .commandDone(opcode):
                if done(opcode, bytes) { return advance() }
            case .linkUp:
                if code == 0x0F, bytes.count >= 7, opcode(bytes, at: 5) == opcode(packets[step]), bytes[3] != 0 {
                    throw BenchmarkError(String(format: "the controller refused the connection request: 0x%02X", bytes[3]))
                }
                if code == 0x3E, bytes.count >= 7, bytes[3] == 0x01 || bytes[3] == 0x0A {
                    guard bytes[4] == 0 else {
                        throw BenchmarkError(String(format: "the replayed connection failed: 0x%02X", bytes[4]))
                    }
                    name(UInt16(bytes[5]) | UInt16(bytes[6] & 0x0F) << 8)
                    return advance()
                }
            case .linkDown:
                if code == 0x05 { return advance() }
            case .attPDU:
                break
            }
            return .waiting
        }
        guard bytes[0] == HCI.PacketType.aclData.rawValue, case let .attPDU(expected) = awaited, bytes.count >= 5
        else { return .waiting }
        let length = Int(bytes[3]) | Int(bytes[4]) << 8
        if (bytes[2] >> 4) & 0x3 == 0x1 {
            guard remaining > 0 else { return .waiting }
            remaining -= length
        } else {
            guard bytes.count >= 10, UInt16(bytes[7]) | UInt16(bytes[8]) << 8 == HandshakeScript.attChannel else {
                return .waiting
            }
            guard bytes[9] == expected else {
                throw BenchmarkError(
                    String(
                        format: "step %d of the replayed handshake was answered with ATT opcode 0x%02X, not 0x%02X",
                        step + 1, bytes[9], expected))
            }
            remaining = (Int(bytes[5]) | Int(bytes[6]) << 8) + 4 - length
        }
        return remaining <= 0 ? advance() : .waiting
    }

    private mutating func advance() -> Progress {
        remaining = 0
        statusIn = false
        step += 1
        if step == packets.count {
            step = 0
            return .done
        }
        return .send
    }

    private func done(_ opcode: UInt16, _ bytes: UnsafeRawBufferPointer) -> Bool {
        switch bytes[1] {
        case 0x0E: bytes.count >= 6 && self.opcode(bytes, at: 4) == opcode
        case 0x0F: bytes.count >= 7 && self.opcode(bytes, at: 5) == opcode
        default: false
        }
    }

    private func opcode(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private func opcode(_ packet: [UInt8]) -> UInt16 { UInt16(packet[1]) | UInt16(packet[2]) << 8 }

    /// Gives every packet that names the link the controller's handle for it.
    private mutating func name(_ handle: UInt16) {
        for index in packets.indices {
            if packets[index][0] == HCI.PacketType.aclData.rawValue {
                packets[index][1] = UInt8(truncatingIfNeeded: handle)
                packets[index][2] = packets[index][2] & 0xF0 | UInt8(handle >> 8)
            } else if packets[index][0] == HCI.PacketType.command.rawValue,
                opcode(packets[index]) == HandshakeScript.disconnect, packets[index].count >= 6
            {
                packets[index][4] = UInt8(truncatingIfNeeded: handle)
                packets[index][5] = UInt8(handle >> 8)
            }
        }
    }
}

extension HCI.H4Packet {
    /// The opcode of a command packet; nil for other packets and for a command too short to hold one.
    var commandOpcode: UInt16? {
        guard type == .command, body.count >= 2 else { return nil }
        return UInt16(body[0]) | UInt16(body[1]) << 8
    }
}

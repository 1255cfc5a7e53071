import BLECore
import BenchCore
import Foundation
import Radios
import Synchronization

/// A controller played back from a recording, in this process: each packet the host sends is answered with what the
/// real controller sent after the same packet in the recording, delivered on a thread of its own as a transport's
/// reader thread delivers. The recording is an opening (initialisation and anything before the repeated part), then
/// one cycle that repeats for as long as the host keeps going: one handshake.
///
/// The host must send what it sent in the recording: a packet of another type, command or ATT opcode than the
/// recorded one at its place fails the send (and so the host) with both named, so a replay can never time a host
/// that took another path.
final class ReplayController: HCITransport, @unchecked Sendable {
    // @unchecked Sendable: `queue`, `handlers`, `sent`, `open` and `divergence` are read and written only under
    // `condition`; `deliverer` is set by the delivery thread before anything can be queued for it.

    /// One host packet of the recording and what the controller sent after it, until the host's next.
    struct Exchange: Sendable {
        var sent: HCI.H4Packet
        var answers: [HCI.H4Packet]
    }

    let description = "replayed controller"
    private let opening: [Exchange]
    private let cycle: [Exchange]
    private let condition = NSCondition()
    private var queue: [HCI.H4Packet] = []
    private var next = 0
    private var handlers: (packet: @Sendable (HCI.H4Packet) -> Void, closed: @Sendable (HCITransportError?) -> Void)?
    private var open = true
    private var divergence: String?
    private let deliverer = Atomic<UInt>(0)

    /// Host packets sent so far.
    var sent: Int { condition.withLock { next } }

    /// Why the host left the recording, if it did.
    var diverged: String? { condition.withLock { divergence } }

    /// `traffic` as a transport saw it from its start; the cycle is the traffic from the `cycleStart`-th host packet
    /// on. Throws when the recording holds no host packet at or after it.
    init(_ traffic: [(HCI.Direction, HCI.H4Packet)], cycleStart: Int) throws(BenchmarkError) {
        var exchanges: [Exchange] = []
        var leading = 0
        for (direction, packet) in traffic {
            switch direction {
            case .hostToController: exchanges.append(Exchange(sent: packet, answers: []))
            case .controllerToHost where exchanges.isEmpty: leading += 1
            case .controllerToHost: exchanges[exchanges.count - 1].answers.append(packet)
            }
        }
        guard leading == 0 else {
            throw BenchmarkError(
                "the recording begins with \(leading) packet(s) from the controller, not with the host's")
        }
        guard cycleStart >= 0, cycleStart < exchanges.count else {
            throw BenchmarkError(
                "the recording has \(exchanges.count) host packets: there is none to repeat from \(cycleStart + 1)")
        }
        opening = Array(exchanges[..<cycleStart])
        cycle = Array(exchanges[cycleStart...])
    }

    func start(
        packet: @escaping @Sendable (HCI.H4Packet) -> Void, closed: @escaping @Sendable (HCITransportError?) -> Void
    ) {
        condition.withLock { handlers = (packet, closed) }
        let thread = Thread { [self] in deliver() }
        thread.name = "blerig-replayed-controller"
        thread.start()
    }

    func send(_ packet: HCI.H4Packet) throws(HCITransportError) {
        condition.lock()
        defer { condition.unlock() }
        guard open else { throw HCITransportError(.disconnected, "the replayed controller is closed") }
        let index = next
        let exchange = index < opening.count ? opening[index] : cycle[(index - opening.count) % cycle.count]
        if let difference = Self.difference(packet, exchange.sent) {
            let why = "host packet \(index + 1) left the recording: \(difference)"
            divergence = why
            open = false
            condition.signal()
            throw HCITransportError(.io, why)
        }
        next += 1
        queue.append(contentsOf: exchange.answers)
        // The delivery thread sends most packets itself, while it delivers: it takes them up when it returns.
        if deliverer.load(ordering: .relaxed) != pthread_self() {
            condition.signal()
        }
    }

    func close() {
        condition.withLock {
            open = false
            condition.signal()
        }
    }

    private func deliver() {
        deliverer.store(pthread_self(), ordering: .relaxed)
        var index = 0
        while true {
            condition.lock()
            while open, index == queue.count { condition.wait() }
            guard open, let handlers else {
                let closed = handlers?.closed
                handlers = nil
                condition.unlock()
                closed?(divergence.map { HCITransportError(.io, $0) })
                return
            }
            let packet = queue[index]
            index += 1
            if index == queue.count {
                queue.removeAll(keepingCapacity: true)
                index = 0
            }
            condition.unlock()
            handlers.packet(packet)
        }
    }

    /// How `sent` differs from `recorded` in what the replay depends on: the packet type, a command's opcode, an
    /// ATT PDU's opcode; nil when it does not.
    static func difference(_ sent: HCI.H4Packet, _ recorded: HCI.H4Packet) -> String? {
        // Compared as numbers on every send; put in words only when they differ.
        let (mine, theirs) = (Kind(sent), Kind(recorded))
        return mine == theirs ? nil : "it sent \(mine) where the recording has \(theirs)"
    }

    /// What the replay tells a host packet by.
    private enum Kind: Equatable, CustomStringConvertible {
        case command(opcode: UInt16)
        case attStart(opcode: UInt8)
        case other(HCI.PacketType, length: Int)

        init(_ packet: HCI.H4Packet) {
            let body = packet.body
            if let opcode = packet.commandOpcode {
                self = .command(opcode: opcode)
            } else if packet.type == .aclData, body.count >= 9, (body[1] >> 4) & 0x3 != 0x1 {
                self = .attStart(opcode: body[8])
            } else {
                self = .other(packet.type, length: body.count)
            }
        }

        var description: String {
            switch self {
            case let .command(opcode): String(format: "command 0x%04X", opcode)
            case let .attStart(opcode): String(format: "ACL data starting ATT opcode 0x%02X", opcode)
            case let .other(type, length): "\(type) packet of \(length) bytes"
            }
        }
    }
}

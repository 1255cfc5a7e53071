import BLECore
import BenchCore
import Synchronization

/// One rig radio on the virtual farm: a ``VirtualCentral`` on the farm's air, holding at most ``maxLinks`` links.
/// What its central's host exchanges with the modelled controller is captured as the H4 packets a real host
/// would log: LE Connection Complete, the ATT PDUs in ACL data packets, Disconnection Complete.
public final class VirtualRadio: BenchRadio, @unchecked Sendable {
    // @unchecked Sendable: `central` is confined to the simulation thread (it asserts it); `sink` is behind a
    // mutex.
    public let id: String
    public let maxLinks: Int
    public let virtualCentral: VirtualCentral
    private let sink = Mutex<(any CaptureSink)?>(nil)

    init(id: String, maxLinks: Int, farm: Farm) {
        self.id = id
        self.maxLinks = maxLinks
        let box = SinkBox()
        virtualCentral = farm.central(maxLinks: maxLinks, traffic: { traffic in box.radio?.record(traffic) })
        box.radio = self
    }

    public var kind: String { "virtual" }
    public var central: any Central { virtualCentral }

    public func capture(into sink: any CaptureSink) {
        self.sink.withLock { $0 = sink }
    }

    /// The radio schedule's counts: how its links shared the airtime.
    public var counters: [RadioCounter] {
        let statistics = virtualCentral.statistics
        return [
            RadioCounter(
                metric: "radio.events", value: Double(statistics.eventsRun),
                definition: "connection events run (events with data queued; idle links' empty events are not modelled)"
            ),
            RadioCounter(
                metric: "radio.events_skipped", value: Double(statistics.eventsSkipped),
                definition: "connection events skipped because another link's event held the radio"),
            RadioCounter(
                metric: "radio.events_cut_short", value: Double(statistics.eventsCutShort),
                definition: "connection events ended early to leave the radio to another link's anchor"),
        ]
    }

    private func record(_ traffic: CentralTraffic) {
        guard let sink = sink.withLock({ $0 }) else { return }
        for (peer, packet, direction, at) in Self.packets(traffic) {
            sink.record(radio: id, peer: peer, packet: packet, direction: direction, at: at)
        }
    }

    /// The H4 packets a host would exchange with its controller for one piece of central traffic.
    static func packets(
        _ traffic: CentralTraffic
    ) -> [(peer: DeviceAddress, packet: HCI.H4Packet, direction: HCI.Direction, at: RigInstant)] {
        switch traffic {
        case let .linkUp(peer, handle, parameters, at):
            let event = HCI.LEConnectionComplete(
                handle: handle, peerAddress: peer,
                connectionInterval: UInt16((parameters.connectionInterval.milliseconds / 1.25).rounded()),
                peripheralLatency: UInt16(parameters.peripheralLatency),
                supervisionTimeout: UInt16(parameters.supervisionTimeout.milliseconds / 10))
            return [(peer, HCI.H4Packet(event.event), .controllerToHost, at)]
        case let .att(peer, handle, pdu, outbound, at):
            let direction: HCI.Direction = outbound ? .hostToController : .controllerToHost
            let frame = L2CAP.BasicFrame.att(pdu)
            return HCI.ACLDataPacket.packets(
                carrying: frame, handle: handle, direction: direction,
                maximumDataLength: L2CAP.headerLength + pdu.count
            ).map { (peer, HCI.H4Packet($0), direction, at) }
        case let .linkDown(peer, handle, reason, at):
            let event = HCI.DisconnectionComplete(handle: handle, reason: reason)
            return [(peer, HCI.H4Packet(event.event), .controllerToHost, at)]
        }
    }
}

/// Lets the central's traffic closure reach the radio that owns the central once the radio exists.
private final class SinkBox: @unchecked Sendable {
    // @unchecked Sendable: written once during init, before any traffic can flow; read on the simulation thread.
    weak var radio: VirtualRadio?
}

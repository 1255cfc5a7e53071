import BLECore
import BenchCore

/// A bench radio on the kernel's own Bluetooth stack: a ``BlueZCentral`` on adapter hciN, beside bluetoothd.
public final class BlueZRadio: BenchRadio {
    public let id: String
    public let bluez: BlueZCentral
    public let maxLinks: Int

    public var central: any Central { bluez }
    public var kind: String { "bluez hci\(bluez.adapter)" }

    public init(id: String, central: BlueZCentral, maxLinks: Int) {
        self.id = id
        bluez = central
        self.maxLinks = maxLinks
    }

    /// The kernel's stack exchanges the HCI packets itself, out of blerig's sight: nothing is captured here (the
    /// kernel's monitor channel, `btmon -w FILE`, records them).
    public func capture(into sink: any CaptureSink) {}

    public var counters: [RadioCounter] {
        let counters = bluez.state.withLock { $0.counters }
        return [
            RadioCounter(
                metric: "bluez.att_pdus_in", value: Double(counters.pdusIn),
                definition: "ATT PDUs read from the kernel's L2CAP sockets"),
            RadioCounter(
                metric: "bluez.att_pdus_out", value: Double(counters.pdusOut),
                definition: "ATT PDUs written to the kernel's L2CAP sockets"),
            RadioCounter(
                metric: "bluez.att_bytes_in", value: Double(counters.bytesIn), definition: "ATT bytes read"),
            RadioCounter(
                metric: "bluez.att_bytes_out", value: Double(counters.bytesOut), definition: "ATT bytes written"),
            RadioCounter(
                metric: "bluez.devices_found", value: Double(counters.devicesFound),
                definition: "mgmt Device Found events for the adapter"),
            RadioCounter(
                metric: "bluez.discovery_restarts", value: Double(counters.discoveryRestarts),
                definition: "LE discoveries started again after the kernel ended one (about every 10 s)"),
        ]
    }
}

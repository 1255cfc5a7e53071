import BenchCore
import BLECore
import Glibc

/// H4 packets through the BlueZ HCI user channel (Linux 3.13+, `hci-user:0`): exclusive access to adapter hciN,
/// with neither bluetoothd nor the kernel's own host in between. Each read and each write is one whole packet,
/// indicator first.
///
/// Opening takes the adapter down (HCIDEVDOWN), as the kernel requires, then binds the user channel; both need
/// CAP_NET_ADMIN. Every failure says what to do: load Bluetooth, pick an adapter that exists, stop bluetoothd,
/// grant the capability.
public final class HCIUserChannelTransport: DescriptorBackedTransport {
    public let adapter: UInt16
    let core: DescriptorTransport

    public init(adapter: UInt16, sockets: any BluetoothSockets = SystemBluetoothSockets()) throws(HCITransportError) {
        self.adapter = adapter
        let socket: Int32
        do {
            socket = try sockets.openHCISocket()
        } catch {
            throw BluetoothFailure.socket(error, executable: BluetoothFailure.currentExecutable())
        }
        var call = BluetoothFailure.Call.bringDown
        do {
            try sockets.bringDown(socket, adapter: adapter)
            call = .bind
            try sockets.bindUserChannel(socket, adapter: adapter)
        } catch {
            sockets.close(socket)
            let existing = error.code == ENODEV ? try? BluetoothAdapters.list(sockets: sockets).map(\.index) : nil
            throw BluetoothFailure.userChannel(
                error, call: call, adapter: adapter, existing: existing,
                executable: BluetoothFailure.currentExecutable())
        }
        let name = "hci\(adapter)"
        let gone = HCITransportError(
            .disconnected, "\(name) went away (unplugged, or its driver was unloaded)",
            fix: "plug the controller back in; `blerig adapters` shows what the kernel sees")
        let vanished: Set<Int32> = [ENODEV, EPIPE, ENETDOWN, EIO]
        core = try DescriptorTransport(
            descriptor: socket, description: HCITransportSpec.hciUser(adapter: adapter).description,
            behaviour: .init(
                framing: .datagram, isSocket: true,
                readFailed: { error in
                    guard let error, !vanished.contains(error.code) else { return gone }
                    return HCITransportError(.io, "reading from \(name) failed: \(error)")
                },
                writeFailed: { error in
                    vanished.contains(error.code)
                        ? gone : HCITransportError(.io, "writing to \(name) failed: \(error)")
                },
                framingLost: { error in
                    HCITransportError(.framing, "\(name) delivered a packet that is not H4: \(error)")
                },
                writeStalled: HCITransportError(
                    .io, "\(name) took no packet for \(DescriptorTransport.writeTimeout)"),
                closeDescriptor: sockets.close))
    }


}

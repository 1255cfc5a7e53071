import BenchCore
import BLECore
import Glibc
import Testing

@testable import Radios

/// Whether this machine's kernel lacks Bluetooth, as the build machine's does (socket(AF_BLUETOOTH) fails with
/// EAFNOSUPPORT); the tests of the real system calls expect exactly that.
let kernelLacksBluetooth: Bool = {
    let socket = Glibc.socket(AF_BLUETOOTH, SocketType.raw | SocketType.closeOnExec, 1)
    if socket >= 0 { Glibc.close(socket) }
    return socket < 0 && errno == EAFNOSUPPORT
}()

struct UserChannelFailure: Sendable, CustomTestStringConvertible {
    var call: FakeBluetoothSockets.Call
    var errno: Int32
    var code: HCITransportError.Code
    var message: String
    var fix: String?
    var log: [String]
    var testDescription: String { "\(call) fails with \(Errno(errno).name)" }
}

private let opened = ["socket", "HCIDEVDOWN hci0", "close"]
private let bound = ["socket", "HCIDEVDOWN hci0", "bind hci0", "close"]
private let setcap = "`sudo setcap cap_net_admin+ep \(BluetoothFailure.currentExecutable())`, or run as root"
private let stopBlueZ =
    "`sudo systemctl stop bluetooth`, or `sudo btmgmt --index 0 power off`; or leave bluetoothd running and use the "
    + "kernel's stack: `--radio bluez:hci0`, `radio: {kind: bluez, adapter: hci0}`"

private let userChannelFailures = [
    UserChannelFailure(
        call: .socket, errno: EAFNOSUPPORT, code: .unavailable,
        message: "this machine's kernel has no Bluetooth: socket(AF_BLUETOOTH) failed: "
            + "Address family not supported by protocol (EAFNOSUPPORT, errno 97)",
        fix: "load it with `sudo modprobe bluetooth`, or boot a kernel built with CONFIG_BT; "
            + "in a container, the host's kernel must provide it",
        log: ["socket"]),
    UserChannelFailure(
        call: .socket, errno: EPERM, code: .permission,
        message: "opening a Bluetooth HCI socket was refused: Operation not permitted (EPERM, errno 1)", fix: setcap,
        log: ["socket"]),
    UserChannelFailure(
        call: .socket, errno: EMFILE, code: .io,
        message: "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed: Too many open files (errno 24)", log: ["socket"]),
    UserChannelFailure(
        call: .bringDown, errno: EPERM, code: .permission,
        message: "taking hci0 for the HCI user channel needs CAP_NET_ADMIN: HCIDEVDOWN failed: "
            + "Operation not permitted (EPERM, errno 1)",
        fix: setcap, log: opened),
    UserChannelFailure(
        call: .bringDown, errno: EBUSY, code: .busy,
        message: "hci0 is in use: it is still up, or bluetoothd powered it back on "
            + "(HCIDEVDOWN: Device or resource busy (EBUSY, errno 16))",
        fix: stopBlueZ, log: opened),
    UserChannelFailure(
        call: .bind, errno: EBUSY, code: .busy,
        message: "hci0 is in use: it is still up, or bluetoothd powered it back on "
            + "(bind(HCI_CHANNEL_USER): Device or resource busy (EBUSY, errno 16))",
        fix: stopBlueZ, log: bound),
    UserChannelFailure(
        call: .bind, errno: EUSERS, code: .busy,
        message: "another program already holds the user channel of hci0: Too many users (EUSERS, errno 87)",
        fix: "stop it (another blerig, or a Bumble or btproxy on that adapter)", log: bound),
    UserChannelFailure(
        call: .bind, errno: EACCES, code: .permission,
        message: "taking hci0 for the HCI user channel needs CAP_NET_ADMIN: bind(HCI_CHANNEL_USER) failed: "
            + "Permission denied (EACCES, errno 13)",
        fix: setcap, log: bound),
    UserChannelFailure(
        call: .bind, errno: EINVAL, code: .io,
        message: "bind(HCI_CHANNEL_USER) on hci0 failed: Invalid argument (EINVAL, errno 22)", log: bound),
]

extension TransportIO {
    @Suite struct HCIUserChannelTransportTests {
        @Test(
            "each failing system call is explained, with what to do, and the socket is closed",
            arguments: userChannelFailures)
        func failures(_ failure: UserChannelFailure) {
            expectNoLeakedDescriptors {
                let sockets = FakeBluetoothSockets(failing: [failure.call: Errno(failure.errno)], adapters: [.usb(0)])
                #expect(throws: HCITransportError(failure.code, failure.message, fix: failure.fix)) {
                    try HCIUserChannelTransport(adapter: 0, sockets: sockets)
                }
                #expect(sockets.log == failure.log)
                #expect(sockets.openSockets == 0)
            }
        }

        @Test("a missing adapter is named together with the adapters there are")
        func missingAdapter() {
            expectNoLeakedDescriptors {
                let sockets = FakeBluetoothSockets(adapters: [.usb(0), .usb(1)])
                #expect(
                    throws: HCITransportError(
                        .unavailable, "adapter hci3 does not exist; the adapters here are hci0, hci1",
                        fix: "use one of them, e.g. hci-user:0; `blerig adapters` describes them")
                ) { try HCIUserChannelTransport(adapter: 3, sockets: sockets) }
                #expect(
                    sockets.log == [
                        "socket", "HCIDEVDOWN hci3", "close", "socket", "HCIGETDEVLIST", "HCIGETDEVINFO hci1",
                        "HCIGETDEVINFO hci0", "close",
                    ])
                #expect(sockets.openSockets == 0)

                #expect(
                    throws: HCITransportError(
                        .unavailable, "adapter hci0 does not exist; this machine has no Bluetooth adapter",
                        fix: "plug in a Bluetooth controller, or look in `dmesg` for why its driver did not load")
                ) { try HCIUserChannelTransport(adapter: 0, sockets: FakeBluetoothSockets()) }
            }
        }

        @Test("an open user channel carries one packet per datagram both ways, and closes its socket")
        func packetExchange() throws {
            try expectNoLeakedDescriptors {
                let sockets = FakeBluetoothSockets(adapters: [.usb(0)])
                let transport = try HCIUserChannelTransport(adapter: 0, sockets: sockets)
                #expect(sockets.log == ["socket", "HCIDEVDOWN hci0", "bind hci0"])
                #expect(transport.description == "hci-user:0")
                let controller = try #require(sockets.controller())
                defer { Glibc.close(controller) }
                let recorder = TransportRecorder()
                recorder.start(transport)
                for packet in [Packets.resetComplete, Packets.acl([1, 2, 3]), Packets.disconnectionComplete] {
                    #expect(send(controller, packet.encoded, packet.encoded.count, 0) == packet.encoded.count)
                }
                #expect(
                    recorder.packets(count: 3) == [
                        Packets.resetComplete, Packets.acl([1, 2, 3]), Packets.disconnectionComplete,
                    ])
                try transport.send(Packets.reset)
                try transport.send(Packets.acl([9]))
                #expect(receive(controller) == Packets.reset.encoded)
                #expect(receive(controller) == Packets.acl([9]).encoded)
                transport.close()
                #expect(recorder.closings.count == 1 && recorder.closings.first! == nil)
                #expect(sockets.log.last == "close")
                #expect(sockets.openSockets == 0)
            }
        }

        @Test("a datagram that is not one whole H4 packet is a framing error")
        func framingLost() throws {
            try expectNoLeakedDescriptors {
                let sockets = FakeBluetoothSockets(adapters: [.usb(0)])
                let transport = try HCIUserChannelTransport(adapter: 0, sockets: sockets)
                let controller = try #require(sockets.controller())
                defer { Glibc.close(controller) }
                let recorder = TransportRecorder()
                recorder.start(transport)
                let truncated: [UInt8] = [0x04, 0x0E, 0x04, 0x01]
                #expect(send(controller, truncated, truncated.count, 0) == truncated.count)
                let error = try #require(recorder.closedError())
                #expect(error.code == .framing)
                #expect(error.message.hasPrefix("hci0 delivered a packet that is not H4: H4 packet: truncated"))
                #expect(sockets.openSockets == 0)
            }
        }

        @Test("the adapter going away ends the transport as disconnected")
        func adapterGone() throws {
            try expectNoLeakedDescriptors {
                let sockets = FakeBluetoothSockets(adapters: [.usb(0)])
                let transport = try HCIUserChannelTransport(adapter: 0, sockets: sockets)
                let controller = try #require(sockets.controller())
                let recorder = TransportRecorder()
                recorder.start(transport)
                Glibc.close(controller)
                let error = try #require(recorder.closedError())
                #expect(error.code == .disconnected)
                #expect(error.message == "hci0 went away (unplugged, or its driver was unloaded)")
                #expect(throws: error) { try transport.send(Packets.reset) }
                transport.close()
                #expect(sockets.openSockets == 0)
            }
        }

        @Test(
            "on this machine the real user channel explains that the kernel has no Bluetooth",
            .enabled(if: kernelLacksBluetooth))
        func realKernelWithoutBluetooth() {
            expectNoLeakedDescriptors {
                #expect(throws: HCITransportError.self) {
                    do throws(HCITransportError) {
                        _ = try HCIUserChannelTransport(adapter: 0)
                    } catch {
                        expectNoBluetooth(error)
                        throw error
                    }
                }
                #expect(throws: HCITransportError.self) {
                    do throws(HCITransportError) {
                        _ = try HCITransportSpec.parse("hci-user:hci0").open()
                    } catch {
                        expectNoBluetooth(error)
                        throw error
                    }
                }
            }
        }
    }
}

/// The explanation of errno 97 from socket(AF_BLUETOOTH).
func expectNoBluetooth(_ error: HCITransportError, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error.code == .unavailable, sourceLocation: sourceLocation)
    #expect(
        error.message == "this machine's kernel has no Bluetooth: socket(AF_BLUETOOTH) failed: "
            + "Address family not supported by protocol (EAFNOSUPPORT, errno 97)", sourceLocation: sourceLocation)
    #expect(error.fix?.contains("sudo modprobe bluetooth") == true, sourceLocation: sourceLocation)
}

/// One datagram from the controller's end.
private func receive(_ descriptor: Int32) -> [UInt8] {
    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&ready, 1, 5000) == 1 else { return [] }
    var buffer = [UInt8](repeating: 0, count: 1024)
    let count = recv(descriptor, &buffer, buffer.count, 0)
    return count > 0 ? Array(buffer[..<count]) : []
}

import BenchCore
import BLECore
import Foundation
import Glibc
import Testing

@testable import Radios

@Suite struct BluetoothAdapterTests {
    @Test("hci_dev_info decodes: name, BD_ADDR, up and running flags, bus, LE from LMP features byte 4 bit 6")
    func decodesDeviceInfo() throws {
        let usb = BluetoothAdapter(.usb(0))
        #expect(usb.index == 0 && usb.name == "hci0")
        #expect(usb.address.description == "00:1A:7D:DA:71:13")
        #expect(usb.isUp && usb.isRunning)
        #expect(usb.bus == .usb && usb.bus.description == "USB")
        #expect(usb.supportsLE == true)
        #expect(usb.summary == "hci0  00:1A:7D:DA:71:13  USB  up running  LE")

        // A BR/EDR-only UART controller, down, its transport open.
        let uart = BluetoothAdapter(
            HCIDeviceInfo(
                index: 1, name: "hci1", address: DeviceAddress(0xB8_27EB_0102_03), flags: 0b100, type: 0x03,
                features: [0xFF, 0xFE, 0x8F, 0xFE, 0x98, 0x3F, 0x5B, 0x87]))
        #expect(!uart.isUp && uart.isRunning && uart.bus == .uart && uart.supportsLE == false)
        #expect(uart.summary == "hci1  B8:27:EB:01:02:03  UART  down running  no LE")

        // Never initialised: no features read, so LE support is unknown. An AMP type bit leaves the bus alone.
        let fresh = BluetoothAdapter(
            HCIDeviceInfo(
                index: 2, name: "hci2", address: DeviceAddress(0), flags: 0, type: 0x1A,
                features: Array(repeating: 0, count: 8)))
        #expect(fresh.supportsLE == nil && fresh.bus == .virtio)
        #expect(fresh.summary == "hci2  00:00:00:00:00:00  VIRTIO  down  LE unknown")
        #expect(BluetoothAdapter.Bus(rawValue: 42).description == "bus 42")
    }

    @Test("an adapter encodes to JSON with its address and bus as text, and le null when unknown")
    func json() throws {
        var adapter = BluetoothAdapter(.usb(0))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let expected =
            #"{"address":"00:1A:7D:DA:71:13","bus":"USB","index":0,"le":true,"name":"hci0","#
            + #""running":true,"up":true}"#
        #expect(String(decoding: try encoder.encode(adapter), as: UTF8.self) == expected)
        adapter.supportsLE = nil
        #expect(String(decoding: try encoder.encode(adapter), as: UTF8.self).contains(#""le":null"#))
    }

    @Test("the listing lines say when there is no adapter")
    func lines() {
        #expect(BluetoothAdapters.lines([]) == ["no Bluetooth adapters"])
        #expect(
            BluetoothAdapters.lines([BluetoothAdapter(.usb(0))]) == ["hci0  00:1A:7D:DA:71:13  USB  up running  LE"])
    }
}

extension TransportIO {
    @Suite struct BluetoothAdaptersTests {
        @Test("the list is every adapter HCIGETDEVLIST names, by index, each from HCIGETDEVINFO; the socket is closed")
        func lists() throws {
            let sockets = FakeBluetoothSockets(adapters: [.usb(0), .usb(1, address: 0xC0_FFEE_0000_01)])
            let adapters = try BluetoothAdapters.list(sockets: sockets)
            #expect(adapters.map(\.name) == ["hci0", "hci1"])
            #expect(adapters[1].address.description == "C0:FF:EE:00:00:01")
            #expect(sockets.log == ["socket", "HCIGETDEVLIST", "HCIGETDEVINFO hci1", "HCIGETDEVINFO hci0", "close"])
            #expect(sockets.openSockets == 0)
        }

        @Test("an adapter removed between HCIGETDEVLIST and HCIGETDEVINFO is left out")
        func vanishedAdapter() throws {
            let sockets = FakeBluetoothSockets(failing: [.info: Errno(ENODEV)], adapters: [.usb(0)])
            #expect(try BluetoothAdapters.list(sockets: sockets) == [])
            #expect(sockets.openSockets == 0)
        }

        @Test("failures of the listing calls are explained and close the socket")
        func failures() throws {
            let noBluetooth = FakeBluetoothSockets(failing: [.socket: Errno(EAFNOSUPPORT)])
            #expect(throws: HCITransportError.self) { try BluetoothAdapters.list(sockets: noBluetooth) }
            #expect(noBluetooth.log == ["socket"])

            let list = FakeBluetoothSockets(failing: [.list: Errno(EINVAL)], adapters: [.usb(0)])
            #expect(
                throws: HCITransportError(
                    .io, "listing the Bluetooth adapters failed: HCIGETDEVLIST: Invalid argument (EINVAL, errno 22)")
            ) { try BluetoothAdapters.list(sockets: list) }
            #expect(list.openSockets == 0)

            let info = FakeBluetoothSockets(failing: [.info: Errno(EFAULT)], adapters: [.usb(0)])
            #expect(
                throws: HCITransportError(
                    .io, "listing the Bluetooth adapters failed: HCIGETDEVINFO hci0: Bad address (errno 14)")
            ) { try BluetoothAdapters.list(sockets: info) }
            #expect(info.openSockets == 0)
        }

        @Test(
            "on this machine the real listing explains that the kernel has no Bluetooth",
            .enabled(if: kernelLacksBluetooth))
        func realKernelWithoutBluetooth() {
            expectNoLeakedDescriptors {
                #expect(throws: HCITransportError.self) {
                    do throws(HCITransportError) {
                        _ = try BluetoothAdapters.list()
                    } catch {
                        expectNoBluetooth(error)
                        throw error
                    }
                }
            }
        }
    }
}

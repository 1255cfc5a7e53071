import BLECore
import Glibc
import Synchronization
import Testing

@testable import Radios

private let board = DeviceAddress(0xE4_0A_C4_12_1A_2B, kind: .random)

/// Among the descriptor tests (``TransportIO``, one at a time), as the other fake-kernel tests are.
extension TransportIO {
    /// An adapter that fails under a running central is the radio's failure: the bench hears it (and reports it to
    /// BenchHealth) before the links and scans end, so the check they break is never blamed on a board.
    @Suite("BlueZ's kernel path: an adapter that goes away under the run")
    struct BlueZAdapterFailureTests {
        /// Collects what `whenAdapterFails` hears, and whether the scan was still open when it heard it.
        final class Heard: Sendable {
            let causes = Mutex<[String]>([])
            func record(_ why: String) { causes.withLock { $0.append(why) } }
            var all: [String] { causes.withLock { $0 } }
        }

        @Test("Index Removed is reported once, at once, with the adapter; the scan ends and connecting says why")
        func indexRemoved() async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            let heard = Heard()
            central.whenAdapterFails { heard.record($0) }
            let stream = central.scan(ScanFilter())
            #expect(await eventually { kernel.commands.contains { $0.hasPrefix("Start Discovery") } })
            kernel.emit(.indexRemoved)
            kernel.emit(.indexRemoved)
            #expect(await eventually { !heard.all.isEmpty })
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            try await Task.sleep(for: .milliseconds(50))
            #expect(heard.all.count == 1)
            let cause = try #require(heard.all.first)
            #expect(cause.contains("hci0 was removed under the run (mgmt Index Removed)"), "\(cause)")
            #expect(central.adapterFailure == cause)
            await #expect(throws: CentralError.radioUnavailable(cause)) {
                _ = try await central.connect(to: board, timeout: .seconds(1))
            }
            // A handler added after the failure hears it at once.
            let late = Heard()
            central.whenAdapterFails { late.record($0) }
            #expect(late.all == [cause])
            await central.close()
        }

        @Test("another program switching the adapter off is reported as that; the kernel's own unlisting as removal")
        func switchedOffOrGoing() async throws {
            // Still listed by HCIGETDEVINFO: bluetoothctl power off, rfkill.
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel, listed: [.usb(0)])
            let heard = Heard()
            central.whenAdapterFails { heard.record($0) }
            kernel.emit(.newSettings(.init([.le])))
            #expect(await eventually { !heard.all.isEmpty })
            #expect(heard.all.first?.contains("hci0 was switched off under the run by another program") == true)
            #expect(!central.isPoweredOn)
            await central.close()

            // No longer listed: the kernel is unregistering it (it sends the power-off before Index Removed).
            let going = FakeBlueZKernel()
            let second = try await openCentral(going, listed: [])
            let removed = Heard()
            second.whenAdapterFails { removed.record($0) }
            going.emit(.newSettings(.init([.le])))
            going.emit(.indexRemoved)
            #expect(await eventually { !removed.all.isEmpty })
            try await Task.sleep(for: .milliseconds(50))
            #expect(removed.all.count == 1)
            #expect(removed.all.first?.contains("hci0 was removed under the run") == true, "\(removed.all)")
            await second.close()
        }

        @Test("blerig's own power-off, another adapter's removal and closing the central are not failures")
        func notFailures() async throws {
            let kernel = FakeBlueZKernel(otherIndexes: [1])
            let central = try await openCentral(kernel, listed: [.usb(0), .usb(1)])
            let heard = Heard()
            central.whenAdapterFails { heard.record($0) }
            try await central.setPowered(false)
            try await central.setPowered(true)
            kernel.emit(.indexRemoved, index: 1)
            kernel.emit(.newSettings(.init([.le])), index: 1)
            try await Task.sleep(for: .milliseconds(100))
            await central.close()
            try await Task.sleep(for: .milliseconds(50))
            #expect(heard.all.isEmpty, "\(heard.all)")
            #expect(kernel.openDescriptors == 0)
        }

        @Test("the kernel ending the mgmt socket under the central is reported")
        func mgmtSocketEnds() async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            let heard = Heard()
            central.whenAdapterFails { heard.record($0) }
            kernel.endControl()
            #expect(await eventually { !heard.all.isEmpty })
            #expect(heard.all.first?.contains("hci0's mgmt socket ended under the run") == true, "\(heard.all)")
            #expect(!central.isPoweredOn)
            await central.close()
        }
    }
}

import BLECore
import Foundation
import Radios
import Testing

extension Interop {
    /// blerig's HCI central switched off and on under a link to the Bumble peripheral on rootcanal.
    @Suite("radio power on blerig's HCI host")
    struct RadioPower {
        @Test("off closes the link with 0x15 at the peer, ends scans and refuses connects; on connects again")
        func offAndOn() async throws {
            try await withInteropScope { scope in
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-Power")
                let central = stage.central
                let states = central.powerStates()
                var observed = states.makeAsyncIterator()
                #expect(await observed.next() == true)

                let connection = try await stage.connect()
                try await central.setPowered(false)
                #expect(await observed.next() == false)
                #expect(await connection.disconnection() == .localHostTerminated)
                let gone = try await stage.peripheral.event { $0.event == "disconnected" }
                #expect(gone.reason == Int(HCIErrorCode.remotePowerOff.rawValue))
                #expect(stage.host.stack.links.isEmpty)

                var scan = central.scan(ScanFilter(addresses: [stage.address])).makeAsyncIterator()
                #expect(await scan.next() == nil, "a switched-off radio's scan ends at once")
                await #expect(throws: CentralError.radioUnavailable("the radio is switched off")) {
                    _ = try await central.connect(to: stage.address, timeout: .seconds(1))
                }

                try await central.setPowered(true)
                #expect(await observed.next() == true)
                let again = try await stage.connect()
                await again.disconnect()
            }
        }
    }
}

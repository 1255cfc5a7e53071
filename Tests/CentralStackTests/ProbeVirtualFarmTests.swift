import BLECore
import CentralStack
import DeviceProfiles
import Synchronization
import Testing

@testable import VirtualFarm

/// `blerig probe` and `blerig scan` without the printing, against the virtual farm's boards.
@Suite("Probe and scan on the virtual farm")
struct ProbeVirtualFarmTests {
    static let link = LinkParameters(connectionInterval: .milliseconds(15))

    /// The ATT requests a central sent, as (opcode, handle) pairs.
    final class RequestLog: Sendable {
        private let requests = Mutex<[(ATT.Opcode, UInt16)]>([])

        func record(_ traffic: CentralTraffic) {
            guard case let .att(_, _, pdu, true, _) = traffic, pdu.count >= 3 else { return }
            requests.withLock { $0.append((ATT.Opcode(rawValue: pdu[0]), UInt16(pdu[1]) | UInt16(pdu[2]) << 8)) }
        }

        /// Requests with `opcode`, whatever their handle.
        func count(_ opcode: ATT.Opcode) -> Int { requests.withLock { $0.filter { $0.0 == opcode }.count } }

        func count(_ opcode: ATT.Opcode, _ handle: UInt16) -> Int {
            requests.withLock { $0.filter { $0.0 == opcode && $0.1 == handle }.count }
        }
    }

    @Test("probing an esp-point by name walks its whole table and reads only what is readable")
    func probeEspPoint() async throws {
        let log = RequestLog()
        let (report, address, linksAfter) = try await Simulation.run(seed: 5, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "esp-01", profile: .espPoint)
            board.powerOn()
            let central = farm.central(traffic: { log.record($0) })
            let report = try await Probe.run(
                central: central, target: .name(EspPoint.advertisedName(for: board.address)), timeout: .seconds(5))
            return (report, board.address, central.linkCount)
        }
        #expect(report.address == address)
        #expect(report.mtu == 247)
        #expect(report.table.isComplete)
        #expect(report.disconnect == .localHostTerminated)
        #expect(linksAfter == 0)
        #expect(
            report.table.services.map(\.uuid) == [
                GATT.GenericAttribute.service, StandardUUID.deviceInformation, StandardUUID.battery,
                EspPoint.sensorService,
                EspPoint.commandService, EspPoint.otaService,
            ])
        #expect(
            report.table.characteristic(StandardUUID.manufacturerName)?.value == .value(Array("Espressif Systems".utf8))
        )
        let reading = try #require(report.table.characteristic(EspPoint.reading))
        guard case let .value(bytes) = reading.value else {
            Issue.record("Reading not read: \(String(describing: reading.value))")
            return
        }
        #expect(bytes.count == EspPoint.Reading.size)
        #expect(reading.descriptors.map(\.uuid) == [GATT.AttributeType.clientCharacteristicConfiguration])
        #expect(reading.descriptors.map(\.value) == [.value([0, 0])])
        let unreadable = [
            EspPoint.logControl, EspPoint.logData, EspPoint.command, EspPoint.otaControl, EspPoint.otaData,
        ]
        for uuid in unreadable {
            let characteristic = try #require(report.table.characteristic(uuid))
            #expect(characteristic.value == nil, "\(uuid)")
            #expect(log.count(.readRequest, characteristic.valueHandle) == 0, "\(uuid) was read")
            #expect(log.count(.readBlobRequest, characteristic.valueHandle) == 0, "\(uuid) was read")
        }
        #expect(log.count(.readRequest, reading.valueHandle) == 1)
    }

    @Test("a device nobody advertises is not found, after the timeout on the central's clock")
    func unknownDevice() async throws {
        let outcome = try await Simulation.run(seed: 5, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            farm.addBoard(id: "esp-01", profile: .espPoint).powerOn()
            do throws(ProbeError) {
                _ = try await Probe.run(central: farm.central(), target: .name("ESP-Point-ffff"), timeout: .seconds(3))
                return (nil as ProbeError?, sim.now)
            } catch {
                return (error, sim.now)
            }
        }
        #expect(outcome.0 == .notFound(.name("ESP-Point-ffff"), waited: .seconds(3), notConnectable: nil))
        #expect(outcome.1 == RigInstant(sinceOrigin: .seconds(3)))
    }

    @Test("a probe stopped mid-walk keeps what it found and still closes the link from its side")
    func stoppedMidWalk() async throws {
        let log = RequestLog()
        let (report, linksAfter) = try await Simulation.run(seed: 5, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "esp-01", profile: .espPoint)
            board.powerOn()
            let central = farm.central(traffic: { log.record($0) })
            let clock = sim.clock
            let report = try await Probe.run(
                central: central, target: .address(board.address.value, kind: nil), timeout: .seconds(5)
            ) {
                // Once the fifth value has been asked for (three of the Generic Attribute service, then the second
                // of Device Information). Called again for each phase of the probe, and
                // cancelled when a phase ends first: then it returns at once.
                do {
                    while log.count(.readRequest) < 5 { try await clock.sleep(for: .milliseconds(1)) }
                } catch {}
            }
            return (report, central.linkCount)
        }
        #expect(report.table.stopped?.error == nil)
        #expect(report.table.stopped != nil)
        // The Generic Attribute service has three readable values (Client Supported Features, Database Hash,
        // Service Changed's CCCD); Device Information four: the walk stopped in it with its second read in flight,
        // abandoned; the four answered before are kept.
        #expect(report.table.services.map(\.uuid) == [GATT.GenericAttribute.service, StandardUUID.deviceInformation])
        #expect(report.table.stopped?.during == "reading characteristic \(StandardUUID.modelNumber)")
        #expect(report.table.reads.count == 4)
        #expect(log.count(.readRequest) == 5)
        #expect(report.disconnect == .localHostTerminated)
        #expect(linksAfter == 0)
    }

    @Test("a scan lists each advertiser once, with its reports counted, for exactly its duration")
    func scanOnTheFarm() async throws {
        let (result, esp, nano) = try await Simulation.run(seed: 5, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let esp = farm.addBoard(id: "esp-01", profile: .espPoint)
            let nano = farm.addBoard(
                id: "nano-01", profile: .nano33BLESense, settings: VirtualBoardSettings(rssi: -70))
            esp.powerOn()
            nano.powerOn()
            let result = await AdvertiserScan.run(central: farm.central(), duration: .seconds(5))
            return (result, esp.address, nano.address)
        }
        #expect(result.duration == .seconds(5))
        #expect(!result.interrupted)
        #expect(result.devices.map(\.address) == [esp, nano])
        let first = result.devices[0]
        #expect(first.name == EspPoint.advertisedName(for: esp))
        #expect(first.serviceUUIDs == [EspPoint.sensorService])
        #expect(first.manufacturerData.map(\.company) == [EspPoint.companyIdentifier])
        #expect(first.connectable)
        // Advertising every 100 ms (plus the spec's random 0–10 ms delay) from the end of a 350 ms boot.
        #expect((40...47).contains(first.reports), "\(first.reports) reports")
        #expect(result.devices[1].maxRSSI == -70)
    }

    @Test("a scan stopped early keeps what it saw and says it was stopped")
    func scanStopped() async throws {
        let result = try await Simulation.run(seed: 5, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            farm.addBoard(id: "esp-01", profile: .espPoint).powerOn()
            let clock = sim.clock
            return await AdvertiserScan.run(central: farm.central(), duration: .seconds(60)) {
                try? await clock.sleep(for: .seconds(2))
            }
        }
        #expect(result.interrupted)
        #expect(result.duration == .seconds(2))
        #expect(result.devices.count == 1)
        #expect(result.devices[0].reports > 10)
    }
}

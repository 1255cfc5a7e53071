import BLECore
import CentralStack
import DeviceProfiles
import Synchronization
import Testing

@testable import VirtualFarm

/// The central stack against the virtual farm's boards, through the virtual central: the same path `blerig run`
/// takes.
@Suite("Central stack on the virtual farm")
struct VirtualFarmSessionTests {
    static let link = LinkParameters(connectionInterval: .milliseconds(15))

    @Test("scanning finds each profile by its advertised service and name")
    func scanFindsBoards() async throws {
        let found = try await Simulation.run(seed: 7, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let nano = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            let hrm = farm.addBoard(id: "hrm-1", profile: .hrm)
            nano.powerOn()
            hrm.powerOn()
            var results: [String: DeviceAddress] = [:]
            for await report in farm.central().scan(
                ScanFilter(services: [StandardUUID.heartRate, Nano33BLESense.ledService]))
            {
                results[report.data.localName ?? "?"] = report.address
                if results.count == 2 { break }
            }
            return (results, nano.address, hrm.address)
        }
        #expect(found.0["iOSArduinoBoard"] == found.1)
        #expect(found.0[HeartRateMonitor.advertisedName(for: found.2)] == found.2)
    }

    @Test("a board prints BOOT then READY on its console, and again with reset=SW after a reboot")
    func consoleLines() async throws {
        let lines = try await Simulation.run(seed: 3, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            board.type("reboot")
            try await sim.clock.sleep(for: .seconds(1))
            board.type("no-such-command")
            return board.console.map(\.line)
        }
        let boots = lines.compactMap { line -> ConsoleLine.ResetReason? in
            if case let .boot(firmware, bank, reset, _) = line, firmware == FirmwareVersion(1, 0, 0), bank == nil {
                return reset
            }
            return nil
        }
        #expect(boots == [.powerOn, .software])
        #expect(lines.filter { if case .ready(name: "iOSArduinoBoard", _) = $0 { true } else { false } }.count == 2)
        #expect(lines.last?.description.hasSuffix("W/CONSOLE: unknown command 'no-such-command'") == true)
    }

    @Test("nano33: LED writes reach the board, temperature is read and notified every second")
    func nano33Session() async throws {
        let result = try await Simulation.run(seed: 11, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(
                id: "nano-1", profile: .nano33BLESense, settings: VirtualBoardSettings(temperature: 24))
            board.powerOn()
            let firmware = board.firmware as! Nano33Firmware
            return try await Handshake.withSession(
                central: farm.central(), address: board.address, spec: .standard(.nano33BLESense),
                connectTimeout: .seconds(5)
            ) { session in
                let client = Nano33Client(session: session)
                try await client.setLED(on: true)
                let on = firmware.ledOn
                try await client.setLED(on: false)
                let off = firmware.ledOn
                let temperature = try await client.temperature()
                try await sim.clock.sleep(for: .seconds(10))
                let notified = try client.takeTemperatureNotifications()
                return (on, off, temperature, notified.map(\.value), notified.map(\.at))
            }
        }
        #expect(result.0 == true)
        #expect(result.1 == false)
        #expect((23...25).contains(result.2))
        #expect((9...10).contains(result.3.count))
        #expect(result.3.allSatisfy { (23...25).contains($0) })
        let gaps = zip(result.4, result.4.dropFirst()).map { $0.duration(to: $1) }
        #expect(gaps.allSatisfy { $0 > .milliseconds(950) && $0 < .milliseconds(1050) })
    }

    @Test("nano33: a value other than 0/1 on LED Status is refused with Value Not Allowed")
    func nano33RejectsBadLEDValue() async throws {
        let error = try await Simulation.run(seed: 1, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            board.powerOn()
            return try await Handshake.withSession(
                central: farm.central(), address: board.address, spec: .standard(.nano33BLESense),
                connectTimeout: .seconds(5)
            ) { session -> SessionError? in
                do throws(SessionError) { try await session.write([7], to: Nano33BLESense.ledStatus) } catch {
                    return error
                }
                return nil
            }
        }
        guard case let .gatt(.att(code, request, _), _)? = error else {
            Issue.record("expected an ATT error, got \(String(describing: error))")
            return
        }
        #expect(code == .valueNotAllowed)
        #expect(request == .writeRequest)
    }

    @Test("hrm: measurements arrive every second, decode, follow the pattern, and drive the alert light")
    func hrmSession() async throws {
        let pattern = HeartRatePattern(shape: .spikes, base: 80, peak: 150, period: .seconds(20))
        let result = try await Simulation.run(seed: 5, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "hrm-1", profile: .hrm, settings: VirtualBoardSettings(heartRate: pattern))
            board.powerOn()
            let firmware = board.firmware as! HRMFirmware
            return try await Handshake.withSession(
                central: farm.central(), address: board.address, spec: .standard(.hrm), connectTimeout: .seconds(5)
            ) { session in
                let client = HeartRateClient(session: session)
                #expect(try await client.bodySensorLocation() == .chest)
                var policy = AlertPolicy()
                var rates: [UInt16] = []
                var written: [HeartRateMonitor.Alert] = []
                var energy = 0
                for _ in 0..<45 {
                    let (measurement, _) = try await client.nextMeasurement(within: .seconds(2))
                    rates.append(measurement.beatsPerMinute)
                    if measurement.energyExpended != nil { energy += 1 }
                    #expect(measurement.sensorContact == .detected)
                    #expect(!measurement.rrIntervals.isEmpty)
                    if let alert = try await client.apply(&policy, to: measurement) { written.append(alert) }
                }
                return (rates, written, energy, firmware.alertWrites.map(\.alert))
            }
        }
        #expect(result.0.count == 45)
        #expect(result.0.allSatisfy { (78...152).contains($0) })
        #expect(result.0.contains { $0 > 140 } && result.0.contains { $0 < 125 })
        #expect(result.1.first == .redAlert)
        #expect(zip(result.1, result.1.dropFirst()).allSatisfy { $0 != $1 })
        #expect(result.3 == result.1)
        #expect((4...5).contains(result.2))
    }

    @Test("connecting to a board that never advertises fails with notFound after the timeout")
    func silentBoard() async throws {
        let outcome = try await Simulation.run(seed: 2, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "hrm-1", profile: .hrm, settings: VirtualBoardSettings(advertises: false))
            board.powerOn()
            let start = sim.now
            do throws(CentralError) {
                _ = try await farm.central().connect(to: board.address, timeout: .seconds(3))
                return (CentralError?.none, Duration.zero)
            } catch { return (error, start.duration(to: sim.now)) }
        }
        #expect(
            outcome.0
                == .notFound(VirtualBoardSettings.defaultAddress(for: "hrm-1", profile: .hrm), waited: .seconds(3)))
        #expect(outcome.1 == .seconds(3))
    }

    @Test("a board that loses power ends the link with 0x08 after the supervision timeout, and boots again")
    func powerLoss() async throws {
        let result = try await Simulation.run(seed: 9, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            board.powerOn()
            let central = farm.central()
            try await sim.clock.sleep(for: .seconds(1))
            let connection = try await central.connect(to: board.address, timeout: .seconds(5))
            let advertisingWhileConnected = board.advertising != nil
            let cut = sim.now
            board.powerOff()
            let reason = await connection.disconnection()
            let noticed = cut.duration(to: sim.now)
            board.powerOn()
            let again = try await central.connect(to: board.address, timeout: .seconds(5))
            await again.disconnect()
            return (advertisingWhileConnected, reason, noticed, await again.disconnection(), board.bootCount)
        }
        #expect(result.0 == false)
        #expect(result.1 == .connectionTimeout)
        #expect(result.2 > .milliseconds(3_980) && result.2 <= .seconds(4))
        #expect(result.3 == .localHostTerminated)
        #expect(result.4 == 2)
    }

    @Test(
        "the measured connect latency equals the link model's prediction",
        arguments: [
            LinkParameters(connectionInterval: .microseconds(7_500), packetsPerEvent: 4),
            LinkParameters(connectionInterval: .milliseconds(45), packetsPerEvent: 6, phy: .le1M, dataLength: 27),
        ])
    func connectLatencyMatchesModel(link: LinkParameters) async throws {
        let pairs = try await Simulation.run(seed: 21, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: link)
            let board = farm.addBoard(id: "hrm-1", profile: .hrm)
            board.powerOn()
            let central = farm.central()
            var pairs: [(Duration, Duration)] = []
            for i in 0..<12 {
                try await sim.clock.sleep(for: .milliseconds(700 + 37 * i))
                let requested = sim.now
                let predicted = try #require(
                    farm.air.predictedConnectLatency(to: board.address, requestedAt: requested))
                let connection = try await central.connect(to: board.address, timeout: .seconds(5))
                pairs.append((requested.duration(to: sim.now), predicted))
                await connection.disconnect()
            }
            return pairs
        }
        #expect(pairs.count == 12)
        for (measured, predicted) in pairs { #expect(measured == predicted) }
        #expect(Set(pairs.map(\.0)).count > 6, "the advertising phase should vary the latency")
    }

    @Test(
        "every step of the handshake, and so handshake.ready_ms, lands where the link model says",
        arguments: [
            LinkParameters(connectionInterval: .microseconds(7_500), packetsPerEvent: 4, phy: .le2M, dataLength: 251),
            LinkParameters(connectionInterval: .milliseconds(50), packetsPerEvent: 6, phy: .le1M, dataLength: 251),
        ])
    func readyMatchesModel(link: LinkParameters) async throws {
        let traffic = Mutex<[CentralTraffic]>([])
        let timeline = try await Simulation.run(seed: 4, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: link)
            let board = farm.addBoard(id: "esp-01", profile: .espPoint)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            let central = farm.central { event in traffic.withLock { $0.append(event) } }
            return try await Handshake.withSession(
                central: central, address: board.address, spec: .standard(.espPoint), connectTimeout: .seconds(5)
            ) { $0.timeline }
        }
        let events = traffic.withLock { $0 }
        let model = LinkModel(link)
        guard case let .linkUp(_, _, _, linkUp)? = events.first else {
            Issue.record("the capture does not start with the link coming up")
            return
        }
        #expect(linkUp == timeline.linkUp)
        let anchor0 = linkUp.advanced(by: .zero - model.firstAnchorToLinkUp)
        // The handshake is a chain of request/response exchanges: pair each request with the response after it.
        var pending: (pdu: [UInt8], at: RigInstant)?
        var predictedArrivals: [RigInstant] = []
        var measuredArrivals: [RigInstant] = []
        for case let .att(_, _, pdu, outbound, at) in events where at <= timeline.ready {
            if outbound {
                pending = (pdu, at)
            } else if let request = pending {
                predictedArrivals.append(
                    model.responseArrival(
                        requestIssued: request.at, requestSize: request.pdu.count, responseSize: pdu.count,
                        anchor0: anchor0))
                measuredArrivals.append(at)
                pending = nil
            }
        }
        // The cold handshake without a cache is 20 round trips: MTU, discovery of the services, their
        // characteristics and the CCCDs of all six subscriptions, and the three ready CCCD writes (the three
        // on-demand CCCDs are found but not written).
        #expect(measuredArrivals.count >= 20)
        #expect(measuredArrivals == predictedArrivals)
        #expect(predictedArrivals.first == timeline.mtuExchanged)
        #expect(predictedArrivals.last == timeline.ready)
    }

    @Test("a cancelled connection attempt ends at once with .cancelled; the board can be connected afterwards")
    func cancelledConnect() async throws {
        let outcome = try await Simulation.run(seed: 8, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let silent = farm.addBoard(id: "hrm-1", profile: .hrm, settings: VirtualBoardSettings(advertises: false))
            let board = farm.addBoard(id: "hrm-2", profile: .hrm)
            silent.powerOn()
            board.powerOn()
            let central = farm.central()
            let error = await withTaskGroup(of: CentralError?.self) { group in
                group.addTask {
                    do throws(CentralError) {
                        _ = try await central.connect(to: silent.address, timeout: .seconds(30))
                        return nil
                    } catch { return error }
                }
                try? await sim.clock.sleep(for: .seconds(1))
                group.cancelAll()
                return await group.next() ?? nil
            }
            let cancelledAfter = sim.now
            let connection = try await central.connect(to: board.address, timeout: .seconds(5))
            await connection.disconnect()
            return (error, cancelledAfter, await connection.disconnection())
        }
        #expect(outcome.0 == .cancelled)
        #expect(outcome.1 == .origin.advanced(by: .seconds(1)))
        #expect(outcome.2 == .localHostTerminated)
    }

    @Test("a scan filtered by name prefix reports only the boards whose name matches")
    func scanByName() async throws {
        let names = try await Simulation.run(seed: 12, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            for id in ["hrm-1", "hrm-2", "nano-1"] {
                farm.addBoard(id: id, profile: id.hasPrefix("hrm") ? .hrm : .nano33BLESense).powerOn()
            }
            var seen: [String] = []
            for await report in farm.central().scan(ScanFilter(namePrefixes: ["HRM-"])) {
                seen.append(report.data.localName ?? "?")
                if seen.count == 2 { break }
            }
            // Listen a while longer: the Nano keeps advertising and must not show up.
            for await report in farm.central().scan(ScanFilter(namePrefixes: ["HRM-"], deduplicate: false)) {
                seen.append(report.data.localName ?? "?")
                if seen.count == 12 { break }
            }
            return seen
        }
        #expect(names.count == 12)
        #expect(names.allSatisfy { $0.hasPrefix("HRM-") })
        #expect(Set(names.prefix(2)).count == 2)
    }
}

import BLECore
import BenchCore
import Benches
import CentralStack
import Foundation
import Reports
import Synchronization
import Testing

@testable import Orchestrator

/// The `ota` suite on a virtual esp-point: every check passes on a healthy board, and a board whose new image fails
/// its self-test is not reported as a clean update.
@Suite("ota suite")
struct OTASuiteTests {
    static let yaml = """
        rig: ota-farm
        radio: virtual
        boards:
          - id: esp-01
            profile: esp-point
          - id: nano-01
            profile: nano33-ble-sense
        virtual:
          seed: 3
        suites:
          - ota: {image_kib: 8, window: 4}
        """

    @Test(
        "every ota check passes on a virtual esp-point, with the ota.* numbers and their definitions; a Nano is not applicable"
    )
    func passesOnVirtualFarm() async throws {
        let result = try await CampaignTests.run(Self.yaml)
        let esp = try #require(result.result.boards.first { $0.id == "esp-01" })
        let ota = esp.tests.filter { $0.suite == "ota" }
        #expect(ota.map(\.name) == OTASuite.checkNames)
        for test in ota { #expect(test.outcome == .passed, "\(test.name): \(test.outcome)") }
        let values = CampaignTests.measurements(result)
        #expect(values["esp-01 ota/clean update ota.resumes value"] == 0)
        let efficiency = try #require(values["esp-01 ota/clean update ota.efficiency value"])
        #expect(efficiency > 0.5 && efficiency < 0.967)
        #expect(values["esp-01 ota/clean update ota.throughput_kBps value"].map { $0 > 40 } == true)
        #expect(values["esp-01 ota/resume after a disconnect ota.resumes value"] == 1)
        #expect(values["esp-01 ota/success rate ota.success_rate first_try"].map { $0 > 0 && $0 < 1 } == true)
        #expect(values["esp-01 ota/success rate ota.success_rate after_resume"] == 1)
        let definitions = ota.flatMap(\.measurements).filter { $0.definition.isEmpty }
        #expect(definitions.isEmpty)
        let nano = try #require(result.result.boards.first { $0.id == "nano-01" })
        #expect(
            nano.tests.filter { $0.suite == "ota" }.allSatisfy {
                if case let .skipped(reason) = $0.outcome { reason.contains("not applicable") } else { false }
            })
    }

    /// Armed while the image was in flight, the fault landed wherever the console line caught up with the frames,
    /// and after the last frame whenever a window held the rest of a small image: no NAK, and a board blamed for it.
    @Test("the CRC check arms its fault before the update, on the frame a third of the way in, and that frame is NAKed")
    func crcFaultLandsOnItsFrame() async throws {
        let result = try await CampaignTests.run(Self.yaml)
        let log = try String(contentsOfFile: result.directory + "/console/esp-01.log", encoding: .utf8)
        // 8 KiB at 236 bytes a frame: 35 frames.
        let armed = try #require(log.range(of: "I/OTA: fault armed: crc 11\n"), "\(log)")
        let start = try #require(log.range(of: "I/OTA: start size=8192", range: armed.upperBound..<log.endIndex))
        let nak = try #require(log.range(of: "W/OTA: nak expected_seq=11 reason=crc", range: start.upperBound..<log.endIndex))
        #expect(!log[start.upperBound..<nak.lowerBound].contains("I/OTA: fault armed"))
    }

    @Test("a board whose new image fails its self-test is not reported as a clean update, and the success rate fails")
    func selfTestFailureIsNotACleanUpdate() async throws {
        let campaign = try CampaignTests.campaign(Self.yaml)
        let rig = campaign.rig
        let launcher = try BenchBuilder().launcher(for: rig, seed: 3)
        let events = Mutex<[RunEvent.TestFinished]>([])
        _ = try await launcher.withBench { bench in
            let board = bench.boards[0]
            try await board.power?.on()
            let central = bench.radios[0].central
            guard
                let seen = try await Preflight.firstAdvertisement(
                    of: board.match, on: central, clock: bench.clock, within: .seconds(10))
            else { throw CheckFailure("the board was not heard") }
            // The fault is armed before the suite: its clean update is the image whose self-test fails.
            try await board.console?.send("ota-fault selftest")
            let recorder = CheckRecorder(board: board.id, clock: bench.clock, control: RunControl()) { event in
                if case let .testFinished(finished) = event { events.withLock { $0.append(finished) } }
            }
            let target = BoardUnderTest(
                config: rig.board(id: board.id)!, address: seen.address, match: board.match, bench: board,
                central: central, clock: bench.clock, recorder: recorder, keys: InMemoryKeyStore(), seed: 3,
                gattCache: InMemoryGATTCache(), consoleLog: ConsoleMonitor())
            await OTASuite(imageSize: 8 * 1024, window: 4, batch: 10).run(on: target)
        }
        let outcomes = Dictionary(uniqueKeysWithValues: events.withLock { $0 }.map { ($0.test, $0.outcome) })
        guard case let .failed(message, _)? = outcomes["clean update"] else {
            Issue.record("clean update: \(String(describing: outcomes["clean update"]))")
            return
        }
        #expect(message.contains("did not commit") && message.contains("rolled back to 1.4.2"))
        guard case .failed? = outcomes["success rate"] else {
            Issue.record("success rate: \(String(describing: outcomes["success rate"]))")
            return
        }
        #expect(outcomes["self-test failure rolls back"] == .passed)
        #expect(outcomes["back to the original firmware"] == .passed)
    }
}

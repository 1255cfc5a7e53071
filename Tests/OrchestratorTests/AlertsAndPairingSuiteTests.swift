import BLECore
import Reports
import Testing

@testable import Orchestrator

/// The `alerts` and `pairing` suites on a virtual rig, passing and failing.
@Suite("Alerts and pairing suites")
struct AlertsAndPairingSuiteTests {
    static func rig(heartRate: String, suites: String) -> String {
        """
        rig: alerts-pairing
        radio: virtual
        boards:
          - id: esp-01
            profile: esp-point
          - id: hrm-01
            profile: hrm
            virtual:
              heart_rate: \(heartRate)
        virtual:
          seed: 7
          link: {interval_ms: 15}
        suites:
        \(suites)
        """
    }

    static func outcome(_ result: CampaignResult, _ board: String, _ suite: String, _ test: String) -> TestOutcome? {
        result.result.boards.first { $0.id == board }?.tests.first { $0.suite == suite && $0.name == test }?.outcome
    }

    @Test("both pass; pairing leaves the board with the rig's key, so a later suite authenticates with it")
    func passOnVirtualRig() async throws {
        let yaml = Self.rig(
            heartRate: "{pattern: sine, base_bpm: 100, peak_bpm: 155, period_s: 40}",
            suites: """
                  - alerts: {duration_s: 100}
                  - pairing
                  - commands: {repetitions: 1}
                """)
        let result = try await CampaignTests.run(yaml)
        #expect(result.status == .passed, "\(result.result.failingCheckLines())")
        let values = CampaignTests.measurements(result)
        #expect(values["hrm-01 alerts/policy writes on crossings only alerts.raised value"] ?? 0 >= 2)
        #expect(
            values["hrm-01 alerts/policy writes on crossings only alerts.board_received value"]
                == (values["hrm-01 alerts/policy writes on crossings only alerts.raised value"] ?? -1)
                + (values["hrm-01 alerts/policy writes on crossings only alerts.cleared value"] ?? -1))
        for central in ["unpaired", "wrong-key"] {
            let key = "esp-01 pairing/\(central) central: 0 protected writes accepted pairing.protected_writes_"
            #expect(values[key + "accepted value"] == 0)
            #expect(values[key + "tried value"] == 13)
        }
        #expect(Self.outcome(result, "esp-01", "commands", "pair or authenticate") == .passed)
    }

    @Test("alerts fails, saying so, when the heart rate never crosses the thresholds")
    func alertsWithoutCrossings() async throws {
        let yaml = Self.rig(heartRate: "{pattern: steady, base_bpm: 70}", suites: "  - alerts: {duration_s: 30}")
        let result = try await CampaignTests.run(yaml)
        #expect(result.status == .checksFailed)
        guard
            case let .failed(message, _)? = Self.outcome(result, "hrm-01", "alerts", "policy writes on crossings only")
        else {
            Issue.record("expected the alerts check to fail")
            return
        }
        #expect(message.contains("never crossed both thresholds"))
    }

    @Test("the protected-write verdict fails on an acceptance or a refusal other than 0x05, and counts them")
    func verdict() throws {
        typealias A = PairingSuite.Attempt
        let refused = [A(what: "SET_LED", refusal: .insufficientAuthentication)]
        let passed = try PairingSuite.verdict(refused, central: "unpaired", place: "esp-01")
        #expect(passed.first { $0.metric == "pairing.protected_writes_accepted" }?.value == 0)
        for attempts in [
            refused + [A(what: "Log STATUS", refusal: nil)],
            refused + [A(what: "OTA START", refusal: .unlikelyError)],
        ] {
            #expect(throws: MeasuredFailure.self) {
                try PairingSuite.verdict(attempts, central: "unpaired", place: "esp-01")
            }
        }
        do {
            _ = try PairingSuite.verdict(refused + [A(what: "REBOOT", refusal: nil)], central: "x", place: "esp-01")
        } catch let failure as MeasuredFailure {
            #expect(failure.failure.message.contains("1 of 2 protected writes accepted from a x central: REBOOT"))
            #expect(failure.measurements.first { $0.metric == "pairing.protected_writes_accepted" }?.value == 1)
        }
    }

    @Test("the protected writes cover every Command but PAIR_*, every Log Control and every OTA Control request")
    func coverage() {
        // The contract's UUIDs, written out: e5b1XXXX-7c3a-4f0e-9d2b-5a1c3e7f9b20.
        enum EspPointUUIDs {
            static let command = BluetoothUUID("e5b10201-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
            static let logControl = BluetoothUUID("e5b10102-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
            static let otaControl = BluetoothUUID("e5b10301-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
        }
        let writes = PairingSuite.protectedWrites(unixTime: 0)
        let commands = Set(writes.filter { $0.characteristic == EspPointUUIDs.command }.map { $0.bytes[0] })
        #expect(commands == [0x01, 0x02, 0x03, 0x04, 0x05, 0x08])
        #expect(Set(writes.filter { $0.characteristic == EspPointUUIDs.logControl }.map { $0.bytes[0] }) == [1, 2, 3])
        #expect(
            Set(writes.filter { $0.characteristic == EspPointUUIDs.otaControl }.map { $0.bytes[0] }) == [1, 2, 3, 4])
    }
}

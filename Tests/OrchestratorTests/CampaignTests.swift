import BLECore
import BenchCore
import Benches
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// Whole campaigns on the virtual farm: what `blerig run` does, minus the printing.
@Suite("Campaign on the virtual farm")
struct CampaignTests {
    /// A small rig: one board of each profile and a short version of every suite.
    static func rig(
        interval: String = "15", seed: Int = 42, extraBoard: String = "", radio: String = "virtual",
        suites: String = """
          - discovery
          - handshake: {connections: 6}
          - commands: {repetitions: 3}
          - notifications: {duration_s: 5}
        """
    ) -> String {
        """
        rig: test-farm
        radio: \(radio)
        boards:
          - id: esp-01
            profile: esp-point
          - id: nano-01
            profile: nano33-ble-sense
          - id: hrm-01
            profile: hrm
        \(extraBoard)
        virtual:
          seed: \(seed)
          link: {interval_ms: \(interval)}
        suites:
        \(suites)
        """
    }

    static func outputRoot() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("blerig-campaign-\(UUID().uuidString)").path
    }

    static func campaign(_ yaml: String, seed: UInt64? = nil) throws -> Campaign {
        let path = try RigTesting.temporaryFile(Array(yaml.utf8))
        return try Campaign(rigFile: path, seed: seed, benches: BenchBuilder())
    }

    static func run(
        _ yaml: String, seed: UInt64? = nil, options: RunOptions = RunOptions(outputRoot: outputRoot()),
        control: RunControl = RunControl()
    ) async throws -> CampaignResult {
        try await campaign(yaml, seed: seed).run(options, control: control)
    }

    static func measurements(_ result: CampaignResult) -> [String: Double] {
        var values: [String: Double] = [:]
        for board in result.result.boards {
            for test in board.tests {
                for m in test.measurements {
                    values["\(board.id) \(test.suite)/\(test.name) \(m.metric) \(m.statistic)"] = m.value
                }
            }
        }
        return values
    }

    @Test("every check passes on a healthy farm, and the reports are on disk")
    func healthyFarm() async throws {
        let result = try await Self.run(Self.rig())
        #expect(result.result.failingCheckLines() == [])
        #expect(result.status == .passed)
        // Per board: preflight, discovery (2), handshake, notifications; commands: 3 on the esp-point, 1 else; the
        // esp-point's warm reconnects (skipped on the others, which have no Database Hash).
        #expect(result.result.counts.passed == 3 * 5 + 3 + 1 + 1 + 1)
        let files = ["junit.xml", "run.jsonl", "summary.txt", "captures/esp-01.btsnoop", "console/hrm-01.log"]
        for file in files {
            #expect(FileManager.default.fileExists(atPath: "\(result.directory)/\(file)"), "\(file) missing")
        }
        let capture = try BTSnoop.Capture(
            decoding: Array(try Data(contentsOf: URL(fileURLWithPath: "\(result.directory)/captures/nano-01.btsnoop"))))
        // Discovery's session, six handshakes and the commands and notifications sessions: nine links.
        #expect(capture.records.count > 9 * 10)
        let console = try String(contentsOfFile: "\(result.directory)/console/esp-01.log", encoding: .utf8)
        #expect(console.contains("BOOT fw=1.4.2 bank=A reset=POWERON"))
        #expect(console.contains("READY name=ESP-Point-"))
        let reloaded = try RunLog(
            jsonLines: try Data(contentsOf: URL(fileURLWithPath: "\(result.directory)/run.jsonl")))
        // The streamed log folds to the same result the run kept in memory.
        #expect(RunResult(reloaded).boards == result.result.boards)
        // No check a user sees is a tautology: the link-model comparison is a test (LinkModelAgreementTests).
        #expect(!result.result.boards.flatMap(\.tests).contains { $0.name.contains("link model") })
        // Each board went off → booting → advertising and was left off.
        for board in result.result.boards {
            let moves = board.transitions.map { "\($0.from)→\($0.to)" }
            #expect(moves.first == "unknown→off")
            #expect(moves.contains("off→booting") && moves.contains("booting→advertising"))
            #expect(moves.last?.hasSuffix("→off") == true)
        }
    }

    @Test("two runs with the same seed give identical numbers and captures; another seed moves them")
    func determinism() async throws {
        let first = try await Self.run(Self.rig())
        let second = try await Self.run(Self.rig())
        let other = try await Self.run(Self.rig(), seed: 43)
        let a = Self.measurements(first), b = Self.measurements(second), c = Self.measurements(other)
        #expect(a.count > 40)
        #expect(a == b)
        for board in ["esp-01", "nano-01", "hrm-01"] {
            let capture = { (r: CampaignResult) in
                try Data(contentsOf: URL(fileURLWithPath: "\(r.directory)/captures/\(board).btsnoop"))
            }
            #expect(try capture(first) == capture(second))
        }
        #expect(
            a.filter { $0.key.contains("handshake.connect_ms") } != c.filter { $0.key.contains("handshake.connect_ms") }
        )
    }

    @Test("a slower connection interval stretches the handshake", arguments: ["7.5", "50"])
    func handshakeFollowsInterval(interval: String) async throws {
        let result = try await Self.run(Self.rig(interval: interval))
        let ready = Self.measurements(result).filter { $0.key.hasSuffix("handshake.ready_ms p50") }
        #expect(ready.count == 3)
        let intervalMs = Double(interval)!
        #expect(ready.values.allSatisfy { $0 > 8 * intervalMs })
    }

    @Test("a board that never advertises is quarantined with its place in the rig file; the others run")
    func unreachableBoard() async throws {
        let extra = """
              - id: esp-silent
                profile: esp-point
                virtual: {advertising: false}
            """
        let result = try await Self.run(Self.rig(extraBoard: extra))
        #expect(result.status == .checksFailed)
        let silent = try #require(result.result.boards.first { $0.id == "esp-silent" })
        let preflight = try #require(silent.tests.first { $0.suite == "preflight" })
        guard case let .failed(message, _) = preflight.outcome else {
            Issue.record("expected a failure, got \(preflight.outcome)")
            return
        }
        #expect(message.contains("rig.yaml:10:5: board esp-silent is unreachable: no advertisement from"))
        // It was power-cycled once; its console shows it booted both times, so the message says the radio did not
        // hear it rather than that it did not boot.
        #expect(message.contains("but the radio did not hear it"))
        #expect(silent.transitions.contains { $0.reason.hasPrefix("power cycle") })
        #expect(silent.transitions.contains { $0.to == "quarantined" })
        #expect(!message.contains("\n"))
        // Every check its suites plan for its profile is skipped, one testcase each.
        #expect(silent.tests.filter { if case .skipped = $0.outcome { true } else { false } }.count == 8)
        for board in result.result.boards where board.id != "esp-silent" { #expect(board.counts.failed == 0) }
        #expect(result.result.failingCheckLines().count == 1)
    }

    @Test("a malformed rig file, an unknown profile and a hardware radio each give one line naming the place")
    func badRigFiles() throws {
        func error(_ yaml: String) throws -> String {
            do {
                _ = try Self.campaign(yaml)
                return "no error"
            } catch let error as CampaignError {
                let line = error.description
                #expect(!line.contains("\n"))
                return line.replacing(#/^/[^:]*rig\.yaml/#, with: "rig.yaml")
            } catch {
                return "unexpected \(error)"
            }
        }
        #expect(try error("rig: x\nboards: [\n  - id: a\n").hasPrefix("rig.yaml:"))
        let unknown = try error(Self.rig().replacingOccurrences(of: "profile: hrm", with: "profile: hrn"))
        #expect(unknown.hasPrefix("rig.yaml:9:14: "))
        #expect(unknown.contains("'hrn'"))
        let bench = Self.rig(radio: "{kind: bluez, adapter: hci0}")
            .replacingOccurrences(
                of: "profile: esp-point", with: "profile: esp-point\n    match: {name: ESP-Point-1a2b}"
            )
            .replacingOccurrences(
                of: "profile: nano33-ble-sense", with: "profile: nano33-ble-sense\n    match: {name: iOSArduinoBoard}"
            )
            .replacingOccurrences(of: "profile: hrm", with: "profile: hrm\n    match: {name: HRM-0001}")
        // A bluez rig is a rig like any other now: its adapter is opened when it runs.
        #expect(try error(bench) == "no error")
        let options = try error(Self.rig().replacingOccurrences(of: "{connections: 6}", with: "{connection: 6}"))
        #expect(options.hasPrefix("rig.yaml:16:17: "))
        #expect(options.contains("connections"))
    }

    @Test("--suites narrows the rig's suites and rejects a name blerig does not have")
    func suiteFilter() async throws {
        let path = try RigTesting.temporaryFile(Array(Self.rig().utf8))
        #expect(throws: CampaignError.self) {
            try Campaign(rigFile: path, suites: ["handshak"], benches: BenchBuilder())
        }
        do {
            _ = try Campaign(rigFile: path, suites: ["handshak"], benches: BenchBuilder())
        } catch {
            #expect(error.description.hasPrefix("--suites: unknown suite 'handshak'"))
        }
        let result = try await Campaign(rigFile: path, suites: ["commands"], benches: BenchBuilder())
            .run(RunOptions(outputRoot: Self.outputRoot()))
        #expect(Set(result.result.boards.flatMap { $0.tests.map(\.suite) }) == ["preflight", "commands"])
    }

    @Test("the campaign's junit.xml validates against the Jenkins xunit junit-10.xsd")
    func junitValidates() async throws {
        let extra = """
              - id: esp-silent
                profile: esp-point
                virtual: {advertising: false}
            """
        let result = try await Self.run(Self.rig(extraBoard: extra))
        try XMLSchema.expectValid("\(result.directory)/junit.xml")
        let xml = try String(contentsOfFile: "\(result.directory)/junit.xml", encoding: .utf8)
        #expect(xml.contains("board esp-silent is unreachable"))
        #expect(xml.contains("<skipped message=\"board esp-silent is quarantined: preflight failed\""))
    }

    @Test("the shipped rigs load with the suites blerig has; the BlueZ example gets the kernel path's bench")
    func shippedRigs() throws {
        let virtual = try Campaign(rigFile: RigTesting.path("rigs/virtual.yaml"), benches: BenchBuilder())
        #expect(virtual.rig.boards.count == 4)
        #expect(virtual.seed == 42)
        let bluez = try Campaign(rigFile: RigTesting.path("rigs/examples/bench-bluez.yaml"), benches: BenchBuilder())
        #expect(bluez.launcher.summary == "bluez hci0")
    }

    static let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "tshark (an independent dissector) reads every board's capture without a malformed frame",
        .enabled(if: tshark != nil, "tshark is not installed (make test installs it)"))
    func capturesDissect() async throws {
        let result = try await Self.run(Self.rig())
        for board in ["esp-01", "nano-01", "hrm-01"] {
            let path = "\(result.directory)/captures/\(board).btsnoop"
            func tshark(_ arguments: [String]) throws -> [String] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: Self.tshark!)
                process.arguments = ["-r", path] + arguments
                let output = Pipe()
                process.standardOutput = output
                process.standardError = FileHandle.nullDevice
                try process.run()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                return text.split(separator: "\n").map(String.init)
            }
            let frames = try tshark([])
            #expect(frames.count > 100, "\(board): \(frames.count) frames")
            #expect(frames.first?.contains("LE Connection Complete") == true)
            #expect(try tshark(["-Y", "_ws.malformed || _ws.expert.severity >= warning"]) == [])
            let att = try tshark(["-Y", "btatt.opcode == 0x02"])
            #expect(!att.isEmpty, "\(board): no Exchange MTU Request")
        }
    }

    @Test(
        "a console line keeps the level the board gave it, so its warnings reach JUnit's system-err",
        arguments: [
            ("[10234] W/LOG: ring full: overwrote an unacknowledged record dropped=1", LogLevel.warning),
            ("[5] E/GATT: the GATT table was rejected", .error), ("[7] D/BLE: tick", .debug),
            ("[7] I/LED: on", .info), ("BOOT fw=1.4.2 bank=A reset=POWERON boot_id=5f3a9c01", .info),
            ("waiting for download", .info),
        ])
    func consoleLevels(text: String, level: LogLevel) {
        #expect(ConsoleEntry(at: .origin, text: text, boot: nil).level == level)
    }
}

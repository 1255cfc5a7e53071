import BLECore
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// Whole campaigns on the virtual farm: what `blerig run` does, minus the printing.
@Suite("Campaign on the virtual farm")
struct CampaignTests {
    /// A small rig: one board of each profile and a short version of every suite.
    static func rig(
        interval: String = "15", seed: Int = 42, extraBoard: String = "", radio: String = "virtual"
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
          - discovery
          - handshake: {connections: 6}
          - commands: {repetitions: 3}
          - notifications: {duration_s: 5}
        """
    }

    static func run(_ yaml: String, seed: UInt64? = nil) async throws -> CampaignResult {
        let path = try RigTesting.temporaryFile(Array(yaml.utf8))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blerig-campaign-\(UUID().uuidString)")
        return try await Campaign(rigFile: path, seed: seed).run(outputRoot: output.path)
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
        #expect(result.passed)
        // Per board: preflight, discovery (2), handshake (2), notifications; commands: 3 on the esp-point, 1 else.
        #expect(result.result.counts.passed == 3 * 6 + 3 + 1 + 1)
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
        // The wall-clock start is stored to the millisecond; everything measured comes back exactly.
        #expect(RunResult(reloaded).boards == result.result.boards)
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

    @Test("handshake.connect_ms equals the link model's prediction", arguments: ["7.5", "50"])
    func handshakeMatchesModel(interval: String) async throws {
        let result = try await Self.run(Self.rig(interval: interval))
        for board in result.result.boards {
            let model = try #require(board.tests.first { $0.name == "connect latency matches the link model" })
            #expect(model.outcome == .passed)
            #expect(model.measurements.first { $0.metric == "handshake.model_error_ms" }?.value == 0)
        }
        // A slower connection interval stretches the handshake: ready takes many more intervals than connect.
        let ready = Self.measurements(result).filter { $0.key.hasSuffix("handshake.ready_ms p50") }
        #expect(ready.count == 3)
        let intervalMs = Double(interval)!
        #expect(ready.values.allSatisfy { $0 > 8 * intervalMs })
    }

    @Test("a board that never advertises is reported unreachable at its place in the rig file; the others run")
    func unreachableBoard() async throws {
        let extra = """
              - id: esp-silent
                profile: esp-point
                virtual: {advertising: false}
            """
        let result = try await Self.run(Self.rig(extraBoard: extra))
        #expect(result.passed == false)
        let silent = try #require(result.result.boards.first { $0.id == "esp-silent" })
        let preflight = try #require(silent.tests.first { $0.suite == "preflight" })
        guard case let .failed(message, _) = preflight.outcome else {
            Issue.record("expected a failure, got \(preflight.outcome)")
            return
        }
        #expect(message.contains("rig.yaml:10:5: board esp-silent is unreachable: no advertisement from"))
        #expect(!message.contains("\n"))
        #expect(silent.tests.filter { if case .skipped = $0.outcome { true } else { false } }.count == 4)
        for board in result.result.boards where board.id != "esp-silent" { #expect(board.counts.failed == 0) }
        #expect(result.result.failingCheckLines().count == 1)
    }

    @Test("a malformed rig file, an unknown profile and a hardware radio each give one line naming the place")
    func badRigFiles() throws {
        func error(_ yaml: String) throws -> String {
            let path = try RigTesting.temporaryFile(Array(yaml.utf8))
            do {
                _ = try Campaign(rigFile: path)
                return "no error"
            } catch {
                let line = error.description
                #expect(!line.contains("\n"))
                return line.replacingOccurrences(of: path, with: "rig.yaml")
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
        let radio = try error(bench)
        #expect(radio.hasPrefix("rig.yaml:2:8: radio 'bluez' is not available"))
        let options = try error(Self.rig().replacingOccurrences(of: "{connections: 6}", with: "{connection: 6}"))
        #expect(options.hasPrefix("rig.yaml:16:17: "))
        #expect(options.contains("connections"))
    }

    @Test("--suites narrows the rig's suites and rejects a name blerig does not have")
    func suiteFilter() async throws {
        let path = try RigTesting.temporaryFile(Array(Self.rig().utf8))
        #expect(throws: CampaignError.self) { try Campaign(rigFile: path, suites: ["handshak"]) }
        do {
            _ = try Campaign(rigFile: path, suites: ["handshak"])
        } catch {
            #expect(error.description.hasPrefix("--suites: unknown suite 'handshak'"))
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blerig-campaign-\(UUID().uuidString)")
        let result = try await Campaign(rigFile: path, suites: ["commands"]).run(outputRoot: output.path)
        #expect(Set(result.result.boards.flatMap { $0.tests.map(\.suite) }) == ["preflight", "commands"])
    }

    @Test("a report directory that cannot be created is a one-line error with the path")
    func unwritableOutput() async throws {
        let path = try RigTesting.temporaryFile(Array(Self.rig().utf8))
        let blocker = try RigTesting.temporaryFile([1, 2, 3], name: "not-a-directory")
        do {
            _ = try await Campaign(rigFile: path, suites: ["discovery"]).run(outputRoot: blocker)
            Issue.record("expected an output error")
        } catch {
            guard case let .output(failedPath, _) = error else {
                Issue.record("expected an output error, got \(error)")
                return
            }
            #expect(failedPath.hasPrefix(blocker))
            #expect(error.description.hasPrefix("cannot write \(blocker)/"))
        }
    }

    @Test("the campaign's junit.xml validates against the Jenkins xunit junit-10.xsd")
    func junitValidates() async throws {
        let extra = """
              - id: esp-silent
                profile: esp-point
                virtual: {advertising: false}
            """
        let result = try await Self.run(Self.rig(extraBoard: extra))
        let xmllint = try #require(
            ["/usr/bin/xmllint", "/usr/local/bin/xmllint"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "xmllint is missing: install libxml2-utils (make test does)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xmllint)
        process.arguments = [
            "--noout", "--schema", RigTesting.path("Tests/ReportsTests/Fixtures/junit-10.xsd"),
            "\(result.directory)/junit.xml",
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let xml = try String(contentsOfFile: "\(result.directory)/junit.xml", encoding: .utf8)
        #expect(
            xml.contains("<failure message=\"rig.yaml:10:5: board esp-silent is unreachable")
                || xml.contains("board esp-silent is unreachable"))
        #expect(xml.contains("<skipped message=\"board esp-silent is unreachable\""))
    }

    @Test("the shipped rigs load with the suites blerig has; the BlueZ example is refused at its radio line")
    func shippedRigs() throws {
        let virtual = try Campaign(rigFile: RigTesting.path("rigs/virtual.yaml"))
        #expect(virtual.rig.boards.count == 4)
        #expect(virtual.seed == 42)
        let path = RigTesting.path("rigs/examples/bench-bluez.yaml")
        #expect {
            try Campaign(rigFile: path)
        } throws: { error in
            (error as? CampaignError)?.description.hasPrefix("\(path):") == true
                && (error as? CampaignError)?.description.contains("radio 'bluez' is not available in this build")
                    == true
        }
    }

    @Test("a simulation that cannot finish still leaves what it recorded on disk, and says where")
    func simulationFailureKeepsResults() async throws {
        let path = try RigTesting.temporaryFile(Array(Self.rig().utf8))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blerig-campaign-\(UUID().uuidString)")
        do {
            _ = try await Campaign(rigFile: path).run(outputRoot: output.path, horizon: .seconds(8))
            Issue.record("expected the horizon to stop the run")
        } catch {
            guard case let .simulation(message) = error else {
                Issue.record("expected a simulation error, got \(error)")
                return
            }
            #expect(message.contains("horizon"))
            let directory = try #require(message.components(separatedBy: "what was recorded until then is in ").last)
            let log = try RunLog(jsonLines: try Data(contentsOf: URL(fileURLWithPath: "\(directory)/run.jsonl")))
            let recorded = RunResult(log)
            #expect(recorded.boards.count == 3)
            #expect(
                recorded.boards.allSatisfy { board in
                    board.tests.contains { $0.suite == "discovery" && $0.outcome == .passed }
                })
            #expect(FileManager.default.fileExists(atPath: "\(directory)/junit.xml"))
            #expect(FileManager.default.fileExists(atPath: "\(directory)/captures/esp-01.btsnoop"))
        }
    }
}

import BLECore
import Foundation
import Radios
import Testing

extension Interop {
    /// The real `blerig` binary running a campaign over rootcanal, as CI would: the boards of
    /// `rigs/rootcanal.yaml` with the suites shortened, then its reports checked by tools nobody here wrote
    /// (xmllint, tshark), and nothing of it left running.
    @Suite("a campaign over rootcanal")
    struct RootcanalCampaign {
        /// `blerig` beside this test bundle, built by `swift build --build-tests`.
        static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("blerig").path

        /// rigs/rootcanal.yaml with shorter suites (alerts left out: the hrm's heart rate needs a minute to cross both
        /// thresholds): its boards and radio, unchanged.
        static func rig() throws -> String {
            let path = URL(filePath: InteropEnvironment.packageRoot).appending(path: "rigs/rootcanal.yaml").path
            let full = try String(contentsOfFile: path, encoding: .utf8)
            guard let suites = full.range(of: "\nsuites:") else {
                throw TestFailure("rigs/rootcanal.yaml has no suites: section")
            }
            return full[..<suites.lowerBound]
                + """

                suites:
                  - discovery
                  - handshake: {connections: 3}
                  - commands
                  - notifications: {duration_s: 3}
                  - pairing
                  - soak: {duration_h: 0.01, traffic_interval_s: 1}
                  - restore
                  - ota: {image_kib: 8}

                """
        }

        @Test(
            "blerig runs the rootcanal rig, exits 0, writes valid JUnit and captures tshark dissects cleanly, and leaves no rootcanal"
        )
        func campaign() async throws {
            try #require(
                FileManager.default.isExecutableFile(atPath: Self.binary),
                "\(Self.binary) is missing: swift build --build-tests")
            for tool in ["/usr/bin/tshark", "/usr/bin/xmllint"] {
                try #require(
                    FileManager.default.isExecutableFile(atPath: tool),
                    "\(tool) is missing: apt-get install tshark libxml2-utils")
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-interop-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let rigPath = directory + "/rootcanal-short.yaml"
            try Self.rig().write(toFile: rigPath, atomically: true, encoding: .utf8)
            let out = directory + "/out"

            let (exit, output, rootcanals) = try await withInteropScope { scope in
                var environment = ProcessInfo.processInfo.environment
                environment[InteropVenv.environmentVariable] = try InteropEnvironment.venv().directory
                let blerig = try SupervisedProcess.start(
                    Self.binary, ["run", rigPath, "--out", out], environment: environment, stdout: try ProcessOutput(),
                    stderr: try ProcessOutput())
                scope.track("blerig run", blerig.pid, marker: [], stop: { await blerig.stop() })
                // While it runs, note the rootcanal it starts: its process group and its HCI port.
                var rootcanals: [pid_t: [String]] = [:]
                let clock = ContinuousClock()
                let deadline = clock.now.advanced(by: .seconds(90))
                while blerig.exit == nil, clock.now < deadline {
                    for entry in ProcessTable.livingDescendants(of: blerig.pid) where entry.name == "rootcanal" {
                        rootcanals[entry.group] = rootcanals[entry.group] ?? Self.hciPortFlag(of: entry.pid)
                    }
                    try await clock.sleep(for: .milliseconds(50))
                }
                guard let exit = blerig.exit else { throw TestFailure("blerig run did not end within 90 s") }
                let output = blerig.stdout.text + blerig.stderr.text
                return (exit, output, rootcanals)
            }
            #expect(exit == .exited(0), "blerig run: \(RunTranscript(output))")

            // It started exactly one rootcanal, and none of it is left: not its group, not its port's process.
            #expect(rootcanals.count == 1, "rootcanals seen while blerig ran: \(rootcanals)")
            let leftovers = InteropScope.leftovers(of: rootcanals.map { ("blerig's rootcanal", $0.key, $0.value) })
            #expect(leftovers.isEmpty, "left behind: \(leftovers)")

            let runs = try FileManager.default.contentsOfDirectory(atPath: out)
                .filter { !$0.hasPrefix("history.sqlite") }
            let run = try #require(runs.count == 1 ? out + "/" + runs[0] : nil, "run directories: \(runs)")
            let schema = URL(filePath: InteropEnvironment.packageRoot)
                .appending(path: "Tests/ReportsTests/Fixtures/junit-10.xsd").path
            let lint = try Self.tool("/usr/bin/xmllint", ["--noout", "--schema", schema, run + "/junit.xml"])
            #expect(lint.status == 0 && lint.output.hasSuffix("validates"), "xmllint: \(lint.output)")
            let junit = try String(contentsOfFile: run + "/junit.xml", encoding: .utf8)
            #expect(!junit.contains("<failure") && !junit.contains("<error"), "\(RunTranscript(output))")

            var boardFrames: Set<[UInt8]> = []
            for board in ["esp-01", "nano-01", "hrm-01"] {
                let capture = "\(run)/captures/\(board).btsnoop"
                let flagged = try Self.tool("/usr/bin/tshark", ["-r", capture, "-Y", Self.flaggedFilter])
                #expect(flagged.status == 0, "tshark on \(capture): \(flagged.output)")
                #expect(
                    flagged.lines.isEmpty, "\(board): tshark flags\n\(flagged.lines.prefix(20).joined(separator: "\n"))"
                )
                // Not vacuous: the board's capture holds its GATT traffic, which tshark recognises as ATT.
                let att = try Self.frames(capture, "btatt")
                #expect(att.count > 20, "\(board): \(att.count) ATT frames")
                boardFrames.formUnion(att)
            }

            // The radio-wide capture interleaves the boards' links. Wireshark keeps one attribute handle → UUID
            // map per adapter, not per connection, so an ATT value there may be dissected with another board's
            // table (an esp-point's Manufacturer Name read as a Heart Rate Measurement) and flagged. Nothing in
            // it is malformed outside ATT, and every frame it flags (also an ATT value "malformed" only because it
            // was read with another board's table: an hrm's 1-byte Battery Level as an esp-point's Manufacturer
            // Name string) carries the very bytes of a frame the board's own capture holds, which tshark dissects
            // cleanly there.
            let radio = "\(run)/captures/radio-radio.btsnoop"
            let malformed = try Self.tool(
                "/usr/bin/tshark", ["-r", radio, "-Y", "!btatt && (\(Self.flaggedFilter))"])
            #expect(malformed.status == 0 && malformed.lines.isEmpty, "radio-wide capture:\n\(malformed.output)")
            let mislabelled = try Self.frames(radio, Self.flaggedFilter)
            for frame in mislabelled {
                #expect(boardFrames.contains(frame), "flagged in the radio-wide capture only: \(frame.hexString)")
            }
        }

        static let flaggedFilter = "_ws.malformed || _ws.expert.severity >= warning"

        /// The bytes of every frame of `capture` that passes `filter`, as tshark dumps them (`-x`: each frame's
        /// own bytes first, then any reassembled buffer, which is left out).
        static func frames(_ capture: String, _ filter: String) throws -> [[UInt8]] {
            let dump = try tool("/usr/bin/tshark", ["-r", capture, "-Y", filter, "-x"])
            guard dump.status == 0 else { throw TestFailure("tshark -x on \(capture): \(dump.output)") }
            var frames: [[UInt8]] = []
            var current: [UInt8] = []
            var ended = false
            for line in dump.output.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.isEmpty {
                    if !current.isEmpty { frames.append(current) }
                    current = []
                    ended = false
                    continue
                }
                let isHex =
                    line.count > 6 && line.prefix(4).allSatisfy(\.isHexDigit) && line.dropFirst(4).hasPrefix("  ")
                guard isHex, !ended else {
                    ended = !current.isEmpty
                    continue
                }
                let bytes = line.dropFirst(6).prefix(48).split(separator: " ").compactMap { UInt8($0, radix: 16) }
                current += bytes
            }
            if !current.isEmpty { frames.append(current) }
            return frames
        }

        /// `-hci_port N` from a process's command line, or empty.
        static func hciPortFlag(of pid: pid_t) -> [String] {
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
            let argv = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let index = argv.firstIndex(of: "-hci_port"), index + 1 < argv.count else { return [] }
            return ["-hci_port", argv[index + 1]]
        }

        struct ToolOutput {
            var status: Int32
            var output: String
            /// Standard output's lines, without tshark's warning about running as root (on stderr).
            var lines: [String]
        }

        /// Runs a tool to completion; its standard output's lines and everything it printed.
        static func tool(_ path: String, _ arguments: [String]) throws -> ToolOutput {
            let process = Process()
            process.executableURL = URL(filePath: path)
            process.arguments = arguments
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let complaints = stderr.split(separator: "\n").filter { !$0.hasPrefix("Running as user \"root\"") }
            return ToolOutput(
                status: process.terminationStatus, output: stdout + complaints.joined(separator: "\n"),
                lines: stdout.split(separator: "\n").map(String.init))
        }
    }
}

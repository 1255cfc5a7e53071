import Foundation
import Testing

/// One boot for every USB serial test: the USB/IP CDC-ACM board (cdc_acm_board.py) on the host, and in the
/// guest usb_serial_session.sh, which attaches it with `usbip attach` and runs esptool, `blerig reset` with each
/// preset and the touch, `blerig console` across a re-enumeration, and stty's 1200-baud touch against
/// /dev/ttyACM0, marking each phase in the board's log.
actor USBSerialSession {
    static let shared = USBSerialSession()
    /// How often esptool_resets.py plays each of esptool's reset classes.
    static let esptoolRepeat = 5

    struct Outcome: Sendable {
        let run: Guest.Run
        let log: BoardLog
        let folder: String

        func file(_ name: String) -> String {
            (try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)) ?? ""
        }

        func status(_ name: String) -> String { file("\(name).rc").trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    private var session: Task<Outcome, any Error>?

    func outcome() async throws -> Outcome {
        if session == nil { session = Task { try await Self.run() } }
        return try await session!.value
    }

    private static func run() async throws -> Outcome {
        try KernelTierEnvironment.require()
        let folder = Guest.folder("usb-serial")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let logFile = "\(folder)/board.jsonl"
        let board = try await HostPeer.start(
            "cdc_acm_board.py", python: "\(KernelTierEnvironment.venv)/bin/python", ["--log", logFile])
        do {
            var guest = Guest()
            guest.environment = ["ESPTOOL_REPEAT": "\(esptoolRepeat)"]
            guest.forwards = [(3240, try board.port("port")), (3241, try board.port("marks_port"))]
            let resets = BlerigCommands.resets.map { "\($0.name)\t\($0.command)\n" }.joined()
            try resets.write(toFile: "\(folder)/blerig-resets.tsv", atomically: true, encoding: .utf8)
            try BlerigCommands.console.write(toFile: "\(folder)/blerig-console.cmd", atomically: true, encoding: .utf8)
            let run = try await guest.run(
                "\(KernelTierEnvironment.scripts)/guest/usb_serial_session.sh \(folder)", folder: folder)
            await board.stop()
            guard run.status == 0 else {
                throw KernelTierFailure("the USB serial session failed: \(run)\n\(run.consoleTail)\n\(board.stderrTail)")
            }
            let log = try BoardLog(file: logFile)
            print("kernel-tier usb-serial: boot \(run.bootSeconds ?? -1) s, session \(run.commandSeconds ?? -1) s")
            return Outcome(run: run, log: log, folder: folder)
        } catch {
            await board.stop()
            throw error
        }
    }
}

extension KernelTier {
    @Suite struct USBSerialTests {
        /// esptool (PyPI, nobody here wrote it) run against the board: its four `default-reset` attempts arrive as
        /// esptool's own UnixTight and Classic grammars, each ending in download mode, with their waits.
        @Test func esptoolsDefaultResetReachesTheBoardAsItsFourGrammarsEachIntoDownloadMode() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            let attempts = BoardLog.attempts(try outcome.log.phase("esptool-default"))
            let esptoolLog = (try? String(contentsOfFile: "\(outcome.folder)/esptool-default.log", encoding: .utf8)) ?? ""
            try #require(attempts.count >= 4, "esptool made \(attempts.count) resets, not 4:\n\(esptoolLog)")
            for (shape, attempt) in zip(ResetShape.defaultResetAttempts, attempts) {
                let steps = BoardLog.steps(attempt)
                let run = try #require(shape.match(in: steps), "no \(shape) among \(steps)")
                print("kernel-tier esptool \(shape.name): " + Self.timeline(run))
                // A wait is a minimum; the guest's scheduling under TCG (and a loaded host) stretches it. This
                // checks the waits are there; their precision is compared with blerig's below.
                #expect(shape.waitErrors(run, late: 0.250) == [])
                #expect(attempt.contains { $0.event == "boot" && $0.mode == "download" }, "\(shape.name): no download boot")
            }
            // The download banner went up the bulk-in pipe and esptool read it through the kernel's cdc-acm.
            #expect(esptoolLog.contains("Download mode successfully detected"), "\(esptoolLog)")
        }

        /// esptool's reset classes (`esptool.reset`, run by esptool_resets.py) arrive at the board as their
        /// grammars, every run, with their waits.
        @Test func esptoolsResetClassesReachTheBoardAsTheirGrammars() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            #expect(outcome.status("esptool-resets") == "0", "\(outcome.file("esptool-resets.log"))")
            for (name, shape) in Self.esptoolClasses {
                let runs = try Self.esptoolRuns(name, shape, in: outcome)
                try #require(runs.count == USBSerialSession.esptoolRepeat, "esptool \(name): \(runs.count) runs")
                for run in runs {
                    print("kernel-tier esptool \(name): " + Self.timeline(run))
                    #expect(shape.waitErrors(run, late: 0.250) == [])
                }
            }
        }

        /// blerig's presets against esptool's resets on the same board, step by step within 10 ms: each step's time
        /// since the previous change, the least of each side's runs (blerig three times, esptool's classes five times
        /// and its CLI's attempt where it has one). The rig's own preset (`esp-usb`, esp32-unix-tight) and the
        /// others given with `--wiring`; esp32-* into the bootloader, hard-reset to run.
        @Test func blerigsResetPresetsGiveEsptoolsSequencesWithin10msPerStep() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            let cli = BoardLog.attempts(try outcome.log.phase("esptool-default")).map { BoardLog.steps($0) }
            let references: [(preset: String, esptool: String, cli: [LineStep]?)] = [
                ("esp32-unix-tight", "UnixTight", cli.first),
                ("esp32-usb-jtag", "USBJTAGSerial", nil),
                ("esp32-classic", "Classic", cli.count > 2 ? cli[2] : nil),
                ("hard-reset", "HardReset", nil),
            ]
            for reference in references {
                let shape = try #require(Self.esptoolClasses.first { $0.name == reference.esptool }?.shape)
                var blerigRuns: [[LineStep]] = []
                for run in 1...BlerigCommands.presetRuns {
                    let name = "\(reference.preset)-\(run)"
                    #expect(outcome.status("blerig-\(name)") == "0", "\(name): \(outcome.file("blerig-\(name).log"))")
                    let phase = try outcome.log.phase("blerig \(name)")
                    let steps = BoardLog.steps(phase)
                    let matched = try #require(shape.match(in: steps), "\(name): no \(shape) in \(steps)")
                    blerigRuns.append(matched)
                    // The board ends up as esptool's reset leaves it: in download mode, or running.
                    let esptoolPhase = try outcome.log.phase("esptool \(reference.esptool) \(run)")
                    let boot = esptoolPhase.last { $0.event == "boot" }?.mode
                    #expect(boot != nil && phase.last { $0.event == "boot" }?.mode == boot, "\(name): boots \(phase)")
                }
                var esptoolRuns = try Self.esptoolRuns(reference.esptool, shape, in: outcome)
                if let attempt = reference.cli, let matched = shape.match(in: attempt) { esptoolRuns.append(matched) }
                let comparison = TimelineComparison(
                    titles: ("blerig", "esptool"), shape: shape, left: blerigRuns, right: esptoolRuns)
                print("kernel-tier \(reference.preset) against esptool \(shape):\n\(comparison)")
                #expect(comparison.mismatches(tolerance: 0.010) == [], "\(comparison)")
            }
        }

        /// `blerig reset nano-usb --bootloader` (the rig's arduino-1200-touch, the board named by its USB serial
        /// number): the board leaves the bus and its bootloader comes back with PID 005a, which blerig names.
        @Test func blerigsTouchBringsUpTheBootloaderPortAndFollowsIt() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            let log = outcome.file("blerig-touch.log")
            print("kernel-tier blerig touch: \(log.split(separator: "\n").joined(separator: " / "))")
            #expect(outcome.status("blerig-touch") == "0", "\(log)")
            #expect(log.contains("bootloader port: /dev/ttyACM"), "\(log)")
            #expect(log.contains("id:1a86:005a"), "\(log)")
            let phase = try outcome.log.phase("blerig touch")
            #expect(phase.contains { $0.event == "line_coding" && $0.baud == 1200 })
            #expect(phase.contains { $0.event == "reenumerate" && $0.pid == "005a" })
            #expect(phase.contains { $0.event == "connection" && $0.pid == "005a" })
        }

        /// `blerig console esp-usb` (the board named /dev/ttyACM0 in the rig) holds the port while another process
        /// makes the board re-enumerate: the console says the port went and came back, and a line typed after it
        /// reaches the board under its new PID and is answered.
        @Test func blerigConsoleFollowsTheBoardAcrossReenumeration() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            let out = outcome.file("console.out")
            let err = outcome.file("console.err")
            let times = outcome.file("console-times.txt")
            let context = "console.out:\n\(out)\nconsole.err:\n\(err)\ntimes:\n\(times)"
            print("kernel-tier blerig console across re-enumeration (guest uptime): "
                + times.split(separator: "\n").joined(separator: ", "))
            let answers = out.split(separator: "\n").filter { $0.contains("status: mode=") }
            try #require(answers.count == 2, "\(context)")
            #expect(answers[0].hasSuffix("status: mode=bootloader pid=005a"), "\(context)")
            #expect(answers[1].hasSuffix("status: mode=run pid=55d3"), "\(context)")
            // --timestamps: each line with its arrival time and the boot it belongs to.
            #expect(answers.allSatisfy { $0.hasPrefix("[") && $0.contains("] boot ") }, "\(context)")
            #expect(err.contains("waiting for it to come back"), "\(context)")
            #expect(err.contains("serial port back as /dev/ttyACM"), "\(context)")
            let touch = try outcome.log.phase("console-touch")
            #expect(touch.contains { $0.event == "reenumerate" && $0.pid == "55d3" })
            #expect(touch.filter { $0.event == "command" }.count == 1, "the typed line after the re-enumeration")
        }

        /// The 1200-baud touch (`stty 1200` and the close dropping DTR): the board leaves the bus and comes back
        /// with its bootloader's PID, as a new ttyACM that the guest's kernel enumerated.
        @Test func the1200BaudTouchBringsTheBoardBackWithItsBootloaderPID() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            struct Touch: Decodable {
                let gone_s: Double?
                let back_s: Double?
                let back: String?
                let usb_product: String?
                let product_before: String?
                let error: String?
            }
            let data = try Data(contentsOf: URL(filePath: "\(outcome.folder)/touch.json"))
            let touch = try JSONDecoder().decode(Touch.self, from: data)
            print(
                "kernel-tier 1200-baud touch: ttyACM gone \(touch.gone_s.map(ms) ?? "-") after stty started, back "
                    + "\(touch.back_s.map(ms) ?? "-") after it left, as \(touch.back ?? "-") (PID \(touch.usb_product ?? "-"))")
            #expect(touch.error == nil, "\(touch.error ?? "")")
            #expect(touch.product_before == "55d3")
            #expect(touch.usb_product == "005a")
            let phase = try outcome.log.phase("touch")
            #expect(phase.contains { $0.event == "line_coding" && $0.baud == 1200 })
            #expect(phase.contains { $0.event == "reenumerate" && $0.pid == "005a" })
            #expect(phase.contains { $0.event == "connection" && $0.pid == "005a" })
        }

        /// esptool's reset classes as esptool_resets.py names them, with their grammars.
        static let esptoolClasses: [(name: String, shape: ResetShape)] = [
            ("UnixTight", .unixTight), ("USBJTAGSerial", .usbJTAGSerial), ("Classic", .classic),
            ("HardReset", .hardReset),
        ]

        /// The runs of esptool's class `name`, each matched to `shape` in its phase.
        static func esptoolRuns(
            _ name: String, _ shape: ResetShape, in outcome: USBSerialSession.Outcome
        ) throws -> [[LineStep]] {
            try (1...USBSerialSession.esptoolRepeat).map { run in
                let steps = BoardLog.steps(try outcome.log.phase("esptool \(name) \(run)"))
                guard let matched = shape.match(in: steps) else {
                    throw KernelTierFailure("esptool \(name) \(run): no \(shape) among \(steps)")
                }
                return matched
            }
        }

        static func timeline(_ run: [LineStep]) -> String {
            run.map { "\($0) +\(ms($0.t - run[0].t))" }.joined(separator: ", ")
        }
    }
}

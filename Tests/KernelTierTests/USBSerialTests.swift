import Foundation
import Testing

/// One boot for every USB serial test: the USB/IP CDC-ACM board (cdc_acm_board.py) on the host, and in the
/// guest usb_serial_session.sh, which attaches it with `usbip attach` and runs esptool, blerig's presets (once
/// `blerig reset` exists) and the 1200-baud touch against /dev/ttyACM0, marking each phase in the board's log.
actor USBSerialSession {
    static let shared = USBSerialSession()

    struct Outcome: Sendable {
        let run: Guest.Run
        let log: BoardLog
        let folder: String
        let ranBlerig: Bool
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
            guest.forwards = [(3240, try board.port("port")), (3241, try board.port("marks_port"))]
            let ranBlerig = BlerigCommands.hasReset
            if ranBlerig {
                guest.environment = ["BLERIG_RESET": "1", "BLERIG_RESET_COMMAND": BlerigCommands.resetCommand]
            }
            let run = try await guest.run(
                "\(KernelTierEnvironment.scripts)/guest/usb_serial_session.sh \(folder)", folder: folder)
            await board.stop()
            guard run.status == 0 else {
                throw KernelTierFailure("the USB serial session failed: \(run)\n\(run.consoleTail)\n\(board.stderrTail)")
            }
            let log = try BoardLog(file: logFile)
            print("kernel-tier usb-serial: boot \(run.bootSeconds ?? -1) s, session \(run.commandSeconds ?? -1) s")
            return Outcome(run: run, log: log, folder: folder, ranBlerig: ranBlerig)
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
                // A wait is a minimum; the guest's scheduling under TCG stretches it a little.
                #expect(shape.waitErrors(run, late: 0.060) == [])
                #expect(attempt.contains { $0.event == "boot" && $0.mode == "download" }, "\(shape.name): no download boot")
            }
            // The download banner went up the bulk-in pipe and esptool read it through the kernel's cdc-acm.
            #expect(esptoolLog.contains("Download mode successfully detected"), "\(esptoolLog)")
        }

        @Test func esptoolsUSBResetReachesTheBoardAsUSBJTAGSerial() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            let steps = BoardLog.steps(try outcome.log.phase("esptool-usb"))
            let shape = ResetShape.usbJTAGSerial
            let run = try #require(shape.match(in: steps), "no \(shape) among \(steps)")
            print("kernel-tier esptool \(shape.name): " + Self.timeline(run))
            #expect(shape.waitErrors(run, late: 0.060) == [])
        }

        /// blerig's presets against esptool's resets on the same board, step by step within 10 ms.
        @Test(.enabled(if: BlerigCommands.hasReset, BlerigCommands.missingReason("reset")))
        func blerigsResetPresetsGiveEsptoolsSequencesWithin10msPerStep() async throws {
            let outcome = try await USBSerialSession.shared.outcome()
            try #require(outcome.ranBlerig, "the session ran without blerig reset")
            let esptool = BoardLog.attempts(try outcome.log.phase("esptool-default")).map { BoardLog.steps($0) }
            let esptoolUSB = BoardLog.steps(try outcome.log.phase("esptool-usb"))
            let references: [(preset: String, shape: ResetShape, esptool: [LineStep]?)] = [
                ("esp32-unix-tight", .unixTight, esptool.first),
                ("esp32-classic", .classic, esptool.count > 2 ? esptool[2] : nil),
                ("esp32-usb-jtag", .usbJTAGSerial, esptoolUSB),
                // esptool's hard reset runs only after it talked to a chip: checked against its grammar instead.
                ("hard-reset", .hardReset, nil),
            ]
            for reference in references {
                let status = try String(contentsOfFile: "\(outcome.folder)/blerig-\(reference.preset).rc", encoding: .utf8)
                let blerigLog = (try? String(contentsOfFile: "\(outcome.folder)/blerig-\(reference.preset).log", encoding: .utf8)) ?? ""
                #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(reference.preset): \(blerigLog)")
                let blerigSteps = BoardLog.steps(try outcome.log.phase("blerig \(reference.preset)"))
                let blerig = try #require(
                    reference.shape.match(in: blerigSteps), "\(reference.preset): no \(reference.shape) in \(blerigSteps)")
                if let esptoolSteps = reference.esptool {
                    let esptoolRun = try #require(reference.shape.match(in: esptoolSteps))
                    let comparison = TimelineComparison(titles: ("blerig", "esptool"), left: blerig, right: esptoolRun)
                    print("kernel-tier \(reference.preset) against esptool \(reference.shape.name):\n\(comparison)")
                    #expect(comparison.mismatches(tolerance: 0.010) == [], "\(comparison)")
                } else {
                    print("kernel-tier \(reference.preset): " + Self.timeline(blerig))
                    #expect(reference.shape.waitErrors(blerig, late: 0.010, early: 0.010) == [])
                }
            }
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

        static func timeline(_ run: [LineStep]) -> String {
            run.map { "\($0) +\(ms($0.t - run[0].t))" }.joined(separator: ", ")
        }
    }
}

import Foundation
import Testing

/// The blerig command lines the kernel tier runs in the guest, against the rigs in Tests/KernelTier/fixtures/. A
/// command that is not built yet (`doctor`, `discover` while they were being written) makes its test skip with
/// the reason until `blerig <command> --help` prints that command's own usage.
enum BlerigCommands {
    static func has(_ command: String) -> Bool { help(command).usage }

    /// `blerig <command> --help`: its exit status, and whether it printed `USAGE: blerig <command>`. (The exit
    /// status alone does not tell: for an unknown command ArgumentParser prints blerig's help and exits 0.)
    static func help(_ command: String) -> (status: Int32?, usage: Bool) {
        let process = Process()
        process.executableURL = URL(filePath: KernelTierEnvironment.blerig)
        process.arguments = [command, "--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (nil, false) }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let usage = output.contains("USAGE: blerig \(command) ") || output.contains("USAGE: blerig \(command)\n")
        return (process.terminationStatus, process.terminationStatus == 0 && usage)
    }

    static func missingReason(_ command: String) -> Comment {
        let seen = help(command)
        let what = seen.status.map { "exits \($0) with blerig's own usage" } ?? "cannot run"
        return Comment(rawValue: "blerig \(command) is not in the binary yet (`blerig \(command) --help` \(what))")
    }


    static let fixtures = "\(KernelTierEnvironment.scripts)/fixtures"
    static var blerig: String { KernelTierEnvironment.blerig }

    /// One `blerig reset` run in the USB serial session.
    struct Reset: Sendable {
        /// The phase name (`blerig NAME` in the board's log, `blerig-NAME.log` in the guest's folder).
        let name: String
        let command: String
    }

    /// How often each preset runs (each side's step is the least of its runs; see ``TimelineComparison``).
    static let presetRuns = 3

    /// blerig's ESP32 presets into the bootloader (esptool's `--before` resets) and the hard reset, as
    /// `PRESET-RUN`: the rig's own preset through the board's id (`esp-usb` is wired `esp32-unix-tight`), the
    /// others with `--port` and `--wiring`, as on a bench without a rig. Then the 1200-baud touch through the rig's
    /// `nano-usb`, once.
    static var resets: [Reset] {
        let rig = "\(fixtures)/usb-serial.yaml"
        let port = "--port /dev/ttyACM0"
        let presets = [
            ("esp32-unix-tight", "\(blerig) reset esp-usb --rig \(rig) --bootloader"),
            ("esp32-classic", "\(blerig) reset \(port) --wiring esp32-classic --bootloader"),
            ("esp32-usb-jtag", "\(blerig) reset \(port) --wiring esp32-usb-jtag --bootloader"),
            ("hard-reset", "\(blerig) reset \(port) --wiring hard-reset"),
        ]
        let runs = (1...presetRuns).flatMap { run in presets.map { Reset(name: "\($0.0)-\(run)", command: $0.1) } }
        return runs + [Reset(name: "touch", command: "\(blerig) reset nano-usb --rig \(rig) --bootloader")]
    }

    /// `blerig console` on the USB/IP board, named by its tty in the rig: lines typed come from a FIFO.
    static var console: String {
        "\(blerig) console esp-usb --rig \(fixtures)/usb-serial.yaml --timestamps --duration 60"
    }

    /// `blerig power` on the gadget board behind dummy_hcd's root hub port 1, without the action.
    static var power: String { "\(blerig) power gadget --rig \(fixtures)/dummy-hub.yaml" }

    /// `blerig doctor` with the rig whose bindings it resolves.
    static var doctor: String { "\(blerig) doctor \(fixtures)/hci-vhci.yaml" }
}

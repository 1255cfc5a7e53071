import Foundation
import Testing

/// Which of the board-control commands the blerig binary under test has: a test that needs one is skipped with
/// the reason until `blerig <command> --help` prints that command's own usage, and runs from the build that adds
/// it. (The exit status alone does not tell: for an unknown command ArgumentParser prints blerig's help and exits 0.)
enum BlerigCommands {
    static func has(_ command: String) -> Bool { help(command).usage }

    /// `blerig <command> --help`: its exit status, and whether it printed `USAGE: blerig <command>`.
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

    static let hasReset = has("reset")
    static let hasPower = has("power")
    static let hasDoctor = has("doctor")

    /// The rig the board-control commands run against in the guest (Tests/KernelTier/fixtures/).
    static let fixtures = "\(KernelTierEnvironment.scripts)/fixtures"

    /// `blerig reset` on the USB/IP board, without the `--sequence` the session adds per preset. The command's
    /// shape follows issue 14 (`blerig reset BOARD [--sequence S]`, the rig named by `--rig`); adjust here if the
    /// command lands with another one.
    static var resetCommand: String {
        "\(KernelTierEnvironment.blerig) reset --rig \(fixtures)/usb-serial.yaml esp-usb"
    }

    /// `blerig power` on the gadget board behind dummy_hcd's root hub port 1, without on/off.
    static var powerCommand: String {
        "\(KernelTierEnvironment.blerig) power --rig \(fixtures)/dummy-hub.yaml gadget"
    }

    /// `blerig doctor` with the rig whose bindings it resolves.
    static var doctorCommand: String { "\(KernelTierEnvironment.blerig) doctor \(fixtures)/hci-vhci.yaml" }
}

import Foundation
import Radios

/// One boot of Debian's kernel under qemu running one command (Tests/KernelTier/boot.py), with the host's root
/// shared read-only: blerig, the venvs and the apt tools are there inside.
struct Guest: Sendable {
    /// A virtio-serial port: /dev/virtio-ports/`name` in the guest, wired to a Unix socket a host peer listens on.
    var ports: [(name: String, socket: String)] = []
    /// Guest TCP connections to 10.0.2.100:`guest` reach 127.0.0.1:`host`.
    var forwards: [(guest: Int, host: Int)] = []
    /// Variables for the command, beside the guest's own (PATH, HOME=/tmp).
    var environment: [String: String] = [:]
    /// The hard limit for boot, command and power-off together.
    var timeout: Duration = .seconds(150)

    struct Run: Sendable, CustomStringConvertible {
        let status: Int32
        let stdout: String
        let stderr: String
        /// qemu start → the command starts, in seconds.
        let bootSeconds: Double?
        let commandSeconds: Double?
        let totalSeconds: Double
        /// The guest's files: console.log, stdout, stderr, and what the command wrote there.
        let folder: String

        var description: String {
            "guest exit \(status) after \(totalSeconds) s (boot \(bootSeconds.map { "\($0)" } ?? "-") s)\n"
                + "--- stdout\n\(stdout.suffix(4000))\n--- stderr\n\(stderr.suffix(4000))"
        }

        /// The console's last lines, for a failure.
        var consoleTail: String {
            let text = (try? String(contentsOfFile: "\(folder)/console.log", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").suffix(25).joined(separator: "\n")
        }
    }

    /// Boots, runs `command` with bash in the guest (in the checkout), and returns when qemu has exited. The
    /// guest's files go to `folder` (created), which the command sees at the same path.
    func run(_ command: String, folder: String) async throws -> Run {
        try KernelTierEnvironment.require()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var arguments = [
            "\(KernelTierEnvironment.scripts)/boot.py", "--out", folder, "--timing", "\(folder)/timing.json",
            "--timeout", "\(timeout.components.seconds)", "--cwd", KernelTierEnvironment.packageRoot, "--quiet",
        ]
        for port in ports { arguments += ["--port", "\(port.name)=\(port.socket)"] }
        for forward in forwards { arguments += ["--forward", "\(forward.guest)=\(forward.host)"] }
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["--env", "\(key)=\(value)"] }
        arguments += ["--", command]
        let stdout = try ProcessOutput(headLimit: 256 * 1024, tailLimit: 256 * 1024)
        let stderr = try ProcessOutput(headLimit: 64 * 1024, tailLimit: 64 * 1024)
        let process = try SupervisedProcess.start(
            "\(KernelTierEnvironment.venv)/bin/python", arguments, stdout: stdout, stderr: stderr, grace: .seconds(2))
        // boot.py kills qemu at --timeout itself; this wait is its backstop.
        let exit = await process.waitForExit(timeout: timeout + .seconds(30))
        await process.stop()
        guard case .exited(let status) = exit else {
            throw KernelTierFailure("boot.py \(exit.map { "\($0)" } ?? "did not end"): \(stderr.text.suffix(3000))")
        }
        struct Timing: Decodable {
            let boot_s: Double?
            let command_s: Double?
            let total_s: Double
        }
        let timing = (try? Data(contentsOf: URL(filePath: "\(folder)/timing.json"))).flatMap {
            try? JSONDecoder().decode(Timing.self, from: $0)
        }
        return Run(
            status: status, stdout: stdout.text, stderr: stderr.text, bootSeconds: timing?.boot_s,
            commandSeconds: timing?.command_s, totalSeconds: timing?.total_s ?? 0, folder: folder)
    }

    /// A fresh folder for one test's guest under the build folder's tmp, named after the test.
    static func folder(_ name: String) -> String {
        let base = "\(KernelTierEnvironment.packageRoot)/.build/kernel-tier/\(name)"
        try? FileManager.default.removeItem(atPath: base)
        return base
    }
}

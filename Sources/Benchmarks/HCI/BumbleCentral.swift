import Foundation
import Radios

/// Bumble's central for ``HCIBenchmark``: `bench_central.py` in one process for the whole run, told what to time
/// through a FIFO (`--control`) so that its handshakes can be timed in parts between blerig's, with the process
/// warm, as blerig's stacks stay open. `HANDSHAKES n` and `WRITES n` answer with a `PART` line, `TAIL` (the stream)
/// with the `RESULT` line; see `share/blerig/peers/README.md`.
final class BumbleCentral {
    private let script: PeerScript
    private let control: Int32
    private let options: HCIBenchmark.Options
    private var parts = 0

    /// Starts the script against `target` on `hci` and waits until it is up and has run its untimed handshake.
    static func start(
        _ options: HCIBenchmark.Options, venv: InteropVenv, peers: String, hci: String, target: String
    ) async throws -> BumbleCentral {
        var template = Array("\(FileManager.default.temporaryDirectory.path)/blerig-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BenchmarkError("bench hci: cannot make a directory for Bumble's control FIFO: \(Errno.current)")
        }
        let directory = String(cString: made)
        let fifo = "\(directory)/control"
        guard mkfifo(fifo, 0o600) == 0 else {
            let error = Errno.current
            try? FileManager.default.removeItem(atPath: directory)
            throw BenchmarkError("bench hci: cannot make the FIFO \(fifo): \(error)")
        }
        let script: PeerScript
        do {
            script = try PeerScript.start(
                "bench_central.py", in: peers, venv: venv,
                [
                    "--hci", hci, "--target", target, "--control", fifo, "--writes", "\(options.writeCount)",
                    "--write-size", "\(options.writeSize)", "--tick-ms", "\(options.tick.milliseconds)",
                    "--phase-seed", "\(options.phaseSeed)", "--stream-ms", "\(Int(options.streamDuration.milliseconds))",
                    "--mtu", "\(options.mtu)",
                ])
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        // The script opens its end (read and write, so that it never sees end-of-file) before READY; this end is
        // opened read and write too, so that a write never fails with EPIPE if the script is gone: the wait for
        // its answer notices the exit instead.
        do {
            _ = try await script.line("READY", timeout: .seconds(60))
        } catch {
            await script.stop()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        let control = Glibc.open(fifo, O_RDWR | O_CLOEXEC)
        let error = Errno.current
        // Both ends are open: the FIFO needs no name any more, and an interrupted run leaves nothing behind.
        try? FileManager.default.removeItem(atPath: directory)
        guard control >= 0 else {
            await script.stop()
            throw BenchmarkError("bench hci: cannot open Bumble's control FIFO \(fifo): \(error)")
        }
        return BumbleCentral(script: script, control: control, options: options)
    }

    private init(script: PeerScript, control: Int32, options: HCIBenchmark.Options) {
        self.script = script
        self.control = control
        self.options = options
    }

    /// `count` more handshakes, timed.
    func part(handshakes count: Int) async throws -> CentralMeasurement {
        try send("HANDSHAKES \(count)")
        parts += 1
        // A handshake takes well under a second.
        let json = try await script.line("PART", number: parts, timeout: .seconds(60) + .seconds(2) * count)
        return try script.decode(CentralMeasurement.self, from: json)
    }

    /// `count` more write requests, timed, on a link of their own.
    func writes(_ count: Int) async throws -> CentralMeasurement {
        try send("WRITES \(count)")
        parts += 1
        let json = try await script.line("PART", number: parts, timeout: .seconds(60) + .milliseconds(100) * count)
        return try script.decode(CentralMeasurement.self, from: json)
    }

    /// The stream; returns it with the versions the script reports.
    func tail() async throws -> (CentralMeasurement, versions: [String: String]) {
        try send("TAIL")
        let limit = Duration.seconds(60) + options.streamDuration
        let json = try await script.line("RESULT", timeout: limit)
        return (
            try script.decode(CentralMeasurement.self, from: json),
            try script.decode(Versions.self, from: json).versions
        )
    }

    /// Ends the script and closes the FIFO.
    func stop() async {
        await script.stop()
        Glibc.close(control)
    }

    private func send(_ command: String) throws(BenchmarkError) {
        let bytes = Array("\(command)\n".utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(control, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw BenchmarkError("bench hci: cannot tell bench_central.py \(command): \(Errno.current)")
        }
    }

    private struct Versions: Decodable {
        var versions: [String: String]
    }
}

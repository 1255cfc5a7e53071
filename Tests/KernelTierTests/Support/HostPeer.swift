import Foundation
import Radios

/// A Python process on the host side of the kernel tier (Tests/KernelTier/*.py): the USB/IP board, the Bumble
/// link. It runs under a ``SupervisedProcess`` (it dies with the test process), prints `READY {json}` once it
/// listens, and exits when its stdin closes.
final class HostPeer: Sendable {
    let script: String
    let process: SupervisedProcess
    /// The READY line's JSON object, each value as text.
    let ready: [String: String]

    private init(script: String, process: SupervisedProcess, ready: [String: String]) {
        self.script = script
        self.process = process
        self.ready = ready
    }

    /// Starts `Tests/KernelTier/<script>` with `python` (a venv's interpreter) and waits for its READY line.
    static func start(
        _ script: String, python: String, _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws -> HostPeer {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let process = try SupervisedProcess.start(
            python, ["\(KernelTierEnvironment.scripts)/\(script)"] + arguments, environment: environment,
            stdout: try ProcessOutput(), stderr: try ProcessOutput(), grace: .seconds(1))
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let exited = process.exit
            if let line = process.stdout.lines(from: 0).lines.first(where: { $0.hasPrefix("READY ") }) {
                let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8))
                guard let ready = json as? [String: Any] else { throw KernelTierFailure("\(script): READY \(line)") }
                return HostPeer(script: script, process: process, ready: ready.mapValues { "\($0)" })
            }
            if let exited {
                throw KernelTierFailure("\(script) \(exited) before READY:\n\(process.stderr.excerpt(lastLines: 25))")
            }
            guard clock.now < deadline else {
                await process.stop()
                throw KernelTierFailure("\(script): no READY within \(timeout):\n\(process.stderr.excerpt())")
            }
            try await clock.sleep(for: .milliseconds(20))
        }
    }

    /// A READY field as text.
    func field(_ name: String) throws -> String {
        guard let value = ready[name] else { throw KernelTierFailure("\(script)'s READY has no \(name)") }
        return value
    }

    func port(_ name: String) throws -> Int {
        guard let port = Int(try field(name)) else { throw KernelTierFailure("\(script)'s \(name) is not a port") }
        return port
    }

    var stderrTail: String { "\(script)'s log ends with:\n\(process.stderr.excerpt(lastLines: 25))" }

    func stop() async { await process.stop() }
}

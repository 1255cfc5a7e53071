import BLECore
import Foundation
import Radios

/// One of the Bumble peer scripts in `share/blerig/peers/`, run by the interop venv's Python under a
/// ``SupervisedProcess`` (so it dies with the test process), with its stdin as the lifeline it watches itself too.
///
/// A peer prints machine-readable lines on stdout (`READY {json}` once up, then `EVENT`, `RESULT` or `ERROR`
/// lines) and logs to stderr, which is quoted in every failure.
final class BumblePeer: Sendable {
    enum Script: String, Sendable {
        case peripheral = "peripheral.py"
        case central = "central.py"
    }

    let script: Script
    let process: SupervisedProcess
    /// The JSON of the READY line.
    let ready: String

    private init(script: Script, process: SupervisedProcess, ready: String) {
        self.script = script
        self.process = process
        self.ready = ready
    }

    /// Starts `script` with `arguments` and waits for its READY line.
    static func start(
        _ script: Script, _ arguments: [String], readyTimeout: Duration = .seconds(20)
    ) async throws -> BumblePeer {
        let venv = try InteropEnvironment.venv()
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let process = try SupervisedProcess.start(
            venv.python, ["\(InteropEnvironment.peersDirectory)/\(script.rawValue)"] + arguments,
            environment: environment, stdout: try Self.machineLines(), stderr: try ProcessOutput(), grace: .seconds(1))
        do {
            let ready = try await line("READY", of: process, script: script, timeout: readyTimeout)
            return BumblePeer(script: script, process: process, ready: ready)
        } catch {
            await process.stop()
            throw error
        }
    }

    /// Waits for the first stdout line of `kind` (`RESULT`, `ERROR`, …) and returns its JSON. A peer that
    /// prints `ERROR` instead fails the wait with that line.
    func line(_ kind: String, timeout: Duration = .seconds(20)) async throws -> String {
        try await Self.line(kind, of: process, script: script, timeout: timeout)
    }

    /// The `EVENT` lines so far, as JSON.
    var events: [String] {
        process.stdout.lines(from: 0).lines.compactMap { $0.hasPrefix("EVENT ") ? String($0.dropFirst(6)) : nil }
    }

    /// Waits until an `EVENT` line satisfies `matches`.
    func event(timeout: Duration = .seconds(10), where matches: (PeerEvent) -> Bool) async throws -> PeerEvent {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let event = try events.map({ try decode(PeerEvent.self, from: $0) }).first(where: matches) {
                return event
            }
            guard clock.now < deadline else { break }
            try await clock.sleep(for: .milliseconds(10))
        }
        throw TestFailure("\(script.rawValue): no such event within \(timeout); events: \(events)\n\(stderrTail)")
    }

    func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(T.self, from: Data(json.utf8))
        } catch {
            throw TestFailure(
                "\(script.rawValue) printed JSON that is not a \(T.self): \(error)\nthe line: \(json.prefix(2000))")
        }
    }

    /// Stdout holds a few machine-readable lines, some long (a central's RESULT with every value in hex).
    private static func machineLines() throws -> ProcessOutput {
        try ProcessOutput(headLimit: 1 << 20, tailLimit: 8 << 20, maximumLineLength: 8 << 20)
    }

    /// The last lines of its stderr log, for failure messages.
    var stderrTail: String { "\(script.rawValue)'s log ends with:\n\(process.stderr.excerpt(lastLines: 25))" }

    func stop() async { await process.stop() }

    private static func line(
        _ kind: String, of process: SupervisedProcess, script: Script, timeout: Duration
    ) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let exited = process.exit
            for line in process.stdout.lines(from: 0).lines {
                if line.hasPrefix("\(kind) ") { return String(line.dropFirst(kind.count + 1)) }
                if line.hasPrefix("ERROR ") {
                    throw TestFailure(
                        "\(script.rawValue) failed: \(line)\n\(process.stderr.excerpt(lastLines: 25))")
                }
            }
            if let exited {
                throw TestFailure(
                    "\(script.rawValue) \(exited) without printing \(kind)\n"
                        + "its log ends with:\n\(process.stderr.excerpt(lastLines: 25))")
            }
            guard clock.now < deadline else {
                throw TestFailure(
                    "\(script.rawValue) printed no \(kind) line within \(timeout)\n"
                        + "its log ends with:\n\(process.stderr.excerpt(lastLines: 25))")
            }
            try await clock.sleep(for: .milliseconds(10))
        }
    }
}

/// peripheral.py's READY line.
struct PeripheralReady: Decodable {
    var address: String
    var name: String
    var hci: String
    var service: String
    /// Attribute handles by role: `short_read`, `long_read`, …, `user_description`.
    var handles: [String: Int]
}

/// An EVENT line of peripheral.py: `connected`, `mtu`, `subscription`, `disconnected`.
struct PeerEvent: Decodable {
    var event: String
    var peer: String?
    var reason: Int?
    var mtu: Int?
    var characteristic: String?
    var notify: Bool?
    var indicate: Bool?
}

/// central.py's RESULT line.
struct CentralResult: Decodable {
    struct Target: Decodable {
        var address: String
        var name: String?
    }

    struct Service: Decodable {
        var uuid: String
        var characteristics: [Characteristic]
    }

    struct Characteristic: Decodable {
        var uuid: String
        var handle: Int
        var properties: [String]
        /// Hex, when the characteristic is readable and the read succeeded.
        var value: String?
        /// The ATT error code, when the read failed.
        var error: Int?
        var descriptors: [Descriptor]
        /// Hex values of the first notifications or indications, when it was subscribed to.
        var notifications: [String]?
        var notificationCount: Int?
    }

    struct Descriptor: Decodable {
        var uuid: String
        var handle: Int
    }

    /// One `--write`, `--write-command`, `--read`, `--pause` or `--answer-challenge`, in the order given.
    struct Action: Decodable {
        var op: String
        /// Nil for a pause.
        var uuid: String?
        /// Hex, for a read that succeeded; the challenge, for `answer_challenge`.
        var value: String?
        /// The ATT error code, for a read or write with response that failed.
        var error: Int?
    }

    var target: Target
    var mtu: Int
    var services: [Service]
    /// The Database Hash Bumble computes over the table it discovered (hex, as the server sends it).
    var databaseHashBumble: String?
    var actions: [Action]
    var notifications: Int
    /// The HCI reason, when the peripheral ended the connection.
    var disconnectReason: Int?
    /// Milliseconds from the start of the scan to the end of each stage.
    var timings: [String: Double]

    /// The characteristic with this UUID, in any service.
    func characteristic(_ uuid: BluetoothUUID) -> Characteristic? {
        services.flatMap(\.characteristics).first { BluetoothUUID($0.uuid) == uuid }
    }
}

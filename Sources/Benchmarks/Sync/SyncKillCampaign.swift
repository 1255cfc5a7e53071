import BLECore
import BenchCore
import Benches
import CentralStack
import Foundation
import IngestServer
import Radios
import Synchronization
import VirtualFarm

/// `blerig bench sync-kills`: the phone app's sync path (`blerig sync-agent`, a real process) killed with SIGKILL at
/// random instants and started again on the same queue file, many times; then the ingest must hold every reading
/// the board made exactly once.
///
/// An esp-point is served on rootcanal by this process (its flash log survives the agent), the real Hummingbird
/// ingest runs here too. Before each kill the board gets `readingsPerKill` new readings and an agent starts; the
/// kill lands at an instant drawn uniformly from `[0, d)`, `d` being how long an agent takes to sync what is still
/// to sync (the readings the ingest does not hold yet) without a kill: `d = a + b·n`, with `a` and `b` measured first
/// from uninterrupted syncs of two loads. A kill after the agent already finished is not counted as a kill, and
/// another is drawn. At the end an agent runs to completion and the ingest and the queue are checked.
public enum SyncKillCampaign {
    public struct Options: Sendable {
        public var kills: Int
        public var seed: UInt64
        /// The `blerig` executable to run as the agent.
        public var binary: String
        public var readingsPerKill = 20
        public var scratch: String

        public init(kills: Int, seed: UInt64, binary: String, scratch: String) {
            self.kills = kills
            self.seed = seed
            self.binary = binary
            self.scratch = scratch
        }
    }

    public struct Result: Sendable {
        public var seed: UInt64
        /// SIGKILLs that hit a running agent.
        public var kills = 0
        /// Kills by the agent's last progress step before it (`opened`, `connected`, `committed`, `acked`, `uploading`,
        /// `confirmed`, `deleted`; `none` before its first line).
        public var killedAfter: [String: Int] = [:]
        /// Agents that finished before their kill instant (no kill).
        public var finishedFirst = 0
        /// Of those, agents that failed on their own (exit status not 0): the board was not reachable.
        public var failedAlone = 0
        /// After which kill the board still held the dead agent's link 3 s later (rootcanal left it open), so the
        /// board was rebooted from its console before the next agent: `kill 412 after connected`.
        public var deadLinks: [String] = []
        /// Readings the board made.
        public var readings = 0
        /// Seqs the board made that the ingest does not hold.
        public var lost: [UInt32] = []
        /// Seqs the ingest holds more than once (under different keys).
        public var duplicates = 0
        /// Seqs the ingest holds that the board never made.
        public var unexpected = 0
        /// Uploads the ingest deduplicated (the at-least-once cost of a kill between upload and delete).
        public var redeliveries = 0
        public var pendingInQueue = 0
        public var deadLetters = 0
        /// An uninterrupted sync of `n` readings takes `syncFixed + n × syncPerReading` (measured before the kills).
        public var syncFixed: Duration = .zero
        public var syncPerReading: Duration = .zero
        public var wall: Duration = .zero

        public var passed: Bool {
            kills > 0 && lost.isEmpty && duplicates == 0 && unexpected == 0 && pendingInQueue == 0 && deadLetters == 0
        }

        /// The first dead links, saying so when there were more.
        private var deadLinksListed: String {
            let shown = 5
            switch deadLinks.count {
            case 0: return ""
            case ...shown: return ": " + deadLinks.joined(separator: "; ")
            default: return " (the first \(shown)): " + deadLinks.prefix(shown).joined(separator: "; ")
            }
        }

        public var lines: [String] {
            [
                "seed          \(seed)",
                "kills         \(kills) SIGKILLs at uniform random instants over a sync (uninterrupted: "
                    + "\(String(format: "%.3f", syncFixed.seconds)) s + n × "
                    + "\(String(format: "%.2f", syncPerReading.seconds * 1000)) ms for n readings); "
                    + "\(finishedFirst) agents finished before their instant (\(failedAlone) of them failed)",
                "dead links    \(deadLinks.count) kills left the board holding the dead agent's link 3 s later; "
                    + "rebooted from its console" + deadLinksListed,
                "killed after  "
                    + killedAfter.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
                "readings      \(readings)",
                "lost          \(lost.count)" + (lost.isEmpty ? "" : " (first: \(lost.prefix(10)))"),
                "duplicates    \(duplicates)  (\(redeliveries) redeliveries deduplicated by the ingest)",
                "queue         \(pendingInQueue) pending, \(deadLetters) dead-lettered; unexpected seqs \(unexpected)",
                "wall          \(String(format: "%.1f", wall.seconds)) s",
                passed ? "verdict       passed" : "verdict       FAILED",
            ]
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs the campaign; `progress` gets a line now and then.
    public static func run(
        _ options: Options, rootcanal rootcanalOptions: RootcanalProcess.Options = .init(),
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> Result {
        let started = ContinuousClock.now
        let rootcanal = try await RootcanalProcess.start(rootcanalOptions)
        let server = try await IngestServer.start()
        let queuePath = (options.scratch as NSString).appendingPathComponent("sync-kills-queue.sqlite")
        var result = Result(seed: options.seed)
        do {
            let controller = try HCITransportSpec.parse(rootcanal.hciSpec)
            var settings = VirtualBoardSettings(address: DeviceAddress(0x240A_C412_5C02))
            settings.sampleInterval = 86_400
            // Room for every reading of the campaign: a ring that overwrote unacknowledged records would lose them
            // on the board (visibly, in `dropped`), which is not what this campaign measures.
            settings.logCapacity = 1 << 17
            let board = VirtualBenchConfiguration.Board(id: "esp-kills", profile: .espPoint, settings: settings)
            result = try await ServedFarm.run(
                boards: [board], seed: options.seed, controller: controller, clock: WallClock()
            ) { boards in
                try await campaign(
                    options, board: boards[0], radio: rootcanal.hciSpec, ingest: server, queuePath: queuePath,
                    progress: progress)
            }
        } catch {
            await server.stop()
            await rootcanal.stop()
            throw error
        }
        let held = server.snapshot.held.values.map(\.reading.seq)
        let unique = Set(held)
        let made = Set(1...UInt32(max(1, result.readings)))
        result.lost = made.subtracting(unique).sorted()
        result.duplicates = held.count - unique.count
        result.unexpected = unique.subtracting(made).count
        result.redeliveries = server.snapshot.redeliveries
        let queue = try SyncQueue(path: queuePath)
        result.pendingInQueue = try queue.pendingCount()
        result.deadLetters = try queue.deadLetters().count
        await server.stop()
        await rootcanal.stop()
        result.wall = started.duration(to: .now)
        return result
    }

    private static func campaign(
        _ options: Options, board: BenchBoard, radio: String, ingest: IngestServer, queuePath: String,
        progress: @escaping @Sendable (String) -> Void
    ) async throws -> Result {
        var result = Result(seed: options.seed)
        guard let power = board.power, let console = board.console, let address = board.match.address else {
            throw Failure("the served board has no power switch, console or address")
        }
        let links = LinkCount()
        console.attach { entry in links.take(entry.text) }
        try await power.on()
        try await Task.sleep(for: .milliseconds(500))
        /// Whether the board still holds a link 3 s after its agent died: asked with `status` every 100 ms.
        func holdsDeadLink() async throws -> Bool {
            for _ in 0..<30 {
                links.clear()
                try await console.send("status")
                for _ in 0..<20 where links.count == nil { try await Task.sleep(for: .milliseconds(5)) }
                if links.count == 0 { return false }
                try await Task.sleep(for: .milliseconds(100))
            }
            return true
        }
        let boardAddress = "\(address.description.replacingOccurrences(of: " (random)", with: ""))/random"
        let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }
        var random = SeededRandom(seed: options.seed, stream: "sync-kills")
        func fill(_ count: Int) async throws {
            try await console.send("log-fill \(count)")
            result.readings += count
        }
        func agent() throws -> SupervisedProcess {
            try SupervisedProcess.start(
                options.binary,
                [
                    "sync-agent", "--radio", radio, "--board", boardAddress, "--queue", queuePath, "--ingest",
                    ingest.url.absoluteString, "--key", Hex.encode(key),
                ], stdout: try ProcessOutput())
        }
        func finish(_ process: SupervisedProcess, within timeout: Duration) async throws -> Duration {
            let begun = ContinuousClock.now
            guard let exit = await process.waitForExit(timeout: timeout) else {
                kill(-process.pid, SIGKILL)
                _ = await process.waitForExit(timeout: .seconds(10))
                throw Failure("an uninterrupted agent did not finish within \(timeout): \(process.stdout.excerpt())")
            }
            guard exit == .exited(0) else { throw Failure("the agent failed (\(exit)): \(process.stdout.excerpt())") }
            return begun.duration(to: .now)
        }

        // Calibration: how long a sync of n readings takes, from the agent's start to its exit, at two loads.
        func measure(_ load: Int) async throws -> Duration {
            var samples: [Duration] = []
            for _ in 0..<3 {
                try await fill(load)
                let began = ContinuousClock.now
                _ = try await finish(try agent(), within: .seconds(120))
                samples.append(began.duration(to: .now))
            }
            return samples.sorted()[1]
        }
        let small = options.readingsPerKill
        let large = options.readingsPerKill * 10
        let (short, long) = (try await measure(small), try await measure(large))
        let perReading = max(.zero, (long - short) / (large - small))
        let fixed = max(.milliseconds(1), short - perReading * small)
        (result.syncFixed, result.syncPerReading) = (fixed, perReading)
        progress("an uninterrupted sync of n readings takes \(fixed) + n × \(perReading); killing at random within it")
        try await fill(options.readingsPerKill)

        var attempts = 0
        var reported = 0
        while result.kills < options.kills {
            attempts += 1
            guard attempts <= options.kills * 3 else {
                throw Failure("only \(result.kills) of \(options.kills) kills landed in \(attempts - 1) agent runs")
            }
            let backlog = max(0, result.readings - ingest.snapshot.held.count)
            let at = (fixed + perReading * backlog) * random.nextUnit()
            let process = try agent()
            try await Task.sleep(for: at)
            var killedAfter = "its own end"
            if let exit = process.exit {
                result.finishedFirst += 1
                if exit != .exited(0) { result.failedAlone += 1 }
            } else {
                kill(-process.pid, SIGKILL)
                result.kills += 1
                // "7 committed 17 up_to=34" → "committed"
                let last = process.stdout.text.split(separator: "\n").last { $0.first?.isNumber == true }
                let step = last.flatMap { $0.split(separator: " ").dropFirst().first }.map(String.init) ?? "none"
                result.killedAfter[step, default: 0] += 1
                killedAfter = step
            }
            guard await process.waitForExit(timeout: .seconds(10)) != nil else {
                throw Failure("agent \(process.pid) survived SIGKILL")
            }
            // A real board's controller ends a link whose central went silent (supervision timeout); rootcanal
            // sometimes keeps the link of a central killed mid-connection, and the board would never advertise
            // again. Counted and reported; the board is rebooted as the rig's recovery would.
            if try await holdsDeadLink() {
                result.deadLinks.append("kill \(result.kills) after \(killedAfter)")
                try await console.send("reboot")
                try await Task.sleep(for: .seconds(1))
            }
            try await fill(options.readingsPerKill)
            if result.kills % 50 == 0, result.kills > reported {
                reported = result.kills
                progress("\(result.kills) kills, \(result.readings) readings")
            }
        }
        // A last agent without a kill finishes the job; as the app, it tries again when the board is not yet
        // advertising (still holding the killed agent's link until its supervision timeout).
        for attempt in 1...5 {
            do {
                _ = try await finish(try agent(), within: .seconds(300))
                break
            } catch let error as Failure where attempt < 5 {
                progress("the last agent failed (\(error)); again")
            }
        }
        try await power.off()
        return result
    }
}

/// The board's link count as its last `status` line said (`… connected=N`); nil until one comes.
final class LinkCount: Sendable {
    private let value = Mutex<Int?>(nil)

    func take(_ line: String) {
        guard line.contains("status fw="), let range = line.range(of: "connected=") else { return }
        let digits = line[range.upperBound...].prefix { $0.isNumber }
        if let count = Int(digits) { value.withLock { $0 = count } }
    }

    func clear() { value.withLock { $0 = nil } }
    var count: Int? { value.withLock { $0 } }
}

import BLECore
import BenchCore
import DeviceProfiles
import Reports
import Synchronization

/// What the orchestrator knows from one board's console: the latest boot and whether it reached `READY`. Fed by
/// the console driver's handler; read by the strategy to tell a board that boots but is not heard on the air from
/// one that does not boot at all. A board described as data is read with its profile's console patterns: its boot
/// banner, its ready line, and its error lines (logged as errors).
final class ConsoleMonitor: Sendable {
    struct Boot: Sendable, Hashable {
        var id: UInt32
        var started: RigInstant
        /// Nil when a described board's banner does not say.
        var reset: ConsoleLine.ResetReason?
        /// When the boot printed `READY`.
        var ready: RigInstant?
    }

    private let state = Mutex<(boots: Int, latest: Boot?)>((0, nil))
    /// A described board's console patterns; nil for the built-in profiles, whose lines are the contract's.
    private let patterns: Mutex<DataProfile.Console.Matcher?>
    /// Lines that matched a described board's error patterns.
    private let errorCount = Mutex(0)

    init(profile: Profile = .espPoint) {
        patterns = Mutex(profile.data.flatMap { DataProfile.Console.Matcher($0.console) })
    }

    /// The severity of a line: the board's own level letter, or error for a described board's error pattern.
    func level(of entry: ConsoleEntry) -> LogLevel {
        if case .error = meaning(of: entry) { return .error }
        return entry.level
    }

    /// Lines that matched the profile's error patterns so far.
    var errorLines: Int { errorCount.withLock { $0 } }

    private func meaning(of entry: ConsoleEntry) -> DataProfile.Console.Matcher.Meaning? {
        patterns.withLock { $0?.meaning(of: entry.text) }
    }
    /// The latest lines, for suites that check what the board printed (at most ``recentLimit``).
    private let recent = Mutex<[ConsoleEntry]>([])
    static let recentLimit = 8192

    /// The lines that arrived at or after `instant`, in order, as far back as the kept history reaches.
    func entries(since instant: RigInstant) -> [ConsoleEntry] {
        recent.withLock { lines in Array(lines.drop { $0.at < instant }) }
    }

    func take(_ entry: ConsoleEntry) {
        recent.withLock { lines in
            if lines.count >= Self.recentLimit { lines.removeFirst(Self.recentLimit / 4) }
            lines.append(entry)
        }
        if let meaning = meaning(of: entry) {
            switch meaning {
            case .boot(let reset):
                state.withLock {
                    $0 = ($0.boots + 1, Boot(id: entry.boot ?? UInt32($0.boots + 1), started: entry.at, reset: reset))
                }
            case .ready:
                state.withLock { state in
                    if state.latest?.ready == nil { state.latest?.ready = entry.at }
                }
            case .error: errorCount.withLock { $0 += 1 }
            case .other: break
            }
            return
        }
        switch entry.line {
        case let .boot(_, _, reset, bootID):
            state.withLock { $0 = ($0.boots + 1, Boot(id: bootID, started: entry.at, reset: reset)) }
        case .ready:
            state.withLock { state in
                if state.latest?.ready == nil { state.latest?.ready = entry.at }
            }
        default:
            break
        }
    }

    /// The latest boot the console showed, if any.
    var latest: Boot? { state.withLock { $0.latest } }

    /// Boots seen since the run began.
    var boots: Int { state.withLock { $0.boots } }
}

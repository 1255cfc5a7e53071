import BLECore
import BenchCore
import DeviceProfiles
import Synchronization

/// What the orchestrator knows from one board's console: the latest boot and whether it reached `READY`. Fed by
/// the console driver's handler; read by the strategy to tell a board that boots but is not heard on the air from
/// one that does not boot at all.
final class ConsoleMonitor: Sendable {
    struct Boot: Sendable, Hashable {
        var id: UInt32
        var started: RigInstant
        var reset: ConsoleLine.ResetReason
        /// When the boot printed `READY`.
        var ready: RigInstant?
    }

    private let state = Mutex<(boots: Int, latest: Boot?)>((0, nil))
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

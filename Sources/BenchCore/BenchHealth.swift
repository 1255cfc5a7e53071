import BLECore
import Synchronization

/// A part of the bench that failed while the run used it: a controller whose transport closed, a process blerig
/// started that exited, a serial port that vanished.
public struct BenchFault: Sendable, Hashable, CustomStringConvertible {
    /// What failed, as a person finds it: `radio 'r1' (hci tcp:127.0.0.1:6402)`, `rootcanal (pid 4242)`.
    public var part: String
    /// What happened to it: `the transport closed: connection reset by peer`, `exited with status 137`.
    public var cause: String
    /// The board the part belongs to (its serial port, its hub port); nil when the whole bench depends on it.
    public var board: String?
    /// When it was noticed, on the bench clock.
    public var at: RigInstant

    public init(part: String, cause: String, board: String? = nil, at: RigInstant) {
        self.part = part
        self.cause = cause
        self.board = board
        self.at = at
    }

    /// Whether the fault touches `board`: its own parts, and every part the whole bench depends on. For a nil
    /// board, whether it touches the whole bench.
    public func affects(_ board: String?) -> Bool { self.board == nil || self.board == board }

    public var description: String { "\(part) failed: \(cause)" }
}

/// Where the bench's parts say they failed, and where the campaign learns it at once. A driver that notices its
/// part die (a transport's reader sees the socket close, a supervisor reaps its child) calls ``report(_:)``; the
/// campaign races every check against ``nextFault(affecting:)`` and ends the check as an infrastructure error
/// the moment a fault touches its board, and refuses a pass to a check during which one was reported.
public final class BenchHealth: Sendable {
    private struct State {
        var faults: [BenchFault] = []
        var waiters: [UInt64: (board: String?, continuation: CheckedContinuation<BenchFault?, Never>)] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Records a fault and wakes everyone waiting on a board it affects.
    public func report(_ fault: BenchFault) {
        let woken = state.withLock { state in
            state.faults.append(fault)
            let matching = state.waiters.filter { fault.affects($0.value.board) }
            for key in matching.keys { state.waiters[key] = nil }
            return matching.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: fault) }
    }

    /// Every fault reported so far, in order.
    public var faults: [BenchFault] { state.withLock { $0.faults } }

    /// The first fault reported so far that affects `board`. A bench part that failed stays failed for the rest
    /// of the run, so any such fault still stands.
    public func fault(affecting board: String) -> BenchFault? {
        state.withLock { $0.faults.first { $0.affects(board) } }
    }

    /// Waits for a fault that affects `board`, or for a nil board one that affects the whole bench (returns at
    /// once if one was reported already); nil if the waiting task is cancelled.
    public func nextFault(affecting board: String?) async -> BenchFault? {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate = state.withLock { state -> BenchFault?? in
                    if let fault = state.faults.first(where: { $0.affects(board) }) { return .some(fault) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = (board, continuation)
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: nil)
        }
    }
}

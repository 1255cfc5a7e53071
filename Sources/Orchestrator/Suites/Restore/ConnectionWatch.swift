import BLECore
import CentralStack
import Synchronization

/// Keeps the transitions and the connection attempts an app central reported, and lets a suite wait, on the
/// bench clock, until the transitions satisfy a condition.
final class ConnectionWatch: Sendable {
    private struct Waiter {
        let condition: @Sendable ([ConnectionTransition]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }
    private struct State {
        var transitions: [ConnectionTransition] = []
        var attempts: [LinkAttempt] = []
        var waiters: [UInt64: Waiter] = [:]
        var next: UInt64 = 0
    }
    private let state = Mutex(State())

    var transitions: [ConnectionTransition] { state.withLock { $0.transitions } }
    /// Every connection attempt reported so far, in order (``LinkAttempt``).
    var attempts: [LinkAttempt] { state.withLock { $0.attempts } }

    func add(_ report: ConnectionShell.Report) {
        if case .attempt(let attempt, _) = report { state.withLock { $0.attempts.append(attempt) } }
        guard case .notice(.transition(let transition), _) = report else { return }
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.transitions.append(transition)
            let met = s.waiters.filter { $0.value.condition(s.transitions) }
            for id in met.keys { s.waiters[id] = nil }
            return met.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits until `condition` holds for the transitions so far, for at most `limit` on `clock`.
    func wait(
        for what: String, within limit: Duration, clock: any RigClock,
        until condition: @escaping @Sendable ([ConnectionTransition]) -> Bool
    ) async throws(SessionError) {
        try await withTimeout(limit, clock: clock, waitingFor: what) { await self.wait(until: condition) }
    }

    private func wait(until condition: @escaping @Sendable ([ConnectionTransition]) -> Bool) async {
        let id = state.withLock { s -> UInt64 in
            s.next += 1
            return s.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if condition(s.transitions) || Task.isCancelled { return true }
                    s.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// True once the machine has reached `state`.
    static func reached(_ state: ConnectionState) -> @Sendable ([ConnectionTransition]) -> Bool {
        { $0.contains { $0.to == state } }
    }

    /// True once the machine has seen more than `count` links lost (not closed by it): moves from a connected state
    /// to ``ConnectionState/pairedDisconnected`` whose cause is a lost link.
    static func linksLost(moreThan count: Int) -> @Sendable ([ConnectionTransition]) -> Bool {
        { lost(in: $0) > count }
    }

    /// How many links the machine saw lost in `transitions`.
    static func lost(in transitions: [ConnectionTransition]) -> Int {
        transitions.count { $0.to == .pairedDisconnected && $0.cause.hasPrefix("link lost") }
    }
}

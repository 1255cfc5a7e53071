import BenchCore
import Synchronization

/// Hands out radio links to boards so that no radio is asked for more links than its controller holds. A board
/// that finds every radio it may use full waits in line (first come, first served; a board pinned to a busy radio
/// does not hold up one behind it that can use another), and gets the first link freed on a radio it may use.
/// Waiting is measured on the bench clock and reported per board.
final class LinkScheduler: Sendable {
    /// A link slot held on one radio.
    struct Lease: Sendable {
        let radio: Int
        fileprivate let id: UInt64
    }

    private struct Waiter {
        let id: UInt64
        let allowed: [Int]
        let continuation: CheckedContinuation<Lease?, Never>
    }

    private struct State {
        var inUse: [Int]
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    let limits: [Int]
    private let state: Mutex<State>

    /// `limits[i]`: the most links radio `i` holds.
    init(limits: [Int]) {
        precondition(!limits.isEmpty && limits.allSatisfy { $0 > 0 })
        self.limits = limits
        state = Mutex(State(inUse: limits.map { _ in 0 }))
    }

    /// Links in use on each radio.
    var inUse: [Int] { state.withLock { $0.inUse } }

    /// Boards waiting for a link.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// A link on one of the `allowed` radios (all of them when empty): at once if one has room (the least busy,
    /// then the first), else when one frees up. Nil when the waiting task is cancelled.
    func acquire(allowed: [Int] = []) async -> Lease? {
        let allowed = allowed.isEmpty ? Array(limits.indices) : allowed
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Lease?, Never>) in
                let immediate = state.withLock { state -> Lease?? in
                    if Task.isCancelled { return .some(nil) }
                    let free = allowed.filter { state.inUse[$0] < limits[$0] }
                    if let radio = free.min(by: { state.inUse[$0] < state.inUse[$1] }) {
                        state.inUse[radio] += 1
                        return .some(Lease(radio: radio, id: id))
                    }
                    state.waiting.append(Waiter(id: id, allowed: allowed, continuation: continuation))
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(returning: nil)
        }
    }

    /// Gives a link back; the first board waiting that may use its radio gets it.
    func release(_ lease: Lease) {
        let next = state.withLock { state -> (Waiter, Lease)? in
            if let index = state.waiting.firstIndex(where: { $0.allowed.contains(lease.radio) }) {
                let waiter = state.waiting.remove(at: index)
                return (waiter, Lease(radio: lease.radio, id: waiter.id))
            }
            state.inUse[lease.radio] -= 1
            return nil
        }
        if let (waiter, handed) = next { waiter.continuation.resume(returning: handed) }
    }
}

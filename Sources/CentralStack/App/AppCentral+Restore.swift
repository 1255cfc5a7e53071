import BLECore
import Foundation

/// Restoration as the app holds it: the saved state read at start, and the work it says was pending taken over by
/// the work the app asks for again.
///
/// A killed app's queued work is saved as a count (``ConnectionSnapshot/pendingWork``): the machine restored with it
/// reconnects at once, because work is pending. The restarted app asks for that work again from its own records (the
/// sync queue, the update it had begun); each piece it asks for first takes over one restored item instead of
/// queuing one more, so the count stays what the app really has and the link closes once that work is done. Work
/// beyond the restored count is queued as usual.
extension AppCentral {
    /// What the store holds, judged at the app's wall clock: a state younger than
    /// ``ConnectionRestoration/maximumAge`` is restored; ``ConnectionRestoration/nothingSaved`` without a store.
    /// Pass its ``ConnectionRestoration/snapshot`` to ``run(restoring:)`` or ``running(restoring:_:)``.
    public func restoration() -> ConnectionRestoration {
        guard let store = shell.store else { return .nothingSaved }
        return ConnectionRestoration.load(from: store, now: shell.wallClock())
    }

    /// Restored items of work that no work has taken over yet.
    public var restoredWorkLeft: Int { restoredWork.withLock { $0 } }

    /// The restored state's pending work becomes this app's to take over. Called once, before the machine runs: a
    /// state is restored only into a fresh machine, which then counts exactly this work as pending.
    func adopt(_ restoring: ConnectionSnapshot) {
        restoredWork.withLock { $0 = max(0, restoring.pendingWork) }
    }

    /// Counts one piece of work as queued: it takes over a restored item when one is left (the machine already
    /// counts it), or else queues one, handled before this returns so that a link the machine chose to close when
    /// earlier work completed is not leased. Pair with `shell.send(.workCompleted(1))`.
    func queueWork() async {
        let tookOver = restoredWork.withLock { left -> Bool in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        if !tookOver { await shell.deliver(.workQueued(1)) }
    }
}

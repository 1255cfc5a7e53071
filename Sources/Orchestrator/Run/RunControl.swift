import Synchronization

/// Stops a run early. A signal handler, the global `--timeout`, the bench-time horizon or a failing report file
/// calls ``interrupt(_:)``; the campaign waits in ``interrupted()``, then cancels the checks in flight (they are
/// recorded as interrupted), leaves the boards as the rig says and writes every report. The first reason wins.
public final class RunControl: Sendable {
    /// Why a run stopped early.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// A signal arrived (SIGINT, SIGTERM).
        case signal(Int32)
        /// The global `--timeout` passed, on the wall clock.
        case timeout(Duration)
        /// The campaign's bench-time horizon passed (virtual time on the virtual farm).
        case horizon(Duration)
        /// Something the run depends on failed: a report file could not be written, a radio went away.
        case infrastructure(String)

        public var description: String {
            switch self {
            case let .signal(number): "\(Self.signalName(number)) received"
            case let .timeout(limit): "--timeout \(RunControl.durationText(limit)) reached"
            case let .horizon(limit): "the horizon of \(RunControl.durationText(limit)) of bench time reached"
            case let .infrastructure(message): message
            }
        }

        /// The exit status a run stopped for this reason ends with.
        public var exitStatus: ExitStatus {
            if case .infrastructure = self { return .infrastructure }
            return .interrupted
        }

        static func signalName(_ number: Int32) -> String {
            switch number {
            case 1: "SIGHUP"
            case 2: "SIGINT"
            case 13: "SIGPIPE"
            case 15: "SIGTERM"
            default: "signal \(number)"
            }
        }
    }

    private struct State {
        var reason: Reason?
        var waiters: [UInt64: CheckedContinuation<Reason?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Why the run was stopped; nil while it runs on.
    public var reason: Reason? { state.withLock { $0.reason } }

    /// Stops the run for `reason`. Returns false when it had already been stopped (the first reason stays).
    @discardableResult
    public func interrupt(_ reason: Reason) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Reason?, Never>]? in
            guard state.reason == nil else { return nil }
            state.reason = reason
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: reason) }
        return true
    }

    /// Waits until the run is stopped and returns why; returns nil at once if the waiting task is cancelled.
    public func interrupted() async -> Reason? {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate = state.withLock { state -> Reason?? in
                    if let reason = state.reason { return .some(reason) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// `90 s`, `1.5 s`, `3600 s`.
    static func durationText(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\(seconds) s"
    }
}

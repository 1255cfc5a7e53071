import BLECore
import Synchronization

/// Whether an ``HCICentral``'s radio is switched on, and who watches it.
final class HCIRadioPowerState: Sendable {
    struct State {
        var on = true
        var observers: [Int: AsyncStream<Bool>.Continuation] = [:]
        var next = 0
    }
    let state = Mutex(State())
}

extension HCICentral: RadioPower {
    public var isPoweredOn: Bool { power.state.withLock { $0.on } }

    public func powerStates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let id = power.state.withLock { state -> Int in
            state.next += 1
            state.observers[state.next] = continuation
            continuation.yield(state.on)
            return state.next
        }
        continuation.onTermination = { [power] _ in _ = power.state.withLock { $0.observers.removeValue(forKey: id) } }
        return stream
    }

    /// Switching off does what a host does when its adapter is powered down: every scan ends, attempts in progress
    /// are cancelled, and every link is closed with reason 0x15 (remote device terminated due to power off), which
    /// the peer sees; it returns once the controller has confirmed the links down (or after two seconds). The
    /// controller itself stays open, so switching on again is immediate.
    public func setPowered(_ on: Bool) async throws(CentralError) {
        let observers = power.state.withLock { state -> [AsyncStream<Bool>.Continuation]? in
            guard state.on != on else { return nil }
            state.on = on
            return state.observers.keys.sorted().compactMap { state.observers[$0] }
        }
        guard let observers else { return }
        if !on { await stack.powerDown(grace: .seconds(2)) }
        for observer in observers { observer.yield(on) }
    }
}

extension HCIStack {
    /// Ends every scan, cancels every connection attempt and closes every link with 0x15, then waits up to `grace`
    /// for the links to be down.
    func powerDown(grace: Duration) async {
        let (scans, attempts, handles) = state.withLock { state in
            (state.scans.values.map(\.continuation), Array(state.attempts.keys), Array(state.host.links.keys))
        }
        // Outside the lock: a finished scan's termination handler takes it.
        for scan in scans { scan.finish() }
        for peer in attempts { run { host, now in host.cancelConnect(to: peer, at: now) } }
        for handle in handles { run { host, now in host.disconnect(handle, reason: .remotePowerOff, at: now) } }
        let deadline = clock.now.advanced(by: grace)
        while clock.now < deadline, state.withLock({ !$0.host.links.isEmpty && !$0.closed }) {
            try? await clock.sleep(for: .milliseconds(5))
        }
    }
}

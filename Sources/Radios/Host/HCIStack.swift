import BLECore
import BenchCore
import Synchronization

/// blerig's HCI host on a live transport: the thin shell around the sans-I/O ``HCIHost``. The host decides; the
/// shell carries out its actions: it writes the packets the host sends, labels each packet with the device the
/// host says it concerns (for per-board captures), keeps the host's deadline and the links' timers on a timer
/// thread (``HCIStackTimers``), and delivers the events the host reports.
///
/// Packets from the controller are handled on the transport's reader thread under one lock (and tasks that prefer
/// ``executor`` run there next, when a packet made them runnable); packets to the controller are written under the
/// same lock, so every ACL fragment and command leaves in the order the host produced it. What the host reports is
/// delivered after the lock is released: to the scans, the connection attempts and the links of the ``Central``
/// side (``HCIStack+Delivery.swift``), and to the peripheral side's handlers. A write that fails ends the stack as
/// the transport closing does: every waiter fails and ``whenTransportCloses(_:)`` hears why (a bench fault).
public final class HCIStack: Sendable {
    public let transport: any HCITransport
    public let clock: any RigClock
    /// Runs the tasks that prefer it on the transport's reader thread when a packet makes them runnable (see
    /// ``HCIStackExecutor``): `withTaskExecutorPreference(stack.executor) { … }` around a central's work saves a
    /// thread hop per response.
    public let executor = HCIStackExecutor()
    let state: Mutex<State>
    let timers: HCIStackTimers

    struct State: ~Copyable {
        var host: HCIHost
        var closed = false
        /// Told when the transport closes or fails under the running stack.
        var closedHandlers: [@Sendable (String) -> Void] = []
        var failure: String?
        var readyWaiters: [CheckedContinuation<Result<HCIHost.ControllerInfo, HCIStackError>, Never>] = []
        /// A shutdown waiting for the last link to go.
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        var scans: [Int: Scan] = [:]
        var reportCache: [DeviceAddress: (data: [UInt8], scanResponse: [UInt8])] = [:]
        /// Scannable advertisers whose advertisement waits for its scan response.
        var awaitingResponse: Set<DeviceAddress> = []
        var attempts: [DeviceAddress: CheckedContinuation<Result<HCIHost.Link, HCIErrorCode>, Never>] = [:]
        var links: [UInt16: any HCILinkHandler] = [:]
        var sendWaiters: [UInt16: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextKey = 0
        var capture: (any CaptureSink)?
        var captureName = ""
        var counters = Counters()
        /// Called for links this stack did not initiate (it advertised): the peripheral side.
        var accept: (@Sendable (HCIHost.Link) -> (any HCILinkHandler)?)?
        var events: [@Sendable (HCIHost.Event) -> Void] = []
        /// The host deadline the timer thread was last given (`.none`: none given since its last tick), so that a
        /// packet that leaves the deadline as it was costs no call to the timer thread.
        var givenDeadline: RigInstant?? = .none
    }

    struct Scan {
        var filter: ScanFilter
        var seen: Set<DeviceAddress> = []
        var continuation: AsyncStream<Advertisement>.Continuation
    }

    struct Counters {
        var packetsIn = 0
        var packetsOut = 0
        var aclBytesOut = 0
        var aclBytesIn = 0
        var warnings = 0
    }

    init(transport: any HCITransport, configuration: HCIHost.Configuration, clock: any RigClock) {
        self.transport = transport
        self.clock = clock
        state = Mutex(State(host: HCIHost(configuration: configuration)))
        let tick = WeakStack()
        timers = HCIStackTimers(clock: clock) { tick.stack?.tickHost() }
        tick.stack = self
    }

    /// Opens the transport, initialises the controller and returns the running stack. Throws when the
    /// controller does not come up within `timeout` (the transport is closed then).
    public static func open(
        _ transport: any HCITransport, configuration: HCIHost.Configuration = .init(),
        clock: any RigClock = WallClock(),
        timeout: Duration = .seconds(10)
    ) async throws(HCIStackError) -> HCIStack {
        let stack = HCIStack(transport: transport, configuration: configuration, clock: clock)
        transport.start(
            packet: { [weak stack] packet in stack?.receive(packet) },
            closed: { [weak stack] error in stack?.transportClosed(error) })
        stack.run { host, now in host.start(at: now) }
        let late = HCIStackError(
            "the controller on \(transport) did not finish initialising within \(timeout.seconds) s")
        stack.timers.add(at: clock.now.advanced(by: timeout), for: .shutdown) { [weak stack] in
            stack?.failWaiters(late)
        }
        typealias Outcome = Result<HCIHost.ControllerInfo, HCIStackError>
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let now = stack.state.withLock { state -> Outcome? in
                if let failure = state.failure { return .failure(HCIStackError(failure)) }
                if let info = state.host.controller, state.host.phase == .ready { return .success(info) }
                state.readyWaiters.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        stack.timers.drop(.shutdown)
        switch result {
        case .success:
            return stack
        case let .failure(error):
            stack.close()
            throw error
        }
    }

    /// What the controller said about itself.
    public var controller: HCIHost.ControllerInfo? { state.withLock { $0.host.controller } }

    /// The links up now.
    public var links: [HCIHost.Link] { state.withLock { Array($0.host.links.values) } }

    /// Why the stack stopped working, or nil while it works.
    public var failure: String? { state.withLock { $0.failure } }

    /// Calls `observer` with every event the host reports, after the stack's own handling (for tests and logs).
    public func observe(_ observer: @escaping @Sendable (HCIHost.Event) -> Void) {
        state.withLock { $0.events.append(observer) }
    }

    /// Sends every HCI packet to `sink` as radio `name`, tagged with the device the host says it concerns.
    public func capture(into sink: any CaptureSink, as name: String) {
        state.withLock {
            $0.capture = sink
            $0.captureName = name
        }
    }

    /// Stops sending packets to the sink ``capture(into:as:)`` gave.
    public func stopCapture() { state.withLock { $0.capture = nil } }

    /// Calls `handler` with the reason when the transport closes or fails under the running stack (the
    /// controller vanished, its process died, a write failed), at once; not when ``shutdown(grace:)`` or
    /// ``close()`` closes it.
    public func whenTransportCloses(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.closedHandlers.append(handler) }
    }

    /// Disconnects every link and waits until the controller confirmed them all, or `grace` passed; then closes
    /// the transport.
    public func shutdown(grace: Duration = .seconds(1)) async {
        let handles = state.withLock { state in state.closed ? [] : Array(state.host.links.keys) }
        for handle in handles { run { host, now in host.disconnect(handle, reason: .remoteUserTerminated, at: now) } }
        timers.add(at: clock.now.advanced(by: grace), for: .shutdown) { [weak self] in self?.resumeDrainWaiters() }
        await withCheckedContinuation { continuation in
            let drained = state.withLock { state -> Bool in
                if state.closed || state.host.links.isEmpty { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
        close()
    }

    /// Closes the transport at once; every link goes down with 0x16, scans end, waiters fail.
    public func close() {
        // Closed first, so that the transport's own report of closing is not taken for a failure.
        failAll("the stack was closed", reason: .localHostTerminated)
        transport.close()
    }

    // MARK: - Running the host

    /// Runs one host call under the lock, writes what it sends, then delivers what it reports.
    @discardableResult
    func run(_ body: (inout HCIHost, RigInstant) -> [HCIHost.Action]) -> [HCIHost.Event] {
        let now = clock.now
        let outcome = state.withLock { state -> Performed in
            guard !state.closed else { return Performed() }
            let actions = body(&state.host, now)
            return perform(actions, &state, at: now)
        }
        finish(outcome)
        return outcome.events
    }

    /// What carrying out a host call's actions left to do once the lock is released.
    struct Performed {
        var events: [HCIHost.Event] = []
        /// Why a write to the transport failed.
        var writeFailure: String?
        var deadline: RigInstant??
    }

    func perform(_ actions: [HCIHost.Action], _ state: inout State, at now: RigInstant) -> Performed {
        var performed = Performed()
        for action in actions {
            switch action {
            case let .send(packet, about):
                state.capture?.record(
                    radio: state.captureName, peer: about, packet: packet, direction: .hostToController, at: now)
                state.counters.packetsOut += 1
                if packet.type == .aclData { state.counters.aclBytesOut += packet.body.count - 4 }
                guard performed.writeFailure == nil else { continue }
                do { try transport.send(packet) } catch {
                    performed.writeFailure = "writing to \(transport) failed: \(error)"
                }
            case .received:
                break  // a label, taken by receive(_:)
            case let .event(event):
                performed.events.append(event)
            }
        }
        let deadline = state.host.nextDeadline
        if state.givenDeadline != .some(deadline) {
            state.givenDeadline = .some(deadline)
            performed.deadline = .some(deadline)
        }
        return performed
    }

    /// The timer thread reached the host's deadline (and forgot it): the host's next one is given afresh.
    private func tickHost() {
        state.withLock { $0.givenDeadline = .none }
        run { host, now in host.tick(at: now) }
    }

    /// After the lock: the host's deadline to the timer thread, a failed write ends the stack, events delivered.
    func finish(_ performed: Performed) {
        if let deadline = performed.deadline { timers.hostDeadline(deadline) }
        if let failure = performed.writeFailure {
            // The controller is unreachable: end as if the transport closed, and stop reading from it too.
            transportFailed(failure, reason: .unspecifiedError)
            transport.close()
        }
        deliver(performed.events)
    }

    func receive(_ packet: HCI.H4Packet) {
        executor.delivering {
            let now = clock.now
            let outcome = state.withLock { state -> Performed in
                guard !state.closed else { return Performed() }
                state.counters.packetsIn += 1
                if packet.type == .aclData { state.counters.aclBytesIn += max(0, packet.body.count - 4) }
                let actions = state.host.receive(packet, at: now)
                if let capture = state.capture {
                    var about: DeviceAddress?
                    if case let .received(device)? = actions.first { about = device }
                    capture.record(
                        radio: state.captureName, peer: about, packet: packet, direction: .controllerToHost, at: now)
                }
                return perform(actions, &state, at: now)
            }
            finish(outcome)
        }
        // After the jobs the packet resumed, which may have sent the next request.
        let (coalesce, bytes) = state.withLock { state in
            state.closed || !state.host.completionsCanWait ? (false, 0) : (true, state.host.bytesBeforeAnswer)
        }
        transport.coalesceShortPackets(coalesce, atLeast: bytes)
    }

    func transportClosed(_ error: HCITransportError?) {
        let reason = error.map { "the transport \(transport) failed: \($0)" } ?? "the transport \(transport) closed"
        transportFailed(reason, reason: error == nil ? .localHostTerminated : .unspecifiedError)
    }

    /// The transport went away under the running stack: everything fails, and the handlers hear why.
    private func transportFailed(_ why: String, reason: HCIErrorCode) {
        let handlers = state.withLock { state in state.closed ? [] : state.closedHandlers }
        failAll(why, reason: reason)
        for handler in handlers { handler(why) }
    }

    func failAll(_ why: String, reason: HCIErrorCode) {
        timers.stop()
        let (links, scans, attempts, waiters, sendWaiters, drainWaiters) = state.withLock { state in
            if !state.closed, state.failure == nil { state.failure = why }
            state.closed = true
            defer {
                state.links = [:]
                state.scans = [:]
                state.attempts = [:]
                state.readyWaiters = []
                state.sendWaiters = [:]
                state.drainWaiters = []
            }
            return (
                state.links, state.scans, state.attempts, state.readyWaiters,
                state.sendWaiters.values.flatMap(\.values), state.drainWaiters
            )
        }
        for (_, handler) in links { handler.linkDown(reason) }
        for (_, scan) in scans { scan.continuation.finish() }
        for (_, attempt) in attempts { attempt.resume(returning: .failure(reason)) }
        for waiter in waiters { waiter.resume(returning: .failure(HCIStackError(why))) }
        for waiter in sendWaiters { waiter.resume() }
        for waiter in drainWaiters { waiter.resume() }
    }

    private func failWaiters(_ error: HCIStackError) {
        let waiters = state.withLock { state in
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume(returning: .failure(error)) }
    }

    func resumeDrainWaiters() {
        let waiters = state.withLock { state in
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `action` once the clock reaches `deadline`, unless link `handle` goes down first; returns false once
    /// the stack is closed or the link is gone.
    func schedule(at deadline: RigInstant, on handle: UInt16, _ action: @escaping @Sendable () -> Void) -> Bool {
        guard state.withLock({ !$0.closed && $0.host.links[handle] != nil }) else { return false }
        return timers.add(at: deadline, for: .link(handle), action)
    }
}

/// The stack as its timer thread's tick sees it: not kept alive by it.
private final class WeakStack: @unchecked Sendable {
    // @unchecked Sendable: `stack` is set once, in the stack's initialiser, before the timer thread can tick
    // (ticks follow a host deadline, which follows the stack's first host call).
    weak var stack: HCIStack?
}

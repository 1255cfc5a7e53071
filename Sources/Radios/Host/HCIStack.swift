import BLECore
import BenchCore
import Synchronization

/// blerig's HCI host on a live transport: the thin shell around the sans-I/O ``HCIHost``. Packets from the
/// controller are handled on the transport's reader thread under one lock (and tasks that prefer ``executor`` run
/// there next, when a packet made them runnable); packets to the controller are written
/// under the same lock, so every ACL fragment and command leaves in the order the host produced it. What the host
/// reports is delivered after the lock is released: to the scans, the connection attempts and the links of the
/// ``Central`` side, and to the peripheral side's handlers.
public final class HCIStack: Sendable {
    public let transport: any HCITransport
    public let clock: any RigClock
    /// Runs the tasks that prefer it on the transport's reader thread when a packet makes them runnable (see
    /// ``HCIStackExecutor``): `withTaskExecutorPreference(stack.executor) { … }` around a central's work saves a
    /// thread hop per response.
    public let executor = HCIStackExecutor()
    let state: Mutex<State>

    struct State: ~Copyable {
        var host: HCIHost
        var closed = false
        /// Told when the transport closes under the running stack.
        var closedHandlers: [@Sendable (String) -> Void] = []
        var failure: String?
        /// The failure came from a write, not from the transport closing: the reader's reason, which usually says
        /// more (the controller vanished, not just "closed"), replaces it when it arrives.
        var failureFromWrite = false
        var readyWaiters: [CheckedContinuation<Result<HCIHost.ControllerInfo, HCIStackError>, Never>] = []
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
        /// Timers the links' GATT clients asked for (``schedule(at:on:_:)``) and connection attempts' timeouts,
        /// fired by the tick loop.
        var timers: [Timer] = []
        /// The tick loop, and when it wakes next.
        var ticker: Task<Void, Never>?
        var tickerWakes: RigInstant?
    }

    struct Timer {
        var deadline: RigInstant
        var owner: TimerOwner
        var action: @Sendable () -> Void
    }

    /// What a timer belongs to: it is dropped when that ends.
    enum TimerOwner: Hashable {
        case link(UInt16)
        case attempt(DeviceAddress)
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
        stack.startTicker()
        let result = await withTaskGroup(of: Result<HCIHost.ControllerInfo, HCIStackError>?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let now = stack.state.withLock { state -> Result<HCIHost.ControllerInfo, HCIStackError>? in
                        if let failure = state.failure { return .failure(HCIStackError(failure)) }
                        if let info = state.host.controller, state.host.phase == .ready { return .success(info) }
                        state.readyWaiters.append(continuation)
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await group.next()!
            if first == nil {
                // The waiter child is parked on a continuation: end it, or the group would wait for it.
                stack.failWaiters(
                    HCIStackError(
                        "the controller on \(transport) did not finish initialising within \(timeout.seconds) s"))
            }
            group.cancelAll()
            return first
        }
        switch result {
        case .success?:
            return stack
        case let .failure(error)?:
            stack.stopTicker()
            stack.close()
            throw error
        case nil:
            stack.stopTicker()
            let error = HCIStackError(
                "the controller on \(transport) did not finish initialising within \(timeout.seconds) s")
            stack.failWaiters(error)
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

    /// Sends every HCI packet to `sink` as radio `name`, tagged with the peer of its link.
    public func capture(into sink: any CaptureSink, as name: String) {
        state.withLock {
            $0.capture = sink
            $0.captureName = name
        }
    }

    /// Disconnects every link (waiting up to `grace` for the controller to confirm), then closes the transport.
    public func shutdown(grace: Duration = .seconds(1)) async {
        let handles = state.withLock { state in state.closed ? [] : Array(state.host.links.keys) }
        for handle in handles { run { host, now in host.disconnect(handle, reason: .remoteUserTerminated, at: now) } }
        let deadline = clock.now.advanced(by: grace)
        while clock.now < deadline, state.withLock({ !$0.host.links.isEmpty && !$0.closed }) {
            try? await clock.sleep(for: .milliseconds(5))
        }
        close()
    }

    /// Closes the transport at once; every link goes down with 0x16, scans end, waiters fail.
    public func close() {
        transport.close()
        failAll("the stack was closed", reason: .localHostTerminated)
    }

    // MARK: - Running the host

    /// Runs one host call under the lock, writes what it sends, then delivers what it reports.
    @discardableResult
    func run(_ body: (inout HCIHost, RigInstant) -> [HCIHost.Action]) -> [HCIHost.Event] {
        let now = clock.now
        let events = state.withLock { state -> [HCIHost.Event] in
            guard !state.closed else { return [] }
            let actions = body(&state.host, now)
            return perform(actions, &state, at: now)
        }
        deliver(events)
        return events
    }

    private func perform(_ actions: [HCIHost.Action], _ state: inout State, at now: RigInstant) -> [HCIHost.Event] {
        var events: [HCIHost.Event] = []
        for action in actions {
            switch action {
            case let .send(packet):
                record(packet, .hostToController, &state, at: now)
                state.counters.packetsOut += 1
                if packet.type == .aclData { state.counters.aclBytesOut += packet.body.count - 4 }
                do { try transport.send(packet) } catch  where state.failure == nil {
                    state.failure = "writing to \(transport) failed: \(error)"
                    state.failureFromWrite = true
                } catch {}
            case let .event(event):
                events.append(event)
            }
        }
        return events
    }

    private func record(
        _ packet: HCI.H4Packet, _ direction: HCI.Direction, _ state: inout State, at now: RigInstant,
        peer known: DeviceAddress?? = nil
    ) {
        guard let sink = state.capture else { return }
        sink.record(
            radio: state.captureName, peer: known ?? Self.peer(of: packet, state.host.links), packet: packet,
            direction: direction, at: now)
    }

    /// The device a packet concerns, so that each board's capture holds its own link's traffic: the link of an
    /// ACL packet or of an event or command naming a handle, the peer of a connection attempt.
    static func peer(of packet: HCI.H4Packet, _ links: [UInt16: HCIHost.Link]) -> DeviceAddress? {
        func link(_ handle: UInt16) -> DeviceAddress? { links[handle & 0x0FFF]?.peer }
        switch packet.type {
        case .aclData:
            guard packet.body.count >= 2 else { return nil }
            return link(UInt16(packet.body[0]) | UInt16(packet.body[1]) << 8)
        case .event:
            guard let event = try? HCI.Event(decoding: HCI.EventPacket(decoding: packet.body)) else { return nil }
            switch event {
            case let .leConnectionComplete(complete): return complete.status == .success ? complete.peerAddress : nil
            case let .disconnectionComplete(complete): return link(complete.handle)
            case let .numberOfCompletedPackets(entries): return entries.first.flatMap { link($0.handle) }
            case let .leConnectionUpdateComplete(_, handle, _, _, _),
                let .leRemoteConnectionParameterRequest(handle, _),
                let .leDataLengthChange(handle, _, _, _, _), let .lePHYUpdateComplete(_, handle, _, _):
                return link(handle)
            default: return nil
            }
        case .command:
            guard let command = try? HCI.Command(decoding: HCI.CommandPacket(decoding: packet.body)) else { return nil }
            switch command {
            case let .leCreateConnection(request), let .leExtendedCreateConnection(request): return request.peer
            case let .disconnect(handle, _), let .leConnectionUpdate(handle, _), let .leSetDataLength(handle, _, _),
                let .leSetPHY(handle, _, _), let .leRemoteConnectionParameterRequestReply(handle, _),
                let .leRemoteConnectionParameterRequestNegativeReply(handle, _):
                return link(handle)
            default: return nil
            }
        default: return nil
        }
    }

    func receive(_ packet: HCI.H4Packet) {
        executor.delivering {
            let now = clock.now
            let events = state.withLock { state -> [HCIHost.Event] in
                guard !state.closed else { return [] }
                state.counters.packetsIn += 1
                if packet.type == .aclData { state.counters.aclBytesIn += max(0, packet.body.count - 4) }
                // A disconnection's peer is known only before the host forgets the link.
                let peer = state.capture == nil ? nil : Self.peer(of: packet, state.host.links)
                let actions = state.host.receive(packet, at: now)
                // Already looked up: an advertising report with no peer is not decoded a second time.
                record(packet, .controllerToHost, &state, at: now, peer: .some(peer))
                return perform(actions, &state, at: now)
            }
            deliver(events)
        }
    }

    func transportClosed(_ error: HCITransportError?) {
        let reason = error.map { "the transport \(transport) failed: \($0)" } ?? "the transport \(transport) closed"
        let handlers = state.withLock { state in state.closed ? [] : state.closedHandlers }
        failAll(reason, reason: error == nil ? .localHostTerminated : .unspecifiedError)
        for handler in handlers { handler(reason) }
    }

    /// Calls `handler` with the reason when the transport closes or fails under the running stack (the
    /// controller vanished, its process died), at once; not when ``shutdown(grace:)`` closes it.
    public func whenTransportCloses(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.closedHandlers.append(handler) }
    }

    private func failAll(_ why: String, reason: HCIErrorCode) {
        let (links, scans, attempts, waiters, sendWaiters) = state.withLock { state in
            let wasClosed = state.closed
            state.closed = true
            if (state.failure == nil || state.failureFromWrite) && !wasClosed {
                state.failure = why
                state.failureFromWrite = false
            }
            defer {
                state.links = [:]
                state.scans = [:]
                state.attempts = [:]
                state.readyWaiters = []
                state.sendWaiters = [:]
                state.timers = []
            }
            return (
                state.links, state.scans, state.attempts, state.readyWaiters,
                state.sendWaiters.values.flatMap(\.values)
            )
        }
        for (_, handler) in links { handler.linkDown(reason) }
        for (_, scan) in scans { scan.continuation.finish() }
        for (_, attempt) in attempts { attempt.resume(returning: .failure(reason)) }
        for waiter in waiters { waiter.resume(returning: .failure(HCIStackError(why))) }
        for waiter in sendWaiters { waiter.resume() }
    }

    private func failWaiters(_ error: HCIStackError) {
        let waiters = state.withLock { state in
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume(returning: .failure(error)) }
    }

    /// Calls ``HCIHost/tick(at:)`` at the host's deadlines (command timeouts), and runs the links' timers at
    /// theirs, until the stack closes; wakes at least once a second.
    private func tickLoop() async {
        while !Task.isCancelled {
            let latest = clock.now.advanced(by: .seconds(1))
            let (closed, wake) = state.withLock { state -> (Bool, RigInstant) in
                var wake = min(state.host.nextDeadline ?? latest, latest)
                for timer in state.timers { wake = min(wake, timer.deadline) }
                state.tickerWakes = wake
                return (state.closed, wake)
            }
            if closed { return }
            do { try await clock.sleep(until: wake, tolerance: .milliseconds(10)) } catch { return }
            let now = clock.now
            let due = state.withLock { state -> [@Sendable () -> Void] in
                let due = state.timers.filter { $0.deadline <= now }.map(\.action)
                if !due.isEmpty { state.timers.removeAll { $0.deadline <= now } }
                return due
            }
            for action in due { action() }
            run { host, now in host.tick(at: now) }
        }
    }

    private func startTicker() {
        let ticker = Task { [weak self] in if let self { await self.tickLoop() } }
        state.withLock { $0.ticker = ticker }
    }

    private func stopTicker() {
        state.withLock { state in
            defer { state.ticker = nil }
            return state.ticker
        }?.cancel()
    }

    /// Runs `action` once the clock reaches `deadline` (within the tick loop's 10 ms tolerance), unless link
    /// `handle` goes down first; returns false once the stack is closed or the link is gone.
    func schedule(at deadline: RigInstant, on handle: UInt16, _ action: @escaping @Sendable () -> Void) -> Bool {
        addTimer(at: deadline, for: .link(handle), action)
    }

    /// Runs `action` once the clock reaches `deadline`, unless `owner` ends first (the link goes down, the attempt
    /// ends); returns false once the stack is closed or the link is gone. A deadline later than the tick loop's next
    /// wake costs nothing more than an entry in a list; an earlier one restarts the loop.
    @discardableResult
    func addTimer(at deadline: RigInstant, for owner: TimerOwner, _ action: @escaping @Sendable () -> Void) -> Bool {
        let restart = state.withLock { state -> Bool? in
            guard !state.closed else { return nil }
            if case .link(let handle) = owner, state.host.links[handle] == nil { return nil }
            state.timers.append(Timer(deadline: deadline, owner: owner, action: action))
            guard let wakes = state.tickerWakes, deadline < wakes else { return false }
            state.tickerWakes = nil
            return true
        }
        guard let restart else { return false }
        if restart {
            stopTicker()
            startTicker()
        }
        return true
    }

    // MARK: - Delivering events

    private func deliver(_ events: [HCIHost.Event]) {
        guard !events.isEmpty else { return }
        for event in events { handle(event) }
        let observers = state.withLock { $0.events }
        for observer in observers { for event in events { observer(event) } }
    }

    private func handle(_ event: HCIHost.Event) {
        switch event {
        case let .ready(info):
            let waiters = state.withLock { state in
                defer { state.readyWaiters = [] }
                return state.readyWaiters
            }
            for waiter in waiters { waiter.resume(returning: .success(info)) }
        case let .failed(error):
            failAll("\(error)", reason: .unspecifiedError)
        case let .advertisement(report):
            deliverAdvertisement(report)
        case let .connected(link):
            connected(link)
        case let .connectionFailed(peer, reason):
            state.withLock { state in
                state.timers.removeAll { $0.owner == .attempt(peer) }
                return state.attempts.removeValue(forKey: peer)
            }?.resume(returning: .failure(reason))
        case let .disconnected(handle, reason):
            let (handler, waiters) = state.withLock { state in
                state.timers.removeAll { $0.owner == .link(handle) }
                return (state.links.removeValue(forKey: handle), state.sendWaiters.removeValue(forKey: handle))
            }
            for waiter in waiters?.values ?? [:].values { waiter.resume() }
            handler?.linkDown(reason)
        case let .att(handle, pdu):
            let handler = state.withLock { $0.links[handle] }
            handler?.receive(pdu)
        case let .transmitReady(handle):
            let waiters = state.withLock { $0.sendWaiters.removeValue(forKey: handle) }
            for waiter in waiters?.values ?? [:].values { waiter.resume() }
        case let .parametersChanged(link):
            state.withLock { $0.links[link.handle] }?.parametersChanged(link)
        case .warning:
            state.withLock { $0.counters.warnings += 1 }
        case .parameterUpdateFailed, .dataLengthChanged, .phyChanged, .commandFailed:
            break
        }
    }

    private func connected(_ link: HCIHost.Link) {
        enum Next {
            case waiter(CheckedContinuation<Result<HCIHost.Link, HCIErrorCode>, Never>)
            case accept(@Sendable (HCIHost.Link) -> (any HCILinkHandler)?)
            case unwanted
        }
        let next = state.withLock { state -> Next in
            if link.role == .central, let waiter = state.attempts.removeValue(forKey: link.peer) {
                state.timers.removeAll { $0.owner == .attempt(link.peer) }
                return .waiter(waiter)
            }
            if link.role == .peripheral, let accept = state.accept { return .accept(accept) }
            return .unwanted
        }
        switch next {
        case let .waiter(waiter):
            waiter.resume(returning: .success(link))
        case let .accept(accept):
            if let handler = accept(link) {
                attach(handler, to: link.handle)
            } else {
                run { host, now in host.disconnect(link.handle, reason: .remoteUserTerminated, at: now) }
            }
        case .unwanted:
            // The attempt was given up (timeout, cancellation) just as the link came up: close it.
            run { host, now in host.disconnect(link.handle, reason: .remoteUserTerminated, at: now) }
        }
    }

    /// Routes a link's ATT PDUs and its end to `handler` from now on. PDUs arriving before this are dropped, so
    /// attach in the code that learns of the link, before awaiting anything.
    func attach(_ handler: any HCILinkHandler, to handle: UInt16) {
        let alive = state.withLock { state -> Bool in
            guard state.host.links[handle] != nil else { return false }
            state.links[handle] = handler
            return true
        }
        if !alive { handler.linkDown(.unknownConnectionIdentifier) }
    }

    // MARK: - Link I/O for bearers

    /// Queues an ATT PDU on a link, suspending while the link's queue is full. Throws once the link is down.
    func sendATT(_ pdu: [UInt8], on handle: UInt16, immediately: Bool = false) async throws(GATTError) {
        while true {
            let key = state.withLock { state -> Int in
                state.nextKey += 1
                return state.nextKey
            }
            enum Outcome {
                case sent([HCIHost.Event])
                case down
                case wait
            }
            let now = clock.now
            let outcome = state.withLock { state -> Outcome in
                guard !state.closed, state.host.links[handle] != nil else { return .down }
                guard immediately || state.host.canQueue(on: handle) else { return .wait }
                let actions = state.host.sendATT(pdu, on: handle, at: now)
                return .sent(perform(actions, &state, at: now))
            }
            switch outcome {
            case let .sent(events):
                deliver(events)
                return
            case .down:
                throw .disconnected(.unknownConnectionIdentifier)
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        guard !state.closed, state.host.links[handle] != nil else { return true }
                        if state.host.canQueue(on: handle) { return true }
                        state.sendWaiters[handle, default: [:]][key] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Queues a PDU without waiting for room (answers to the peer: one per received PDU).
    func sendImmediately(_ pdu: [UInt8], on handle: UInt16) {
        run { host, now in host.sendATT(pdu, on: handle, at: now) }
    }

    func disconnect(_ handle: UInt16) {
        run { host, now in host.disconnect(handle, reason: .remoteUserTerminated, at: now) }
    }

    /// Numbers about the stack's work, each with its definition.
    public var counters: [RadioCounter] {
        let counters = state.withLock { $0.counters }
        return [
            RadioCounter(
                metric: "hci.packets_in", value: Double(counters.packetsIn),
                definition: "HCI packets from the controller (events and ACL data)"),
            RadioCounter(
                metric: "hci.packets_out", value: Double(counters.packetsOut),
                definition: "HCI packets to the controller (commands and ACL data)"),
            RadioCounter(
                metric: "hci.acl_bytes_out", value: Double(counters.aclBytesOut),
                definition: "ACL payload bytes sent (L2CAP headers included)"),
            RadioCounter(
                metric: "hci.acl_bytes_in", value: Double(counters.aclBytesIn),
                definition: "ACL payload bytes received (L2CAP headers included)"),
            RadioCounter(
                metric: "hci.warnings", value: Double(counters.warnings),
                definition: "malformed or unexpected packets the host dropped and carried on"),
        ]
    }
}

/// Whoever owns a link's ATT traffic: a GATT client connection on the central side, a board model's bearer on
/// the peripheral side. Called after the stack's lock is released, from the transport's reader thread.
public protocol HCILinkHandler: Sendable {
    func receive(_ pdu: [UInt8])
    func linkDown(_ reason: HCIErrorCode)
    func parametersChanged(_ link: HCIHost.Link)
}

extension HCILinkHandler {
    public func parametersChanged(_ link: HCIHost.Link) {}
}

/// Why the stack could not start, or stopped.
public struct HCIStackError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

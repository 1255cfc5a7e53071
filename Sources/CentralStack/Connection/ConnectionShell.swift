import BLECore
import DeviceProfiles
import Foundation
import Synchronization

/// The thin shell around a ``ConnectionMachine``: it feeds the machine the radio's events and performs the
/// actions it returns over the ``Central`` interface — scans, connections brought to ready with ``Handshake``
/// (and, for an esp-point, authenticated or paired with ``EspPointClient``), timers on the central's clock, and
/// saves through a ``ConnectionStateStore``. All logic is in the machine; the shell only moves bytes and time.
///
/// It is a class driven by one task, ``run(restoring:)``, rather than an actor: its work runs as children of that
/// task, so on the virtual farm everything stays on the simulation's executor and in virtual time.
public final class ConnectionShell: Sendable {
    public struct Configuration: Sendable {
        public var spec: ProfileSpec
        public var policy: ConnectionPolicy
        /// What a scan for an unpaired board looks for.
        public var scanFilter: ScanFilter
        public var connectTimeout: Duration
        public var backoff: ReconnectBackoff
        /// The GATT tables sessions are made ready from (a matching Database Hash skips discovery); nil: discover
        /// on every connection.
        public var cache: (any GATTCache)?

        public init(
            spec: ProfileSpec, policy: ConnectionPolicy, scanFilter: ScanFilter,
            connectTimeout: Duration = .seconds(10), backoff: ReconnectBackoff, cache: (any GATTCache)? = nil
        ) {
            self.cache = cache
            self.spec = spec
            self.policy = policy
            self.scanFilter = scanFilter
            self.connectTimeout = connectTimeout
            self.backoff = backoff
        }
    }

    /// What the shell reports: the machine's notices, each connection attempt once it is settled (its timing, or
    /// why it failed: what the machine does not see), and the shell's own problems (a save that failed).
    public enum Report: Sendable {
        case notice(ConnectionNotice, at: RigInstant)
        case attempt(LinkAttempt, at: RigInstant)
        case problem(String, at: RigInstant)
    }

    /// An event for the machine, when it happened, and who waits for it to be handled (``deliver(_:)``).
    struct Input: Sendable {
        let event: ConnectionEvent
        let at: RigInstant
        let handled: CheckedContinuation<Void, Never>?
    }

    /// The machine's input: events are handled one at a time, in the order they were yielded.
    struct Inbox: Sendable {
        let continuation: AsyncStream<Input>.Continuation

        func yield(_ input: (ConnectionEvent, RigInstant), handled: CheckedContinuation<Void, Never>? = nil) {
            if case .terminated = continuation.yield(Input(event: input.0, at: input.1, handled: handled)) {
                handled?.resume()
            }
        }

        func finish() { continuation.finish() }
    }

    /// Work a link's task is asked to do by the machine (closing it is cancelling its token).
    enum LinkCommand: Sendable { case pair }

    struct Link: Sendable {
        let peripheral: DeviceAddress
        let token: CancelToken
        let commands: AsyncStream<LinkCommand>.Continuation
    }

    struct Shared {
        var machine: ConnectionMachine
        var scan: CancelToken?
        var links: [DeviceAddress: Link] = [:]
        var stopped = false
    }

    let central: any Central
    let radio: (any RadioPower)?
    let configuration: Configuration
    let keys: any PairingKeyStore
    let newKey: @Sendable () -> [UInt8]
    let store: (any ConnectionStateStore)?
    let wallClock: @Sendable () -> Date
    let report: @Sendable (Report) -> Void
    let traffic: @Sendable (ProfileSession) async throws -> Void
    let shared: Mutex<Shared>
    private let inputs: AsyncStream<Input>
    let input: Inbox

    /// - Parameters:
    ///   - radio: the radio's power switch, when it has one; without it the radio counts as always on.
    ///   - newKey: the key to pair an esp-point with when `keys` holds none for it.
    ///   - store: where every change of state is saved; nil to save nothing.
    ///   - wallClock: the date saves are stamped with (restoration compares it with an hour).
    ///   - traffic: what to do with a ready session of the paired board while the link lasts.
    public init(
        central: any Central, radio: (any RadioPower)? = nil, configuration: Configuration,
        keys: any PairingKeyStore, newKey: @escaping @Sendable () -> [UInt8], store: (any ConnectionStateStore)?,
        wallClock: @escaping @Sendable () -> Date = { Date() }, report: @escaping @Sendable (Report) -> Void,
        traffic: @escaping @Sendable (ProfileSession) async throws -> Void = { _ in }
    ) {
        self.central = central
        self.radio = radio
        self.configuration = configuration
        self.keys = keys
        self.newKey = newKey
        self.store = store
        self.wallClock = wallClock
        self.report = report
        self.traffic = traffic
        shared = Mutex(Shared(machine: ConnectionMachine(policy: configuration.policy, backoff: configuration.backoff)))
        let (stream, continuation) = AsyncStream.makeStream(of: Input.self)
        inputs = stream
        input = Inbox(continuation: continuation)
    }

    var clock: any RigClock { central.clock }

    /// The machine's state now.
    public var state: ConnectionState { shared.withLock { $0.machine.state } }
    public var snapshot: ConnectionSnapshot { shared.withLock { $0.machine.snapshot } }

    /// Hands the machine an event from outside (work queued or done, an update's progress, a reset), stamped now.
    public func send(_ event: ConnectionEvent) { input.yield((event, clock.now)) }

    /// Hands the machine an event and returns once the machine has handled it and its actions were started, so
    /// that everything sent before it has taken effect too: work queued this way never meets a link the machine
    /// already chose to close. Returns at once when the shell has stopped.
    public func deliver(_ event: ConnectionEvent) async {
        await withCheckedContinuation { (handled: CheckedContinuation<Void, Never>) in
            input.yield((event, clock.now), handled: handled)
        }
    }

    /// The machine chose to close the link it has (work is done, or the board reboots into new firmware): a
    /// session of that link is not to be given new work.
    var closingLink: Bool { shared.withLock { $0.machine.closing } }

    /// Waits until the shell holds no link (each link's task has seen its disconnection), at most `limit`; at
    /// once when it holds none. An app that finished its work waits here for the close it started.
    public func linksClosed(within limit: Duration) async {
        let deadline = clock.now.advanced(by: limit)
        while shared.withLock({ !$0.links.isEmpty && !$0.stopped }), clock.now < deadline {
            do { try await clock.sleep(for: .milliseconds(5)) } catch { return }
        }
    }

    /// Ends ``run(restoring:)`` as a killed process ends: nothing more is saved or reported, and the links are
    /// closed the way the operating system closes a dead process's links.
    public func stop() {
        shared.withLock { $0.stopped = true }
        input.finish()
    }

    /// Runs the machine until ``stop()`` or cancellation, first restoring `restoring` when given.
    public func run(restoring: ConnectionSnapshot? = nil) async {
        await withDiscardingTaskGroup { group in
            if let restoring { input.yield((.restore(restoring), clock.now)) }
            if let radio {
                group.addTask {
                    for await on in radio.powerStates() {
                        self.input.yield((on ? .radioPoweredOn : .radioPoweredOff, self.clock.now))
                    }
                }
            } else {
                input.yield((.radioPoweredOn, clock.now))
            }
            for await item in inputs {
                let actions = shared.withLock { s -> [ConnectionAction]? in
                    s.stopped ? nil : s.machine.handle(item.event, at: item.at)
                }
                guard let actions else {
                    item.handled?.resume()
                    break
                }
                for action in actions { perform(action, group: &group) }
                item.handled?.resume()
            }
            shared.withLock { $0.stopped = true }
            group.cancelAll()
        }
        // Whoever waits for an event to be handled is let go: the machine handles nothing more.
        input.finish()
        for await item in inputs { item.handled?.resume() }
    }

    private func perform(_ action: ConnectionAction, group: inout DiscardingTaskGroup) {
        switch action {
        case .startScan:
            let token = CancelToken()
            shared.withLock {
                $0.scan?.cancel(); $0.scan = token
            }
            let (central, filter) = (central, configuration.scanFilter)
            group.addTask {
                _ = await token.race {
                    for await advertisement in central.scan(filter) where advertisement.connectable {
                        self.input.yield((.discovered(advertisement.address), advertisement.received))
                    }
                }
            }
        case .stopScan:
            shared.withLock { s in
                s.scan?.cancel()
                s.scan = nil
            }
        case .connect(let peripheral):
            let (commands, continuation) = AsyncStream.makeStream(of: LinkCommand.self)
            let link = Link(peripheral: peripheral, token: CancelToken(), commands: continuation)
            let pairing = shared.withLock { s in
                s.links[peripheral]?.token.cancel()
                s.links[peripheral] = link
                return s.machine.state == .pairing
            }
            group.addTask { await self.runLink(link, commands: commands, pairing: pairing) }
        case .cancelConnection(let peripheral):
            shared.withLock { s in
                s.links[peripheral]?.token.cancel()
            }
        case .pair(let peripheral):
            _ = shared.withLock { $0.links[peripheral]?.commands.yield(.pair) }
        case .persist(let snapshot):
            guard let store else { return }
            do { try store.save(snapshot, at: wallClock()) } catch {
                report(.problem("could not save the connection state: \(error)", at: clock.now))
            }
        case .notify(let notice): report(.notice(notice, at: clock.now))
        case .scheduleTimer(let timer, let delay):
            let clock = clock
            group.addTask {
                do { try await clock.sleep(for: delay) } catch { return }
                self.input.yield((.timerFired(timer), clock.now))
            }
        }
    }
}

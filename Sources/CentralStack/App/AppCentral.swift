import BLECore
import DeviceProfiles
import Foundation
import Synchronization

/// The central as a phone app holds it: one object for one board that owns the ``ConnectionMachine`` (through its
/// ``ConnectionShell``), the GATT cache, the pairing keys, the saved state (``ConnectionStateStore``) and the work
/// the app asks of the board. The app does not open sessions: it asks for work — ``perform(_:within:attempts:_:)``,
/// ``update(to:options:progress:activated:)`` (`AppCentral+OTA.swift`),
/// ``pullLog(into:serial:now:puller:observe:prepare:)`` (`AppCentral+Sync.swift`), ``raiseAlerts(for:policy:)``
/// (`AppCentral+Alerts.swift`), ``pair(within:attempts:)`` — or scans for its board (``firstAdvertisement(within:)``,
/// `AppCentral+Scan.swift`); the machine connects when work is queued (policy ``ConnectionPolicy/onDemand``), runs
/// it on the session it made ready (paired or authenticated), and closes the link when no work is left. Work that
/// lasts as long as a link (an app streaming while connected) is ``performWhileConnected(_:within:_:)``
/// (`AppCentral+Link.swift`); a saved state is read with ``restoration()`` and its pending work is taken over by
/// the work the app asks for next (`AppCentral+Restore.swift`).
///
/// Every transition of the machine, with its cause, goes to the `report` given at init, and so does every connection
/// attempt with its timing (``LinkAttempt``): what an app's analytics would see, and what a test measures.
public final class AppCentral: Sendable {
    public let shell: ConnectionShell
    public let keys: any PairingKeyStore
    /// The board this central is for.
    public let board: DeviceAddress
    let broker: SessionBroker
    /// How long work waits for a ready session by default: a scan, a pairing, a connection and its back-off.
    public let sessionLimit: Duration
    /// Items of restored work no work of this app has taken over yet (``queueWork()``).
    let restoredWork = Mutex(0)

    /// - Parameters:
    ///   - configuration: the shell's; its policy is normally ``ConnectionPolicy/onDemand``.
    ///   - keys: where pairing keys are kept (``FileKeyStore`` to keep them across runs of the app).
    ///   - newKey: the key to pair an esp-point with when `keys` holds none for it.
    ///   - store: where the machine's state is saved on every change; nil to save nothing.
    ///   - wallClock: the date saves are stamped with.
    public init(
        central: any Central, board: DeviceAddress, radio: (any RadioPower)? = nil,
        configuration: ConnectionShell.Configuration, keys: any PairingKeyStore,
        newKey: @escaping @Sendable () -> [UInt8], store: (any ConnectionStateStore)?,
        wallClock: @escaping @Sendable () -> Date = { Date() }, sessionLimit: Duration = .seconds(120),
        report: @escaping @Sendable (ConnectionShell.Report) -> Void
    ) {
        let broker = SessionBroker()
        self.broker = broker
        // A failed attempt also gives up the work that fails with it (``AttemptPolicy/failWithTheAttempt``).
        // The machine in error (pairing refused) fails every work at once instead of leaving it to its limit.
        let observed: @Sendable (ConnectionShell.Report) -> Void = { event in
            switch event {
            case .attempt(let attempt, _) where !attempt.succeeded:
                broker.attemptFailed(ConnectionAttemptFailed(attempt: attempt))
            case .notice(.transition(let transition), _) where transition.to == .error:
                broker.machineFailed(ConnectionMachineInError(reason: transition.cause))
            case .notice(.transition(let transition), _) where transition.from == .error:
                broker.machineRecovered()
            default:
                break
            }
            report(event)
        }
        self.board = board
        self.sessionLimit = sessionLimit
        self.keys = keys
        self.shell = ConnectionShell(
            central: central, radio: radio, configuration: configuration, keys: keys, newKey: newKey, store: store,
            wallClock: wallClock, report: observed,
            traffic: { session in
                broker.offer(session)
                defer { broker.withdraw(session) }
                await CancelToken().wait()
            })
        broker.usable { [weak shell] in shell.map { !$0.closingLink } ?? false }
    }

    public var clock: any RigClock { shell.clock }
    public var state: ConnectionState { shell.state }
    public var snapshot: ConnectionSnapshot { shell.snapshot }

    /// Runs the machine until ``stop()`` or cancellation, restoring `restoring` first when given. The work methods
    /// need it running (in a task of the caller's).
    public func run(restoring: ConnectionSnapshot? = nil) async {
        if let restoring { adopt(restoring) }
        await shell.run(restoring: restoring)
    }

    /// Stops the machine as a killed app stops: nothing more is saved, links close.
    public func stop() { shell.stop() }

    /// Runs `body` with the machine running beside it, then stops the machine once the link the finished work
    /// leaves behind is closed (at most ``closingLimit``): the radio's link is free again when this returns, for
    /// the next app or board. The restored state is the machine's first event, before any work `body` queues: work
    /// queued first would start a scan, and a state is restored only into a fresh machine.
    public func running<T: Sendable>(
        restoring: ConnectionSnapshot? = nil, _ body: (AppCentral) async throws -> T
    ) async throws -> T {
        if let restoring {
            adopt(restoring)
            shell.send(.restore(restoring))
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.run() }
            defer { stop() }
            do {
                let value = try await body(self)
                await shell.linksClosed(within: Self.closingLimit)
                return value
            } catch {
                await shell.linksClosed(within: Self.closingLimit)
                throw error
            }
        }
    }

    /// How long ``running(restoring:_:)`` waits for the last link to close before stopping regardless.
    public static let closingLimit: Duration = .seconds(10)

    /// One piece of work on the board: queued to the machine (which connects on demand), run on the next ready
    /// session no other work holds, then done (the machine closes the link when nothing else is queued). A link
    /// lost during the work reaches `body` as the error of its next request.
    ///
    /// - Parameter attempts: whether a connection attempt that fails while the work waits fails the work
    ///   (``ConnectionAttemptFailed``) or the work waits for the machine to try again (the default).
    @discardableResult
    public func perform<T: Sendable>(
        _ what: String, within limit: Duration? = nil, attempts: AttemptPolicy = .retry,
        _ body: (ProfileSession) async throws -> T
    ) async throws -> T {
        await queueWork()
        defer { shell.send(.workCompleted(1)) }
        let session = try await lease(for: what, within: limit, attempts: attempts)
        defer { broker.release() }
        return try await body(session)
    }

    /// Pairs with the board (or authenticates with the stored key) and returns once the machine is paired and
    /// connected; the link then closes when no work is queued.
    public func pair(within limit: Duration? = nil, attempts: AttemptPolicy = .retry) async throws {
        try await perform("pairing", within: limit, attempts: attempts) { _ in }
    }

    /// Waits for a ready session for work already counted as queued; pair with `broker.release()`.
    func lease(
        for what: String, within limit: Duration?, attempts: AttemptPolicy = .retry
    ) async throws -> ProfileSession {
        try await broker.lease(
            within: limit ?? sessionLimit, clock: clock, waitingFor: "a ready session with \(board) for \(what)",
            failing: attempts)
    }
}

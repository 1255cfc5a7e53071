import BLECore

/// What happens to the central that the connection state machine must know: radio power, scan results, link
/// events as the radio reports them, pairing and OTA results, work to do, timers, a restored state.
///
/// Link events carry the peripheral but no attempt number, as Core Bluetooth's callbacks do: the machine tells a
/// duplicate (a disconnect and a failed-to-connect for the same attempt) by the peripheral id.
public enum ConnectionEvent: Sendable, Hashable, CustomStringConvertible {
    case radioPoweredOn
    /// The radio went off: every scan and link it had is gone.
    case radioPoweredOff
    /// A scan reported a peripheral of the wanted profile.
    case discovered(DeviceAddress)
    /// The link is up and the session ready (MTU, discovery, subscriptions and, for a paired board,
    /// authentication done).
    case connected(DeviceAddress)
    /// The link went down, with the HCI reason the radio gave.
    case disconnected(DeviceAddress, reason: HCIErrorCode)
    /// A connection attempt ended without a usable session, with the HCI reason.
    case failedToConnect(DeviceAddress, reason: HCIErrorCode)
    case pairingSucceeded(DeviceAddress)
    case pairingFailed(DeviceAddress, why: String)
    /// A firmware update started on the connected board.
    case otaBegan
    /// The update was activated: the board reboots, so the link's end that follows is expected.
    case otaFinished
    case otaFailed(why: String)
    /// `count` items of work for the board were queued (readings to pull, an OTA to send).
    case workQueued(Int)
    case workCompleted(Int)
    /// A timer the machine asked for fell due.
    case timerFired(ConnectionTimer)
    /// A state saved by an earlier instance, already checked for age (``ConnectionRestoration/load(from:now:)``).
    case restore(ConnectionSnapshot)
    /// Forget the board and scan for a new one (the user's "forget device", or leaving ``ConnectionState/error``).
    case reset

    public var description: String {
        switch self {
        case .radioPoweredOn: "radio on"
        case .radioPoweredOff: "radio off"
        case let .discovered(address): "found \(address)"
        case let .connected(address): "connected to \(address)"
        case let .disconnected(address, reason): "\(address) disconnected: \(reason)"
        case let .failedToConnect(address, reason): "connecting to \(address) failed: \(reason)"
        case let .pairingSucceeded(address): "paired with \(address)"
        case let .pairingFailed(address, why): "pairing with \(address) failed: \(why)"
        case .otaBegan: "firmware update began"
        case .otaFinished: "firmware update activated"
        case let .otaFailed(why): "firmware update failed: \(why)"
        case let .workQueued(count): "\(count) item(s) of work queued"
        case let .workCompleted(count): "\(count) item(s) of work done"
        case let .timerFired(timer): "\(timer) fired"
        case let .restore(snapshot): "restore \(snapshot)"
        case .reset: "reset"
        }
    }
}

/// A timer the machine asked for. A timer from an earlier generation (one the machine no longer waits for) is
/// ignored when it fires, so the shell never has to cancel one.
public struct ConnectionTimer: Sendable, Hashable, CustomStringConvertible {
    public var generation: Int
    public init(generation: Int) { self.generation = generation }
    public var description: String { "reconnect timer #\(generation)" }
}

/// What the machine asks its shell to do.
public enum ConnectionAction: Sendable, Hashable {
    case startScan
    case stopScan
    /// Connect to the peripheral and bring the session to ready (authenticating a paired board).
    case connect(DeviceAddress)
    /// Close the link, or abandon the attempt, to the peripheral.
    case cancelConnection(DeviceAddress)
    /// Pair with the connected peripheral (esp-point: PAIR_BEGIN/PAIR_CONFIRM and authentication).
    case pair(DeviceAddress)
    /// Save this state (it changed).
    case persist(ConnectionSnapshot)
    case notify(ConnectionNotice)
    /// Deliver ``ConnectionEvent/timerFired(_:)`` with this timer after `after`.
    case scheduleTimer(ConnectionTimer, after: Duration)
}

/// What the machine tells the app and the log.
public enum ConnectionNotice: Sendable, Hashable, CustomStringConvertible {
    /// The machine changed state, and why.
    case transition(ConnectionTransition)
    /// A link ended that nobody asked to end: a drop, with the HCI reason and how long the link had been up.
    case dropped(DeviceAddress, reason: HCIErrorCode, connectedFor: Duration)
    /// A link ended as asked (no more work, the board rebooting after an update, the radio switched off).
    case closed(DeviceAddress, reason: HCIErrorCode, connectedFor: Duration)
    /// The link is back after a drop, `after` the drop was noticed.
    case reconnected(DeviceAddress, after: Duration)
    /// An event about an attempt that was already settled (the second of a disconnect / failed-to-connect pair),
    /// or about a peripheral the machine is not connecting to; nothing was done.
    case ignored(ConnectionEvent, why: String)

    public var description: String {
        switch self {
        case let .transition(transition): "\(transition)"
        case let .dropped(address, reason, up): "link to \(address) dropped after \(up.seconds) s up: \(reason)"
        case let .closed(address, reason, up): "link to \(address) closed after \(up.seconds) s up: \(reason)"
        case let .reconnected(address, after): "reconnected to \(address) \(after.milliseconds) ms after the drop"
        case let .ignored(event, why): "ignored \(event): \(why)"
        }
    }
}

/// One change of state with its cause.
public struct ConnectionTransition: Sendable, Hashable, CustomStringConvertible {
    public var from: ConnectionState
    public var to: ConnectionState
    public var cause: String
    public var at: RigInstant

    public init(from: ConnectionState, to: ConnectionState, cause: String, at: RigInstant) {
        self.from = from
        self.to = to
        self.cause = cause
        self.at = at
    }

    public var description: String { "\(from) → \(to): \(cause)" }
}

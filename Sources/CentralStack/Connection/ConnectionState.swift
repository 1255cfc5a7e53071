import BLECore
import Foundation

/// The six states of the ESP-Point case study's connection state machine (docs/suites.md, "The central's
/// connection state machine").
public enum ConnectionState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// No board is paired: scanning for one (once the radio is on).
    case unpairedScanning
    /// Connecting to a board that was found, then pairing with it.
    case pairing
    /// The paired board is connected and its session ready.
    case pairedConnected
    /// The paired board is known (cached) but not connected: reconnecting with back-off, or idle when the
    /// policy connects only on demand and there is no work.
    case pairedDisconnected
    /// A firmware update is being sent to the connected board.
    case firmwareUpdating
    /// Something needs the user (pairing refused); only ``ConnectionEvent/reset`` leaves it.
    case error

    public var description: String { rawValue }
}

/// When the machine wants a link to its paired board.
public enum ConnectionPolicy: String, Sendable, Hashable, Codable {
    /// Always: reconnect after every drop (a soak test, a live display).
    case keepConnected
    /// Only while there is work (readings to pull, an update to send); the link is closed when the work is done.
    /// The case study's lesson: a phone that holds links it does not need drains both batteries.
    case onDemand
}

/// The part of the machine's state that survives the app: what ``ConnectionStateStore`` saves on every change
/// and a new instance restores.
public struct ConnectionSnapshot: Sendable, Hashable, Codable, CustomStringConvertible {
    public var state: ConnectionState
    /// The paired (known, cached) board.
    public var peripheral: String?
    /// Scanning for a board when saved.
    public var scanning: Bool
    /// The board the link was up to when saved, if any.
    public var connected: String?
    /// Items of work not done yet.
    public var pendingWork: Int
    /// Why the machine is in ``ConnectionState/error``.
    public var errorReason: String?

    public init(
        state: ConnectionState, peripheral: DeviceAddress? = nil, scanning: Bool = false,
        connected: DeviceAddress? = nil, pendingWork: Int = 0, errorReason: String? = nil
    ) {
        self.state = state
        self.peripheral = peripheral?.description
        self.scanning = scanning
        self.connected = connected?.description
        self.pendingWork = pendingWork
        self.errorReason = errorReason
    }

    /// The paired board's address; nil when there is none or the saved text is not an address.
    public var peripheralAddress: DeviceAddress? { peripheral.flatMap(DeviceAddress.init) }

    public var description: String {
        "\(state)" + (peripheral.map { " with \($0)" } ?? "") + (scanning ? ", scanning" : "")
            + (connected.map { ", connected to \($0)" } ?? "") + ", \(pendingWork) pending"
    }
}

/// Reconnection delays: exponential in the number of failed attempts since the last success, capped, with "equal
/// jitter" — a delay drawn uniformly from [d/2, d] for d = min(cap, base × 2^failures) — so many phones that lost
/// the same board do not all come back in the same instant. Deterministic from its random source.
public struct ReconnectBackoff: Sendable {
    public var base: Duration
    public var cap: Duration
    private var random: SeededRandom

    public init(base: Duration = .milliseconds(500), cap: Duration = .seconds(60), random: SeededRandom) {
        precondition(base > .zero && cap >= base, "a back-off needs 0 < base ≤ cap")
        self.base = base
        self.cap = cap
        self.random = random
    }

    /// The longest delay after `failures` failed attempts: min(cap, base × 2^failures).
    public func ceiling(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures, 0), 40)
        let scaled = base.seconds * Double(UInt64(1) << UInt64(exponent))
        return scaled >= cap.seconds ? cap : base * Double(UInt64(1) << UInt64(exponent))
    }

    /// The delay before the next attempt after `failures` failed ones: uniform in [ceiling/2, ceiling].
    public mutating func delay(afterFailures failures: Int) -> Duration {
        let ceiling = ceiling(afterFailures: failures)
        return ceiling / 2 + (ceiling / 2) * random.nextUnit()
    }
}

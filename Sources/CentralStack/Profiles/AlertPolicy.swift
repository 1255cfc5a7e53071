import DeviceProfiles

/// The app's alert policy for an hrm (docs/board-contract.md, "hrm"), sans-I/O: heart rates in, the Alert Level to
/// write out. Above ``raiseAbove`` bpm it asks for `redAlert`, below ``clearBelow`` for `turnOff`, and only when the
/// state changes: between the thresholds (the hysteresis band) and on repeated values it asks for nothing, so the light
/// never flickers and no write repeats.
public struct AlertPolicy: Sendable, Hashable {
    public static let defaultRaiseAbove = 140
    public static let defaultClearBelow = 125

    public let raiseAbove: Int
    public let clearBelow: Int
    /// What the light shows, as far as the policy knows: what it last asked for, or the initial state.
    public private(set) var current: HeartRateMonitor.Alert

    /// A policy starting from `current` (an hrm boots with its light off). Precondition: `clearBelow <= raiseAbove`.
    public init(
        raiseAbove: Int = defaultRaiseAbove, clearBelow: Int = defaultClearBelow,
        current: HeartRateMonitor.Alert = .turnOff
    ) {
        precondition(clearBelow <= raiseAbove, "the clear threshold must not be above the raise threshold")
        self.raiseAbove = raiseAbove
        self.clearBelow = clearBelow
        self.current = current
    }

    /// Feeds one heart rate; returns the alert to write when the state changes, nil otherwise.
    public mutating func observe(bpm: Int) -> HeartRateMonitor.Alert? {
        switch current {
        case .turnOff where bpm > raiseAbove: current = .redAlert
        case .redAlert where bpm < clearBelow: current = .turnOff
        default: return nil
        }
        return current
    }
}

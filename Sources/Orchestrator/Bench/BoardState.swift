/// Where a board is in the run, as the orchestrator's strategy moves it (labgrid's strategy states). Every move is
/// recorded as a transition with its reason and shows in the board's JUnit system-out.
public enum BoardState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not yet brought up: the run has not touched it (its power state is whatever it was).
    case unknown
    /// Its power is off.
    case off
    /// Powered or reset, not yet seen on the air.
    case booting
    /// Seen on the air, not connected.
    case advertising
    /// Waiting for a link on a radio (every radio it may use holds all the links its controller can).
    case queued
    /// A central of the rig holds a link to it.
    case connected
    /// Taken out of the run: it could not be brought to a known state; its remaining checks are skipped.
    case quarantined

    public var description: String { rawValue }
}

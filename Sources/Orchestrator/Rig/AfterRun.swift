/// How a run leaves the boards when it ends, also when it is interrupted: `after_run:` in the rig file.
///
/// ```yaml
/// after_run: off      # the default: every board is powered off
/// after_run: on       # every board is left powered on, e.g. to look at it after the run
/// ```
public enum AfterRun: String, Hashable, Sendable, CaseIterable {
    /// The boards are powered off (the default).
    case off
    /// The boards are left powered on.
    case on
}

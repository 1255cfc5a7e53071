import BenchCore

/// Builds the bench a rig file describes. The orchestrator knows benches only through this and the capability
/// protocols; the one implementation that knows the virtual farm (and, later, the HCI host and serial hardware)
/// is the composition root in the `Benches` target.
public protocol BenchFactory: Sendable {
    /// The launcher for `rig`'s bench with `seed` (virtual benches only). Throws ``CampaignError/unsupportedRadio(_:)``
    /// at the radio's place in the rig file when this build cannot drive it.
    func launcher(for rig: RigConfig, seed: UInt64) throws(CampaignError) -> any BenchLauncher
}

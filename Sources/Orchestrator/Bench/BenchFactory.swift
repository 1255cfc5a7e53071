import BenchCore
import Foundation

/// Builds the bench a rig file describes. The orchestrator knows benches only through this and the capability
/// protocols; the one implementation that knows the virtual farm (and, later, the HCI host and serial hardware)
/// is the composition root in the `Benches` target.
public protocol BenchFactory: Sendable {
    /// The launcher for `rig`'s bench with `seed` (virtual benches only). Throws ``CampaignError/unsupportedRadio(_:)``
    /// at the radio's place in the rig file when this build cannot drive it.
    func launcher(for rig: RigConfig, seed: UInt64) throws(CampaignError) -> any BenchLauncher

    /// Starts a local ingest for the `sync` suite (see the extension for the default: none).
    func startLocalIngest() async throws -> (any LocalIngest)?
}

/// A local ingest server the `sync` suite uploads to on a wall-clock bench: started by the composition root
/// (which knows the server), stopped when the run ends.
public protocol LocalIngest: Sendable {
    /// Its base URL, e.g. `http://127.0.0.1:41234/`.
    var url: URL { get }
    func stop() async
}

extension BenchFactory {
    /// Starts a local ingest for the `sync` suite on a wall-clock bench whose rig names no `ingest_url`; nil when
    /// this build has none.
    public func startLocalIngest() async throws -> (any LocalIngest)? { nil }
}

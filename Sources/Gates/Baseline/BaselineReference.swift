import Foundation

/// Named baselines (`blerig baseline set NAME RUN`) live in the history store; the store implements this in its
/// own target and the CLI passes it in, so Gates does not depend on it.
public protocol BaselineCatalog: Sendable {
    /// The baseline called `name`; nil when there is none of that name.
    func baseline(named name: String) async throws -> (any BaselineSource)?
}

/// What `--baseline` names: a run directory (or its `run.jsonl`), else a named baseline from `catalog`.
public enum BaselineReference {
    public static func resolve(_ text: String, catalog: (any BaselineCatalog)? = nil) async throws(GateError)
        -> any BaselineSource
    {
        if FileManager.default.fileExists(atPath: text) { return try StoredRun.baseline(text) }
        guard let catalog else {
            throw GateError(
                "--baseline: '\(text)' is not a run directory, and this command has no history to look up a "
                    + "baseline of that name in")
        }
        do {
            if let found = try await catalog.baseline(named: text) { return found }
        } catch {
            throw GateError("--baseline: the history could not be read: \(error)")
        }
        throw GateError("--baseline: '\(text)' is neither a run directory nor a baseline in the history")
    }
}

import Foundation
import Reports

/// One stored run as `blerig history` lists it: who ran what, where, when, and how it ended.
public struct RunRecord: Sendable, Hashable, Codable {
    public var runID: String
    public var rig: String
    /// The rig file as given on the command line.
    public var rigFile: String
    /// The rig file's SHA-256, lowercase hex; nil when the run did not record it.
    public var rigSHA256: String?
    /// The git revision of the rig file's repository; nil outside a repository.
    public var rigRevision: String?
    /// The host id (`BLERIG_HOST_ID`, else the host name).
    public var host: String
    public var radio: String
    public var seed: UInt64?
    public var started: Date
    /// Start plus the run's wall-clock duration; nil for a log that ended without `runFinished`.
    public var ended: Date?
    /// Rig time the run covered, in seconds (virtual time on the virtual farm).
    public var benchSeconds: Double?
    /// Why the run stopped early; nil for a run that ran to its end.
    public var interruption: String?
    public var passed: Int
    public var failed: Int
    public var errors: Int
    public var skipped: Int
    public var interrupted: Int
    public var boards: Int

    /// `passed`, `failed` (a check failed or erred), `interrupted`, or `unfinished` (no `runFinished`).
    public var status: String {
        if ended == nil { return "unfinished" }
        if interruption != nil { return "interrupted" }
        return failed + errors > 0 ? "failed" : "passed"
    }
}

/// A check's outcome as stored: every attempt is a row, ``isFinal`` marks the last.
public struct OutcomeRecord: Sendable, Hashable, Codable {
    public var board: String
    /// The check's position among the board's checks, from 0.
    public var ordinal: Int
    public var suite: String
    public var test: String
    public var attempt: Int
    public var isFinal: Bool
    /// `passed`, `failed`, `skipped`, `error`, `interrupted`.
    public var status: String
    public var failureClass: FailureClass?
    /// The failure's message or the skip's reason; empty for a pass.
    public var message: String
    public var benchSeconds: Double
    public var wallSeconds: Double?
}

/// One number a run measured: per check, or per board (`suite` and `test` empty).
public struct ValueRecord: Sendable, Hashable, Codable {
    public var board: String
    public var suite: String
    public var test: String
    public var metric: String
    public var statistic: String
    public var value: Double
    public var unit: String
}

/// The raw samples of one metric in one check.
public struct SamplesRecord: Sendable, Hashable {
    public var board: String
    public var suite: String
    public var test: String
    public var metric: String
    public var unit: String
    /// In ``unit``, in the order they were taken; stored as 32-bit floats (``SampleEncoding``).
    public var values: [Double]
}

/// A board as a run found it.
public struct BoardRecord: Sendable, Hashable, Codable {
    public var board: String
    public var profile: String?
    /// The firmware version the board reported (its `firmware` identity field).
    public var firmware: String?
    public var finalState: String?
    /// Every identity field, in order.
    public var identity: [IdentityField]
}

/// A named baseline: the run that later runs are compared with.
public struct BaselineRecord: Sendable, Hashable, Codable {
    public var name: String
    public var runID: String
    public var setAt: Date
    public var setBy: String
}

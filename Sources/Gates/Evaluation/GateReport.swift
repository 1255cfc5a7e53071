import Foundation
import Reports

/// A run's gate verdicts as the run directory keeps them, `gates.json`, and as `blerig gate` prints them.
///
/// ```json
/// {"baseline": "run 2026… (reports/…)", "breached": 1, "file": "rigs/gates.yaml", "held": 3,
///  "notEnoughData": 0, "verdicts": [{"decision": "breached", "gate": "…", "scope": "rig", …}]}
/// ```
public struct GateReport: Codable, Sendable, Hashable {
    /// The gates file, as given.
    public var file: String
    /// What regression gates compared with; nil without a baseline.
    public var baseline: String?
    public var held: Int
    public var breached: Int
    public var notEnoughData: Int
    public var verdicts: [GateVerdict]

    public init(file: String, baseline: String?, verdicts: [GateVerdict]) {
        self.file = file
        self.baseline = baseline
        self.verdicts = verdicts
        held = verdicts.count { $0.decision == .held }
        breached = verdicts.count { $0.decision == .breached }
        notEnoughData = verdicts.count { $0.decision == .notEnoughData }
    }

    /// Whether any gate was breached.
    public var isBreached: Bool { breached > 0 }

    /// Pretty-printed JSON with sorted keys, ending in a newline.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        // Encoding plain structs of strings and numbers (non-finite ones as strings) cannot fail.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    public static func decode(json data: Data) throws -> GateReport {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        return try decoder.decode(GateReport.self, from: data)
    }

    /// For summary.txt and the terminal: a heading, then one line per gate, at most 100 columns each.
    public var text: String {
        var lines = [
            "gates (\(file)\(baseline.map { ", baseline \($0)" } ?? "")): \(held) held, \(breached) breached, "
                + "\(notEnoughData) not enough data"
        ]
        for verdict in verdicts {
            let mark =
                switch verdict.decision {
                case .held: "held    "
                case .breached: "BREACHED"
                case .notEnoughData: "no data "
                }
            lines.append(Self.clip("  \(mark) \(verdict.gate) [\(verdict.scope)]"))
            lines.append(Self.clip("           \(verdict.message)"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func clip(_ line: String) -> String {
        line.count <= 100 ? line : String(line.prefix(99)) + "…"
    }
}

/// Judges a campaign's run by a gates file, for ``Orchestrator/RunOptions/judge``: verdicts for the JUnit,
/// `gates.json` for the run directory, the gates' lines for summary.txt.
public struct GateJudge: Sendable {
    public let file: GatesFile
    public let baseline: (any BaselineSource)?

    public init(_ file: GatesFile, baseline: (any BaselineSource)? = nil) {
        self.file = file
        self.baseline = baseline
    }

    public func report(_ result: RunResult) async -> GateReport {
        let verdicts = await GateEvaluator(file).evaluate(GateRun(result), baseline: baseline)
        return GateReport(file: file.path, baseline: baseline?.name, verdicts: verdicts)
    }
}

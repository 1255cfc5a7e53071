import DeviceProfiles
import Orchestrator

/// A gates file, checked: the release gates a run is judged by. The format is in docs/gates.md:
///
/// ```yaml
/// gates:
///   - handshake.ready_ms.p50 <= 800                        # every board that measures it
///   - {gate: link.drop_rate.value <= 0.5, profile: esp-point}
///   - {gate: ota.success_rate.first_try >= 99.2%, board: esp-01}
///   - {regression: handshake.ready_ms, max_increase: 10%, min_effect_ms: 5, min_samples: 20}
/// ```
///
/// Read with the rig file's reader, so problems are reported the same way: every one at once, each at
/// `file:line:column`, as a ``RigFileError``.
public struct GatesFile: Sendable, Hashable {
    /// The path as given to the loader.
    public var path: String
    public var gates: [Gate]

    public init(path: String, gates: [Gate]) {
        self.path = path
        self.gates = gates
    }

    /// Reads and checks the gates file at `path`. `boards` (id → profile), when given, are the boards gates may
    /// name: a gate for another board is an error.
    public static func load(contentsOf path: String, boards: [String: String]? = nil) throws(RigFileError)
        -> GatesFile
    {
        try parse(yaml: RigFile.readText(contentsOf: path), file: path, boards: boards)
    }

    /// The gates a campaign of `rig` is judged by: the file `--gates` names (`override`), else the rig's
    /// `gates:`, else none. A rig's gates file that does not exist is an error at the rig's `gates:`.
    public static func load(for rig: RigConfig, override: String? = nil) throws(RigFileError) -> GatesFile? {
        let boards = Dictionary(rig.boards.map { ($0.id, $0.profile.rawValue) }, uniquingKeysWith: { a, _ in a })
        if let override { return try load(contentsOf: override, boards: boards) }
        guard let reference = rig.gates else { return nil }
        do {
            return try load(contentsOf: reference.path, boards: boards)
        } catch let error where error.first.code == .unreadableFile && error.first.location.line == 0 {
            throw RigFileError(
                RigFileIssue(
                    .unreadableFile,
                    "gates file \(RigWording.quoted(reference.path)) \(error.first.message) (paths are relative to "
                        + "the working directory)",
                    at: reference.location))
        }
    }

    /// Parses and checks gates file text; `file` names it in locations.
    public static func parse(yaml text: String, file: String, boards: [String: String]? = nil) throws(RigFileError)
        -> GatesFile
    {
        let diagnostics = RigDiagnostics()
        let root = try RigNode.parse(yaml: text, file: file, diagnostics: diagnostics)
        var reader = GatesReader(diagnostics: diagnostics, boards: boards)
        let gates = reader.decode(root)
        try diagnostics.throwIfAny(file: file)
        return GatesFile(path: file, gates: gates)
    }

    /// Whether any gate compares against a baseline.
    public var hasRegressionGates: Bool {
        gates.contains { if case .regression = $0.rule { true } else { false } }
    }
}

/// Reads the `gates:` list, recording every problem in the shared diagnostics.
struct GatesReader {
    let diagnostics: RigDiagnostics
    let boards: [String: String]?
    private var seen: [Gate.Rule: [GateScope]] = [:]

    init(diagnostics: RigDiagnostics, boards: [String: String]?) {
        self.diagnostics = diagnostics
        self.boards = boards
    }

    mutating func decode(_ root: RigNode) -> [Gate] {
        guard var reader = RigMappingReader(root, noun: "the gates file", diagnostics: diagnostics) else { return [] }
        let list = reader.value("gates")
        if list == nil { reader.recordMissing("gates", because: " (a list of gates, see docs/gates.md)") }
        reader.rejectUnknownKeys()
        guard let list else { return [] }
        guard let elements = list.elements else {
            diagnostics.record(.wrongType, "'gates' must be a list of gates, found \(list.summary)", at: list.location)
            return []
        }
        if elements.isEmpty { diagnostics.record(.invalidValue, "'gates' lists no gate", at: list.location) }
        var gates: [Gate] = []
        for element in elements {
            guard let gate = decodeGate(element) else { continue }
            if seen[gate.rule, default: []].contains(gate.scope) {
                diagnostics.record(
                    .conflict, "the gate '\(gate.text)' for \(gate.scope) is written twice", at: gate.location)
                continue
            }
            seen[gate.rule, default: []].append(gate.scope)
            gates.append(gate)
        }
        return gates
    }

    /// One element: an expression (whole rig), or a mapping with `gate:` or `regression:` and a scope.
    func decodeGate(_ node: RigNode) -> Gate? {
        if let scalar = node.scalar, !scalar.isNull {
            return GateExpression.parse(node, diagnostics: diagnostics).map { Gate(.absolute($0), at: node.location) }
        }
        guard var reader = RigMappingReader(node, noun: "a gate", diagnostics: diagnostics) else { return nil }
        let hasGate = reader.contains("gate")
        let hasRegression = reader.contains("regression")
        let scope = decodeScope(&reader)
        let rule: Gate.Rule?
        switch (hasGate, hasRegression) {
        case (true, true):
            diagnostics.record(
                .conflict, "a gate has either 'gate' (a limit) or 'regression' (against a baseline), not both",
                at: reader.keyLocation("regression") ?? node.location)
            rule = nil
        case (true, false):
            rule = reader.read("gate", required: true) { node throws(RigFileIssue) in node }
                .flatMap { GateExpression.parse($0, diagnostics: diagnostics) }.map { .absolute($0) }
        case (false, true):
            rule = RegressionReader.decode(&reader).map { .regression($0) }
        case (false, false):
            diagnostics.record(
                .missingKey,
                "a gate needs 'gate' (`gate: handshake.ready_ms.p50 <= 800`) or 'regression' "
                    + "(`regression: handshake.ready_ms`)", at: node.location)
            rule = nil
        }
        reader.rejectUnknownKeys()
        guard let rule, let scope else { return nil }
        return Gate(rule, scope: scope, at: node.location)
    }

    /// `board:` or `profile:`, at most one; the whole rig when neither. Nil after recording a problem.
    func decodeScope(_ reader: inout RigMappingReader) -> GateScope? {
        let board = reader.string("board")
        let profile = reader.read("profile") { node throws(RigFileIssue) in
            try node.choice(for: "profile", noun: "profile", Profile.self)
        }
        let boardWritten = reader.keyLocation("board")
        let profileWritten = reader.keyLocation("profile")
        if boardWritten != nil, profileWritten != nil {
            diagnostics.record(
                .conflict, "a gate is for one board or one profile, not both (leave both out for every board)",
                at: profileWritten!)
            return nil
        }
        if let board {
            if let boards, boards[board] == nil {
                diagnostics.record(
                    .invalidValue,
                    "unknown board \(RigWording.quoted(board)) (the rig has \(RigWording.list(boards.keys.sorted(), conjunction: "and")))"
                        + RigWording.hint(for: board, among: Array(boards.keys)),
                    at: reader.node["board"]?.location ?? boardWritten!)
                return nil
            }
            return .board(board)
        }
        if let profile { return .profile(profile.rawValue) }
        if boardWritten != nil || profileWritten != nil { return nil }
        return .rig
    }
}

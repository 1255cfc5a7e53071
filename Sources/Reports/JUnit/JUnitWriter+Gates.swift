/// The `gates` testsuite: one testcase per gate, after the boards' suites, so CI shows a release gate as it
/// shows a check.
///
/// - `<testsuite name="gates" tests failures skipped errors="0" time="0.000" timestamp hostname id package>`;
/// - `<testcase classname="gates.<scope>" name="<gate as written>" time="0.000">` where scope is `rig`,
///   `board.<id>` or `profile.<profile>`;
/// - a breached gate has `<failure type="breached" message="<one line>">` with the evidence as text; a gate with
///   not enough data is `<skipped message="not enough data: <why>">` (counted in `skipped`, not a failure: CI
///   shows it, and the gate's run is not failed by missing numbers alone); a held gate has no child but its
///   `<system-out>`, which holds the one-line message and the evidence for every gate.
extension JUnitWriter {
    /// What the gates add to the `<testsuites>` totals.
    static func counts(of gates: [GateVerdict]) -> TestCounts {
        TestCounts(
            passed: gates.count { $0.decision == .held }, failed: gates.count { $0.decision == .breached },
            skipped: gates.count { $0.decision == .notEnoughData })
    }

    func gatesSuite(_ gates: [GateVerdict], index: Int, run result: RunResult, into xml: inout XMLWriter) {
        guard !gates.isEmpty else { return }
        let counts = Self.counts(of: gates)
        xml.start(
            "testsuite",
            [
                ("name", Self.gatesSuiteName), ("tests", String(counts.tests)), ("failures", String(counts.failed)),
                ("errors", "0"), ("skipped", String(counts.skipped)), ("time", "0.000"),
                ("timestamp", result.run.map { NumberText.timestamp($0.wallStart) }),
                ("hostname", result.run?.host), ("id", String(index)), ("package", result.run?.rig),
            ])
        for gate in gates {
            xml.start(
                "testcase",
                [("name", gate.gate), ("classname", Self.gateClassName(gate.scope)), ("time", "0.000")])
            switch gate.decision {
            case .held:
                break
            case .breached:
                xml.element("failure", [("message", gate.message), ("type", "breached")], text: gate.details)
            case .notEnoughData:
                xml.empty("skipped", [("message", "not enough data: \(gate.message)")])
            }
            xml.element("system-out", text: Self.gateListing(gate))
            xml.end()
        }
        xml.end()
    }

    /// `gates.rig`, `gates.board.esp-01`, `gates.profile.esp-point`.
    static func gateClassName(_ scope: String) -> String {
        "gates." + scope.split(separator: " ").joined(separator: ".")
    }

    static func gateListing(_ gate: GateVerdict) -> String {
        var lines = ["\(gate.decision.rawValue): \(gate.message)"]
        if let measured = gate.measured { lines.append("measured: \(NumberText.machine(measured))") }
        if let baseline = gate.baseline { lines.append("baseline: \(NumberText.machine(baseline))") }
        if !gate.details.isEmpty { lines.append(gate.details) }
        return lines.joined(separator: "\n") + "\n"
    }
}

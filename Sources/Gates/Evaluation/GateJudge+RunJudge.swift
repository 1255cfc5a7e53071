import Orchestrator
import Reports

extension GateJudge: RunJudge {
    public func judge(_ result: RunResult) async -> RunJudgement {
        let report = await report(result)
        return RunJudgement(
            verdicts: report.verdicts, files: [(name: "gates.json", text: report.json())], summary: "\n" + report.text)
    }
}

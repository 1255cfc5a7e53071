import Dispatch

/// Every report of a run, rendered from its folded result: the files a run directory gets at the end.
///
/// | file          | what                                                                       |
/// |---------------|----------------------------------------------------------------------------|
/// | `junit.xml`   | ``JUnitWriter``: testcases for CI, validated against junit-10 and Surefire |
/// | `summary.md`  | ``SummaryMarkdown``: a pull-request comment, at most 100 columns           |
/// | `report.html` | ``HTMLReport``: one self-contained page with SVG charts                    |
/// | `metrics.prom`| ``OpenMetricsWriter``: OpenMetrics text in base units, ending in `# EOF`   |
public struct RunReports: Sendable {
    public var result: RunResult
    public var inputs: ReportInputs

    public init(_ result: RunResult, inputs: ReportInputs = ReportInputs()) {
        self.result = result
        self.inputs = inputs
    }

    public struct File: Sendable, Hashable {
        /// The file's name in the run directory.
        public var name: String
        public var text: String
    }

    /// The rendered files, in the order above. They are rendered side by side (each from the same immutable
    /// result): a run of thousands of checks waits for the slowest of them, not for their sum.
    public func files() -> [File] {
        let (result, inputs) = (result, inputs)
        let renderers: [@Sendable () -> File] = [
            { File(name: "junit.xml", text: JUnitWriter().render(result, gates: inputs.gates)) },
            { File(name: "summary.md", text: SummaryMarkdown().render(result, inputs: inputs)) },
            { File(name: "report.html", text: HTMLReport().render(result, inputs: inputs)) },
            { File(name: "metrics.prom", text: OpenMetricsWriter().render(result)) },
        ]
        return renderers.concurrentMap { render in render() }
    }
}

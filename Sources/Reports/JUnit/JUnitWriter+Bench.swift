/// The `bench` testsuite: two testcases about the bench itself, present in every run so that the counts do not
/// change between runs, and red whenever the bench let the run down, since CI reporters show only testcases (a
/// `tests="0"` file is green or empty in GitLab, Jenkins and GitHub):
///
/// | testcase | passes when                                 | otherwise                                              |
/// |----------|---------------------------------------------|--------------------------------------------------------|
/// | `open`   | the bench opened and a board started        | `<error type="infrastructure">` the bench did not open |
/// |          |                                             | (or no board was tested); `type="interrupted"` when    |
/// |          |                                             | the run was stopped before any board started           |
/// | `run`    | the run ended without the bench failing     | `<error type="infrastructure">` the bench failed       |
/// |          |                                             | during the run, or the log ends without `runFinished`; |
/// |          |                                             | skipped when the bench never opened                    |
struct BenchChecks {
    struct Check {
        var name: String
        var outcome: TestOutcome
        var failureClass: FailureClass?
        var time: Duration
    }

    var checks: [Check]

    init(_ result: RunResult) {
        let started = result.boards.contains { $0.started != nil }
        let infrastructure = result.finished?.interruptionClass == .infrastructure
        let interruption = result.interruption.map(VisibleText.singleLine)
        var open = Check(name: "open", outcome: .passed, failureClass: nil, time: .zero)
        var run = Check(name: "run", outcome: .passed, failureClass: nil, time: result.finished?.wallDuration ?? .zero)
        if !started {
            if infrastructure, let interruption {
                open.outcome = .error(
                    message: "the bench did not open: \(interruption)",
                    details: "No board was started: every check of the plan is reported as not run.")
                open.failureClass = .infrastructure
            } else if let interruption {
                open.outcome = .interrupted(reason: "the run was stopped before any board started (\(interruption))")
            } else {
                open.outcome = .error(
                    message: "no board was tested",
                    details: "The run log has no boardStarted event: the bench opened no board, or the log is cut.")
                open.failureClass = .infrastructure
            }
            run.outcome = .skipped(reason: "the bench did not open")
        } else if infrastructure, let interruption {
            run.outcome = .error(
                message: "the bench failed during the run: \(interruption)",
                details: "Checks in flight when it failed ended as errors; the checks after them are not run.")
            run.failureClass = .infrastructure
        } else if result.finished == nil {
            run.outcome = .error(
                message: "the run log ends without runFinished",
                details: "blerig stopped before the end of the run (killed, or crashed); the reports show what the "
                    + "log holds.")
            run.failureClass = .infrastructure
        }
        checks = [open, run]
    }

    var counts: TestCounts { checks.reduce(TestCounts()) { $0 + TestCounts($1.outcome) } }
}

extension JUnitWriter {
    /// The suite's name, and the classname of its testcases.
    static let benchSuiteName = "bench"
    /// The gates testsuite's name, and the classname of its testcases.
    static let gatesSuiteName = "gates"
    /// Testsuite names that are not a board's: a board may not take one, in any case, or its testsuite would
    /// merge with the bench's or the gates' in a CI reporter (the rig file refuses it).
    public static let reservedSuiteNames: Set<String> = [benchSuiteName, gatesSuiteName]

    static func benchSuite(_ bench: BenchChecks, index: Int, run result: RunResult, into xml: inout XMLWriter) {
        let counts = bench.counts
        xml.start(
            "testsuite",
            [
                ("name", benchSuiteName), ("tests", String(counts.tests)), ("failures", String(counts.failed)),
                ("errors", String(counts.errors)), ("skipped", String(counts.skipped)),
                ("time", NumberText.seconds3(bench.checks.reduce(.zero) { $0 + $1.time })),
                ("timestamp", result.run.map { NumberText.timestamp($0.wallStart) }),
                ("hostname", result.run?.host), ("id", String(index)), ("package", result.run?.rig),
            ])
        if let run = result.run {
            xml.start("properties")
            xml.empty("property", [("name", "run.id"), ("value", run.runID)])
            xml.empty("property", [("name", "radio"), ("value", run.radio)])
            xml.end()
        }
        for check in bench.checks {
            let attributes: XMLWriter.Attributes = [
                ("name", check.name), ("classname", benchSuiteName), ("time", NumberText.seconds3(check.time)),
            ]
            let type = Self.type(check.outcome, check.failureClass)
            switch check.outcome {
            case .passed:
                xml.empty("testcase", attributes)
            case .skipped(let reason):
                xml.start("testcase", attributes)
                xml.empty("skipped", [("message", reason)])
                xml.end()
            case .failed(let message, let details), .error(let message, let details):
                xml.start("testcase", attributes)
                let name = check.outcome.isFailure ? "failure" : "error"
                xml.element(name, [("message", "\(Self.prefix(type))bench \(message)"), ("type", type)], text: details)
                xml.end()
            case .interrupted(let reason):
                xml.start("testcase", attributes)
                xml.empty("error", [("message", "interrupted: \(reason)"), ("type", type)])
                xml.end()
            }
        }
        xml.end()
    }
}

extension TestOutcome {
    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

/// The `<property>` names a board's suite carries. Tools that read the JUnit file (gates, dashboards) may rely
/// on them:
///
/// | name                                   | value                                                |
/// |----------------------------------------|------------------------------------------------------|
/// | `run.id`, `rig`, `rig.file`, `radio`   | from ``RunEvent/RunStarted``                         |
/// | `run.seed`                             | the virtual farm's seed (absent on hardware)         |
/// | `run.wall_time_s`                      | the run's wall-clock duration, `%.3f` seconds        |
/// | `run.interrupted`                      | why the run stopped early (absent when it did not)   |
/// | `board.profile`, `board.<key>`         | the board's profile and ``IdentityField``s           |
/// | `attachment.<kind>`                    | a file's path relative to the report directory       |
/// | `<suite>.<check>.<metric>.definition`  | what was timed or counted                            |
/// | `<suite>.<check>.<metric>.unit`        | the unit (absent for plain counts)                   |
/// | `<suite>.<check>.<metric>.<statistic>` | the number, bare (`212.4`, `NaN`, `+Inf`)            |
///
/// Metric names already contain dots (`handshake.ready_ms`); read a metric property by its known
/// `<suite>.<check>.` prefix and `.<statistic>` suffix rather than by splitting on dots.
extension JUnitWriter {
    struct Property: Hashable {
        var name: String
        var value: String
    }

    static func properties(_ board: BoardResult, run result: RunResult) -> [Property] {
        var properties: [Property] = []
        if let run = result.run {
            properties.append(Property(name: "run.id", value: run.runID))
            properties.append(Property(name: "rig", value: run.rig))
            properties.append(Property(name: "rig.file", value: run.rigFile))
            if let seed = run.seed { properties.append(Property(name: "run.seed", value: String(seed))) }
            properties.append(Property(name: "radio", value: run.radio))
        }
        if let finished = result.finished {
            properties.append(Property(name: "run.wall_time_s", value: NumberText.seconds3(finished.wallDuration)))
        }
        if let interruption = result.interruption {
            properties.append(Property(name: "run.interrupted", value: interruption))
        }
        if let profile = board.profile { properties.append(Property(name: "board.profile", value: profile)) }
        for field in board.identity {
            properties.append(Property(name: "board.\(field.key)", value: field.value))
        }
        for attachment in board.attachments {
            properties.append(Property(name: "attachment.\(attachment.kind.rawValue)", value: attachment.path))
        }
        for test in board.tests {
            properties += metricProperties(test)
        }
        return properties
    }

    /// A check's numbers, grouped by metric in the order the metrics first appear; each metric's definition and
    /// unit come once, before its statistics.
    static func metricProperties(_ test: TestResult) -> [Property] {
        var properties: [Property] = []
        for group in MeasuredValue.groupedByMetric(test.measurements) {
            let prefix = "\(test.suite).\(test.name).\(group.metric)"
            let first = group.values[0]
            properties.append(Property(name: "\(prefix).definition", value: first.definition))
            if !first.unit.rawValue.isEmpty {
                properties.append(Property(name: "\(prefix).unit", value: first.unit.rawValue))
            }
            for value in group.values {
                properties.append(
                    Property(name: "\(prefix).\(value.statistic.rawValue)", value: NumberText.machine(value.value)))
            }
        }
        return properties
    }
}

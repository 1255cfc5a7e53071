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
/// | `board.final_state`                    | the state the board finished in (`quarantined`)      |
/// | `attachment.<kind>`                    | a file's path relative to the report directory       |
/// | `board.<metric>.definition`            | a board-level number's definition                    |
/// | `board.<metric>.unit`                  | its unit (absent for plain counts)                   |
/// | `board.<metric>.<statistic>`           | the number, bare                                     |
/// | `<suite>.<check>.<metric>.definition`  | what was timed or counted                            |
/// | `<suite>.<check>.<metric>.unit`        | the unit (absent for plain counts)                   |
/// | `<suite>.<check>.<metric>.<statistic>` | the number, bare (`212.4`, `NaN`, `+Inf`)            |
///
/// Board-level numbers (``BoardResult/measurements``, such as `board.schedule.link_wait_ms.max`) describe the
/// board's run as a whole rather than a check. Metric names already contain dots (`handshake.ready_ms`); read a
/// metric property by its known `<suite>.<check>.` or `board.` prefix and `.<statistic>` suffix rather than by
/// splitting on dots.
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
        if let state = board.finalState { properties.append(Property(name: "board.final_state", value: state)) }
        for attachment in board.attachments {
            properties.append(Property(name: "attachment.\(attachment.kind.rawValue)", value: attachment.path))
        }
        properties += metricProperties(board.measurements, prefix: "board")
        for test in board.tests {
            properties += metricProperties(test.measurements, prefix: "\(test.suite).\(test.name)")
        }
        return properties
    }

    /// Numbers named `<prefix>.<metric>.<statistic>`, grouped by metric in the order the metrics first appear;
    /// each metric's definition and unit come once, before its statistics.
    static func metricProperties(_ values: [MeasuredValue], prefix: String) -> [Property] {
        var properties: [Property] = []
        for group in MeasuredValue.groupedByMetric(values) {
            let prefix = "\(prefix).\(group.metric)"
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

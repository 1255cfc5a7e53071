/// The `<property>` names a board's suite carries, each at most once. Tools that read the JUnit file (gates,
/// dashboards, Jenkins with `keepProperties`) may rely on them:
///
/// | name                                   | value                                                     |
/// |----------------------------------------|-----------------------------------------------------------|
/// | `run.id`, `rig`, `rig.file`, `radio`   | from ``RunEvent/RunStarted``                              |
/// | `run.seed`                             | the virtual farm's seed (absent on hardware)              |
/// | `run.wall_time_s`                      | the run's wall-clock duration, `%.3f` seconds             |
/// | `run.interrupted`                      | why the run stopped early (absent when it did not)        |
/// | `run.interruption_class`               | `infrastructure` when the bench failed (else absent)      |
/// | `bench_time_s`                         | the board's bench time on the virtual farm, `%.3f` s      |
/// | `board.profile`, `board.<key>`         | the board's profile and ``IdentityField``s                |
/// | `board.final_state`                    | the state the board finished in (`quarantined`)           |
/// | `attachment.<kind>`                    | a file's path relative to the report directory            |
/// | `<metric>.unit`                        | the metric's unit (absent for plain counts)               |
/// | `<metric>.<statistic>`                 | the number, 4 significant digits (`212.4`, `NaN`, `+Inf`) |
///
/// Metrics come from the board's own numbers (``BoardResult/measurements``, such as
/// `schedule.link_wait_ms.value`) and then its checks', in the order they ran; where two checks of a board
/// measure the same metric and statistic, the first one's number is the property, and each check's
/// `<system-out>` lists all of its own numbers with their definitions. Names carry no spaces (a space in a
/// metric or identity key becomes `_`). Metric names contain dots (`handshake.ready_ms`); the statistic is the
/// part after the last dot.
extension JUnitWriter {
    struct Property: Hashable {
        var name: String
        var value: String
    }

    static func properties(_ board: BoardResult, run result: RunResult) -> [Property] {
        var list = PropertyList()
        if let run = result.run {
            list.add("run.id", run.runID)
            list.add("rig", run.rig)
            list.add("rig.file", run.rigFile)
            if let seed = run.seed { list.add("run.seed", String(seed)) }
            list.add("radio", run.radio)
        }
        if let finished = result.finished {
            list.add("run.wall_time_s", NumberText.seconds3(finished.wallDuration))
            if let interruption = finished.interruption { list.add("run.interrupted", interruption) }
            if let kind = finished.interruptionClass { list.add("run.interruption_class", kind.rawValue) }
        }
        if result.isVirtual { list.add("bench_time_s", NumberText.seconds3(board.elapsed)) }
        if let profile = board.profile { list.add("board.profile", profile) }
        for field in board.identity { list.add("board.\(field.key)", field.value) }
        if let state = board.finalState { list.add("board.final_state", state) }
        for attachment in board.attachments { list.add("attachment.\(attachment.kind.rawValue)", attachment.path) }
        for value in board.measurements + board.tests.flatMap(\.measurements) {
            if !value.unit.rawValue.isEmpty { list.add("\(value.metric).unit", value.unit.rawValue) }
            list.add("\(value.metric).\(value.statistic.rawValue)", NumberText.significant(value.value))
        }
        return list.properties
    }

    /// Properties in the order first added; a name added again keeps its first value.
    private struct PropertyList {
        var properties: [Property] = []
        var names: Set<String> = []

        mutating func add(_ name: String, _ value: String) {
            let name = JUnitWriter.propertyName(name)
            guard names.insert(name).inserted else { return }
            properties.append(Property(name: name, value: value))
        }
    }

    /// `name` with control characters made visible (`\x07`, as everywhere else) and whitespace made `_`.
    static func propertyName(_ name: String) -> String {
        let name = VisibleText.visible(name)
        // ASCII without a space or a control (visible leaves none) has no whitespace: no scalar properties to look up.
        guard name.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return name }
        guard name.unicodeScalars.contains(where: \.properties.isWhitespace) else { return name }
        var result = ""
        for scalar in name.unicodeScalars {
            if scalar.properties.isWhitespace { result += "_" } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}

import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Reports

/// `alerts` (hrm boards): the app's alert policy (``AlertPolicy``: above 140 bpm `redAlert`, below 125 `turnOff`,
/// only on a change) driven by the board's live Heart Rate Measurement notifications for a while, writing Alert
/// Level as it decides. The board's own record is the evidence: every write the hrm takes it prints on its
/// console (`I/ALERT: redAlert`), and the check compares that record with the writes. It fails when the board
/// shows a write the policy did not make or misses one it made, when the board shows the same alert twice in a row
/// (a repeated write), when a write did not happen on a crossing of the measured rate, and when the rate never
/// crossed both thresholds (then nothing was tested: choose a heart-rate pattern that does).
struct AlertsSuite: Suite {
    static let name = "alerts"
    static let test = "policy writes on crossings only"
    var duration: Duration = .seconds(300)
    /// How long the console is given to print the last write's line after the listening window.
    static let settle: Duration = .seconds(1)

    init(options: inout RigMappingReader) {
        if let seconds = options.number("duration_s", in: 10...86_400, unit: "s") {
            duration = .milliseconds(seconds * 1000)
        }
    }

    var defaultCheckTimeout: Duration { duration + .seconds(180) }

    func checkNames(for profile: Profile) -> [String] { profile == .hrm ? [Self.test] : [] }

    func run(on board: BoardUnderTest) async {
        guard board.profile == .hrm else {
            board.recorder.notApplicable(
                Self.name, Self.test, reason: "the alert policy drives hrm boards; this is \(board.profile)")
            return
        }
        guard board.bench.console != nil else {
            board.recorder.skip(
                Self.name, Self.test, reason: "the board has no console in the rig: nothing shows what it received")
            return
        }
        let duration = duration
        await board.check(Self.name, Self.test) {
            let run = try await board.withAppCentral(purpose: "alerts") { app in
                try await app.raiseAlerts(for: duration)
            }
            try await board.clock.sleep(for: Self.settle)
            let shown = board.consoleLog.entries(since: run.start).compactMap(Self.alert)
            return try Self.evaluate(run, shown: shown, board: board)
        }
    }

    /// The alert of a console line `[uptime] I/ALERT: redAlert`, nil for other lines.
    static func alert(_ entry: ConsoleEntry) -> HeartRateMonitor.Alert? {
        guard case let .log(_, _, tag, message) = entry.line, tag == "ALERT" else { return nil }
        return HeartRateMonitor.Alert(rawValue: message)
    }

    static func evaluate(
        _ drive: AlertRun, shown: [HeartRateMonitor.Alert], board: BoardUnderTest
    ) throws
        -> [MeasuredValue]
    {
        let written = drive.writes.map(\.alert)
        let raised = written.filter { $0 == .redAlert }.count
        let repeated = zip(shown, shown.dropFirst()).filter { $0 == $1 }.count
        let offCrossing = drive.writes.filter { write in
            write.alert == write.before
                || (write.alert == .redAlert
                    ? write.bpm <= AlertPolicy.defaultRaiseAbove
                    : write.bpm >= AlertPolicy.defaultClearBelow)
        }
        let measurements = [
            MeasuredValue(
                metric: "alerts.measurements", statistic: .value, value: Double(drive.measurements), unit: .count,
                definition: "Heart Rate Measurements fed through the alert policy"),
            MeasuredValue(
                metric: "alerts.raised", statistic: .value, value: Double(raised), unit: .count,
                definition: "redAlert writes: the rate rose above 140 bpm with the light off"),
            MeasuredValue(
                metric: "alerts.cleared", statistic: .value, value: Double(written.count - raised), unit: .count,
                definition: "turnOff writes: the rate fell below 125 bpm with the light on"),
            MeasuredValue(
                metric: "alerts.board_received", statistic: .value, value: Double(shown.count), unit: .count,
                definition: "Alert Level writes the board's console shows during the window"),
            MeasuredValue(
                metric: "alerts.repeated", statistic: .value, value: Double(repeated), unit: .count,
                definition: "consecutive identical alerts on the board's console (a repeated write)"),
        ]
        var problems: [String] = []
        if shown != written {
            problems.append(
                "the board shows \(shown.count) write(s) \(shown.map(\.rawValue)) but the policy made \(written.count) "
                    + "\(written.map(\.rawValue))")
        }
        if repeated > 0 { problems.append("the board shows \(repeated) repeated alert(s)") }
        if !offCrossing.isEmpty {
            problems.append(
                "\(offCrossing.count) write(s) not on a crossing, first \(offCrossing[0].alert.rawValue) at "
                    + "\(offCrossing[0].bpm) bpm")
        }
        if raised == 0 || written.count == raised {
            problems.append(
                "the heart rate never crossed both thresholds in \(drive.measurements) measurements (raised "
                    + "\(raised), cleared \(written.count - raised)): nothing was tested; give the board a pattern "
                    + "that rises above 140 and falls below 125 bpm")
        }
        guard problems.isEmpty else {
            throw MeasuredFailure(
                failure: CheckFailure("\(board.place): " + problems.joined(separator: "; ")), measurements: measurements
            )
        }
        return measurements
    }
}

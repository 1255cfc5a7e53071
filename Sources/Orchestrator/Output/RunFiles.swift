import BLECore
import Foundation
import Reports
import Synchronization

/// Every file of one run: the directory, the streamed run log, captures and consoles, and the reports written at
/// the end (`junit.xml`, `summary.md`, `report.html`, `metrics.prom`, `summary.txt`, written atomically: a
/// reader never sees half a file). A write that fails
/// while the run goes on stops the run as an infrastructure failure with the path and the reason.
struct RunFiles: Sendable {
    let directory: RunDirectory
    let recorder: RunRecorder
    let captures: CaptureFiles
    let consoles: ConsoleFiles
    /// Writes the streamed files out on a thread of its own on a wall-clock bench (see ``OutputWriter``); nil on
    /// the virtual farm, whose one simulation thread writes them itself between events.
    let writer: OutputWriter?

    /// Creates `<root>/<run-id>/` and every streamed file in it, each board's capture and console included, so a
    /// directory that cannot be written is known before anything runs.
    init(
        root: String, rig: RigConfig, seed: UInt64?, at date: Date, progress: @escaping @Sendable (String) -> Void,
        control: RunControl
    ) throws(OutputError) {
        directory = try RunDirectory.create(under: root, rig: rig.name, seed: seed, at: date)
        let failed: @Sendable (OutputError) -> Void = { error in
            control.interrupt(.infrastructure(error.description))
        }
        let writer = rig.isVirtual ? nil : OutputWriter(failed: failed)
        self.writer = writer
        recorder = try RunRecorder(directory: directory, progress: progress, failed: failed, writer: writer)
        let boards = rig.boards.map(\.id)
        let hardwareRadios = rig.radios.filter { !$0.isVirtual }.map(\.id)
        // The captures and the consoles are created side by side, each directory on a thread of its own: creating
        // a file holds its directory's lock, and on ext4 finding a free inode costs up to a millisecond right after
        // many files were deleted (it passes over inodes freed in the last minute), so a thousand boards' files
        // took seconds one after the other.
        let directory = directory
        (captures, consoles) = try bothAtOnce(
            {
                () throws(OutputError) in
                try CaptureFiles(
                    directory: directory, boards: boards, radios: hardwareRadios, writer: writer, failed: failed)
            },
            { () throws(OutputError) in try ConsoleFiles(directory: directory, boards: boards, writer: writer) })
        // Prove the disk takes bytes now rather than after an hour of testing.
        try captures.flush()
    }

    /// Writes out everything still buffered; returns what could not be written, one line each.
    func finish() -> [String] {
        writer?.stop()
        var problems: [String] = []
        for flush in [recorder.log.flush, captures.flush, consoles.flush] {
            do { try flush() } catch { problems.append(error.description) }
        }
        return problems
    }

    /// Renders and writes the reports of the run's end: `junit.xml`, `summary.md`, `report.html`, `metrics.prom`
    /// (``RunReports``) and `summary.txt` (`summary`, its lines wrapped at 100 columns). When the run directory
    /// cannot take them (a full disk), they go to a rescue directory in the system's temporary directory, with
    /// every byte the streamed files could not write, so nothing the run measured is lost; returns what went wrong
    /// and where the rescue is.
    func writeFinal(
        _ result: RunResult, summary: String, inputs: ReportInputs = ReportInputs(),
        others: [(name: String, text: String)] = []
    ) -> (problems: [String], rescue: String?) {
        let reports = RunReports(result, inputs: inputs).files().map { ($0.name, $0.text) }
        return writeFinal(reports + [("summary.txt", TextWrap.wrap(summary, width: 100))] + others)
    }

    /// Writes `reports` (name, text) into the run directory, or to the rescue directory as above.
    func writeFinal(_ reports: [(name: String, text: String)]) -> (problems: [String], rescue: String?) {
        var problems: [String] = []
        var homeless: [(name: String, bytes: [UInt8])] = []
        for (name, text) in reports {
            do { try AppendFile.writeAtomically(Array(text.utf8), to: directory.file(name)) } catch {
                problems.append(error.description)
                homeless.append((name, Array(text.utf8)))
            }
        }
        for file in [recorder.log] + captures.files + consoles.files {
            let unwritten = file.takeBuffered()
            guard !unwritten.isEmpty else { continue }
            let relative = String(file.path.dropFirst(directory.path.count + 1))
            homeless.append((relative + ".unwritten", unwritten))
        }
        guard !homeless.isEmpty else { return (problems, nil) }
        let rescue = (NSTemporaryDirectory() as NSString).appendingPathComponent("blerig-rescue-\(directory.runID)")
        do {
            for (name, bytes) in homeless {
                let path = (rescue as NSString).appendingPathComponent(name)
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try AppendFile.writeAtomically(bytes, to: path)
            }
        } catch {
            problems.append("the rescue failed too: \(error)")
            return (problems, nil)
        }
        return (problems, rescue)
    }
}

/// The line the CLI prints for an event, if it prints one.
struct ProgressLine {
    let text: String

    init?(_ event: RunEvent, directory: String) {
        switch event {
        case let .runStarted(run):
            text = "run \(run.runID): rig \(run.rig) on the \(run.radio); reports in \(directory)/"
        case let .transition(change):
            // Sessions come and go many times a suite: their transitions are in the reports, not on the screen. So
            // are the app central's links opened for work and closed when it is done; a lost link is shown.
            let chatty: Set<String> = [BoardState.connected.rawValue]
            guard !chatty.contains(change.from), !chatty.contains(change.to) else { return nil }
            let links: Set<String> = ["central.pairedConnected", "central.pairedDisconnected"]
            guard !(links.contains(change.from) && links.contains(change.to) && !change.reason.hasPrefix("link lost"))
            else { return nil }
            text = "[\(change.board)] \(change.from) → \(change.to) (\(change.reason)) at \(change.at)"
        case let .testFinished(test):
            let verdict: String =
                switch test.outcome {
                case .passed: "passed"
                case let .failed(message, _): "FAILED: \(message)"
                case let .error(message, _): "ERROR: \(message)"
                case let .skipped(reason): "skipped: \(reason)"
                case let .interrupted(reason): "INTERRUPTED: \(reason)"
                }
            let numbers = test.measurements.filter { [.p50, .value].contains($0.statistic) }.prefix(2)
                .map { "\($0.metric) \($0.reading)" }
            text =
                "[\(test.board)] \(test.suite) / \(test.test): \(verdict)"
                + (numbers.isEmpty ? "" : " (" + numbers.joined(separator: ", ") + ")")
        default:
            return nil
        }
    }
}

/// Runs `first` and `second` at the same time, each on a thread of its own, and returns both results once both are
/// done; throws `first`'s error when it failed, else `second`'s.
func bothAtOnce<A: Sendable, B: Sendable, Failure: Error>(
    _ first: @Sendable () throws(Failure) -> A, _ second: @Sendable () throws(Failure) -> B
) throws(Failure) -> (A, B) {
    let firstResult = Mutex<Result<A, Failure>?>(nil)
    let secondResult = Mutex<Result<B, Failure>?>(nil)
    DispatchQueue.concurrentPerform(iterations: 2) { part in
        if part == 0 {
            let made = Result(catching: first)
            firstResult.withLock { $0 = made }
        } else {
            let made = Result(catching: second)
            secondResult.withLock { $0 = made }
        }
    }
    let a = try firstResult.withLock { $0! }.get()
    let b = try secondResult.withLock { $0! }.get()
    return (a, b)
}

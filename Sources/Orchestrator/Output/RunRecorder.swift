import Foundation
import Reports
import Synchronization

/// Where a run's events go as they happen: one JSON line each appended to `run.jsonl` (streamed, so an
/// interrupted or killed run keeps what it did), folded into a bounded ``RunResult`` for the reports written at
/// the end, and turned into progress lines. Memory does not grow with the run's length: the fold keeps at most
/// ``timelineLimit`` log lines per board, the file buffer is bounded.
final class RunRecorder: Sendable {
    /// Timeline entries (log lines, state transitions) a board keeps for junit.xml; run.jsonl has them all.
    static let timelineLimit = 2_000

    let log: AppendFile
    let directory: RunDirectory
    private let state = Mutex(State())
    private let progress: @Sendable (String) -> Void
    private let failed: @Sendable (OutputError) -> Void

    private struct State {
        var builder = RunResultBuilder(timelineLimit: RunRecorder.timelineLimit)
        var events = 0
    }

    /// Creates `run.jsonl` in `directory`.
    init(
        directory: RunDirectory, progress: @escaping @Sendable (String) -> Void,
        failed: @escaping @Sendable (OutputError) -> Void, writer: OutputWriter? = nil
    ) throws(OutputError) {
        log = try AppendFile(creating: directory.file("run.jsonl"), threshold: 32 * 1024, writer: writer)
        self.directory = directory
        self.progress = progress
        self.failed = failed
    }

    /// Records an event. A test's end flushes the log, so what finished is on disk (moments later, on the writer's
    /// thread, when the log has one: a check may end on the thread that reads a controller).
    func emit(_ event: RunEvent) {
        state.withLock { state in
            state.builder.take(event)
            state.events += 1
        }
        // Encoded outside the lock: with an air per radio, boards on every core emit at once.
        let line = try? event.jsonLine(using: RunEvent.lineEncoder())
        do {
            if let line { try log.append(Array((line + "\n").utf8)) }
            switch event {
            case .testFinished, .boardFinished: try log.flushSoon()
            case .runStarted, .runFinished: try log.flush()
            default: break
            }
        } catch {
            failed(error)
        }
        if let line = ProgressLine(event, directory: directory.path) { progress(line.text) }
    }

    /// The run so far, folded.
    var result: RunResult { state.withLock { $0.builder.result() } }

    /// Events recorded so far.
    var count: Int { state.withLock { $0.events } }
}

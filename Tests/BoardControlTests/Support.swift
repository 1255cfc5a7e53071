import BLECore
import BenchCore
import Glibc
import Synchronization

@testable import BoardControl

/// A clock whose sleeps pass at once, moving its time forward: waits are measured exactly, and a 3 s timeout takes
/// no wall time.
final class SteppingClock: RigClock {
    private let time = Mutex(RigInstant.origin)
    var now: RigInstant { time.withLock { $0 } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: RigInstant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        time.withLock { $0 = max($0, deadline) }
        await Task.yield()
    }
}

/// Modem lines that record every TIOCMSET with the clock's time, and count TIOCMGETs.
final class RecordingLines: ModemLineControl {
    struct Change: Hashable, CustomStringConvertible {
        var at: Duration
        var dtr: Bool
        var rts: Bool
        var description: String { "\(at.milliseconds)ms D\(dtr ? 1 : 0) R\(rts ? 1 : 0)" }
    }

    let clock: SteppingClock
    private let state = Mutex<(lines: ModemLines, changes: [Change], reads: Int)>(([], [], 0))

    init(clock: SteppingClock, initial: ModemLines = [.dtr, .rts]) {
        self.clock = clock
        state.withLock { $0.lines = initial }
    }

    var changes: [Change] { state.withLock { $0.changes } }
    var reads: Int { state.withLock { $0.reads } }

    func modemLines() throws(BenchError) -> ModemLines {
        state.withLock { state in
            state.reads += 1
            return state.lines
        }
    }

    func setModemLines(_ lines: ModemLines) throws(BenchError) {
        let at = clock.now.sinceOrigin
        state.withLock { state in
            state.lines = lines
            state.changes.append(Change(at: at, dtr: lines.dtrOn, rts: lines.rtsOn))
        }
    }
}

/// A temporary directory, removed with everything in it when the value goes.
final class TemporaryTree {
    let root: String

    init() {
        var template = Array("/tmp/blerig-board-XXXXXX".utf8CString)
        root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit {
        remove(root)
    }

    private func remove(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            for entry in FileText.directoryEntries(path) { remove("\(path)/\(entry)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    func path(_ relative: String) -> String { "\(root)/\(relative)" }

    /// Makes the directory and its parents.
    func directory(_ relative: String) {
        var built = root
        for part in relative.split(separator: "/") {
            built += "/\(part)"
            mkdir(built, 0o755)
        }
    }

    /// Writes `text` and a newline into `relative`, making its directory.
    func file(_ relative: String, _ text: String) {
        directory(FileText.parent(relative))
        let descriptor = open(path(relative), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// A symbolic link at `relative` to `target` (as written).
    func link(_ relative: String, to target: String) {
        directory(FileText.parent(relative))
        symlink(target, path(relative))
    }

    func removeItem(_ relative: String) { remove(path(relative)) }
}

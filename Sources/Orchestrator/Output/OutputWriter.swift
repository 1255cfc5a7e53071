import Foundation

/// A thread of its own that writes a run's streamed files out (``AppendFile/flushSoon()``), so that the threads
/// producing the bytes never wait for the disk. On a wall-clock bench the HCI host records captures, and the
/// campaign's checks emit run events, on the thread that reads the controller; a write there would hold up every
/// packet of the radio. Files are written in the order they were asked for; a file asked for twice before its turn
/// is written once. ``drain()`` waits until everything asked for is written; ``stop()`` drains and ends the thread.
final class OutputWriter: @unchecked Sendable {
    // @unchecked Sendable: `pending`, `busy` and `stopped` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var pending: [any BufferedOutput] = []
    private var busy = false
    private var stopped = false
    private let failed: @Sendable (OutputError) -> Void

    /// Starts the thread; a write that fails goes to `failed` with the path and the reason.
    init(failed: @escaping @Sendable (OutputError) -> Void) {
        self.failed = failed
        let thread = Thread { [self] in loop() }
        thread.name = "blerig-output"
        thread.start()
    }

    /// Asks for `file`'s buffer to be written out; returns at once. Written at once, here, after ``stop()``.
    func flushSoon(_ file: any BufferedOutput) {
        condition.lock()
        if stopped {
            condition.unlock()
            do { try file.writeBuffered() } catch { failed(error) }
            return
        }
        if !pending.contains(where: { $0 === file }) { pending.append(file) }
        condition.signal()
        condition.unlock()
    }

    /// Waits until every file asked for so far is written out.
    func drain() {
        condition.lock()
        while !pending.isEmpty || busy { condition.wait() }
        condition.unlock()
    }

    /// Writes out what is pending and ends the thread.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !pending.isEmpty || busy { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopped { condition.wait() }
            if pending.isEmpty {
                condition.unlock()
                return
            }
            let files = pending
            pending = []
            busy = true
            condition.unlock()
            for file in files {
                do { try file.writeBuffered() } catch { failed(error) }
            }
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// Output that buffers what it is given and has the ``OutputWriter`` take it further.
protocol BufferedOutput: AnyObject, Sendable {
    /// What the writer's thread does when asked: write the buffer out (an ``AppendFile``), or pass it on to the
    /// buffers that do (``CaptureFiles``).
    func writeBuffered() throws(OutputError)
}

extension AppendFile: BufferedOutput {
    func writeBuffered() throws(OutputError) { try flush() }
}

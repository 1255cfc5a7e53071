import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns SIGINT and SIGTERM into a ``RunControl`` interruption: the first signal stops the run gracefully
/// (checks in flight are marked interrupted, the reports are written); a second one exits at once with
/// ``ExitStatus/interrupted``. SIGPIPE is ignored, so a closed stdout shows up as a write error the output
/// handles instead of killing the run and its reports.
public final class SignalWatcher: @unchecked Sendable {
    // @unchecked Sendable: `sources` is set once in init and only cancelled in deinit; dispatch sources are
    // thread-safe objects.
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers; they stay until the watcher is released. `notice` is told of the first signal (to
    /// print "stopping…"); it may be called on any thread.
    public init(control: RunControl, notice: @escaping @Sendable (String) -> Void = { _ in }) {
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "blerig.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if control.interrupt(.signal(number)) {
                    notice(
                        "\(RunControl.Reason.signalName(number)) received: stopping; the reports are being written "
                            + "(send it again to exit at once)")
                } else {
                    // The second signal: the user wants out now. What has been streamed to disk stays there.
                    _exit(ExitStatus.interrupted.rawValue)
                }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

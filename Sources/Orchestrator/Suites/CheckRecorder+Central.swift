import CentralStack
import Reports

extension CheckRecorder {
    /// Puts a report of the app central (its connection shell's) in the board's timeline: a transition of its
    /// machine as a transition (`central.pairedConnected → central.pairedDisconnected: link lost: connection
    /// timeout`), other notices and each connection attempt (`session with … ready in 312.319 ms (link up in …)`) as
    /// log lines of source `central`, attempts that failed and problems as warnings.
    func record(_ report: ConnectionShell.Report) {
        switch report {
        case .attempt(let attempt, let at):
            let level: LogLevel = attempt.succeeded ? .info : .warning
            emit(.log(.init(board: board, at: at, level: level, source: "central", message: "\(attempt)")))
        case .notice(.transition(let transition), _):
            emit(
                .transition(
                    .init(
                        board: board, at: transition.at, from: "central.\(transition.from)",
                        to: "central.\(transition.to)", reason: transition.cause)))
        case .notice(let notice, let at):
            emit(.log(.init(board: board, at: at, level: .info, source: "central", message: "\(notice)")))
        case .problem(let message, let at):
            emit(.log(.init(board: board, at: at, level: .warning, source: "central", message: message)))
        }
    }
}

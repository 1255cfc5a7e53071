import BLECore
import BenchCore
import BoardControl
import Foundation
import Glibc
import Orchestrator

/// `blerig console`: the board's console lines as they arrive (with the boot each belongs to when asked), typed
/// lines sent to the board, until Ctrl-], SIGINT/SIGTERM, or `duration`. The port is followed across resets and
/// power cycles; the session says when it goes and comes back. With a log file, every line is also appended there
/// as the run's `console/<board>.log` has it.
public struct ConsoleSession: Sendable {
    public let tool: BoardTool
    public var timestamps = false
    public var logFile: String?
    public var duration: Duration?

    public init(tool: BoardTool, timestamps: Bool = false, logFile: String? = nil, duration: Duration? = nil) {
        self.tool = tool
        self.timestamps = timestamps
        self.logFile = logFile
        self.duration = duration
    }

    public func run(
        control: RunControl, output: @escaping @Sendable (String) -> Void, status: @escaping @Sendable (String) -> Void
    ) async throws(BoardToolError) {
        let serial = try tool.target.requireSerial(for: "read its console")
        let link: SerialBoardLink
        do {
            link = try SerialBoardLink(
                name: serial.name, settings: SerialPort.Settings(baud: serial.baud), wiring: serial.wiring,
                clock: tool.clock, environment: tool.environment)
        } catch {
            throw .bench(BenchError(error.code, "\(tool.target.prefix)\(error.message)"))
        }
        defer { link.close() }
        let log: FileHandle?
        if let logFile {
            guard FileManager.default.createFile(atPath: logFile, contents: nil),
                let handle = FileHandle(forWritingAtPath: logFile)
            else { throw .usage("--log: cannot create \(logFile)") }
            log = handle
        } else {
            log = nil
        }
        defer { try? log?.close() }
        let timestamps = timestamps
        link.onStatus { status("[\($0)]") }
        link.attach { entry in
            let stamp = String(format: "[%12.6f] ", entry.at.sinceOrigin.seconds)
            log?.write(Data((stamp + entry.text + "\n").utf8))
            guard timestamps else { return output(entry.text) }
            let boot = entry.boot.map { String($0, radix: 16) } ?? "-"
            output(stamp + "boot \(boot): " + entry.text)
        }
        let interactive = isatty(STDIN_FILENO) == 1
        status(
            "[\(tool.target.label): \(link.description)"
                + (interactive ? "; Ctrl-] leaves]" : "; reading lines to type from stdin]"))
        let terminal = interactive ? RawTerminal() : nil
        defer { terminal?.restore() }
        let keyboard = KeyboardThread(link: link, control: control, echo: interactive)
        keyboard.start()
        if let duration {
            Task {
                try await Task.sleep(for: duration)
                control.interrupt(.timeout(duration))
            }
        }
        _ = await control.interrupted()
    }
}

/// Reads stdin on a thread of its own (a blocking read), turns keys into lines with ``ConsoleKeyboard`` and types
/// them on the console; Ctrl-] stops the session.
final class KeyboardThread: Sendable {
    let link: SerialBoardLink
    let control: RunControl
    let echo: Bool

    init(link: SerialBoardLink, control: RunControl, echo: Bool) {
        self.link = link
        self.control = control
        self.echo = echo
    }

    func start() {
        Thread.detachNewThread { [self] in
            var keyboard = ConsoleKeyboard()
            var buffer = [UInt8](repeating: 0, count: 256)
            while control.reason == nil {
                var entry = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 200) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count <= 0 {
                    if let line = keyboard.feed([0x0A]).compactMap(\.sent).first, !line.isEmpty { type(line) }
                    return  // end of input: the session goes on until its duration or a signal
                }
                for action in keyboard.feed(buffer.prefix(count)) {
                    switch action {
                    case .echo(let bytes):
                        if echo { _ = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) } }
                    case .send(let line): type(line)
                    case .quit:
                        control.interrupt(.signal(SIGINT))
                        return
                    }
                }
            }
        }
    }

    private func type(_ line: String) {
        let (link, control) = (link, control)
        Task {
            do { try await link.send(line) } catch { control.interrupt(.infrastructure("\(error)")) }
        }
    }
}

extension ConsoleKeyboard.Action {
    var sent: String? { if case .send(let line) = self { line } else { nil } }
}

/// The controlling terminal without line editing and echo (blerig echoes), signals kept; restored at the end.
final class RawTerminal: Sendable {
    private let saved: termios?

    init() {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else {
            saved = nil
            return
        }
        saved = settings
        settings.c_lflag &= ~(tcflag_t(ICANON) | tcflag_t(ECHO))
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    func restore() {
        guard var saved else { return }
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }
}

import BenchCore
import Foundation

/// Lets a guest script type on a served board's console, which lives on the host: the script writes one line into
/// `console.request` in a folder both see (bluez_session.sh's `served_console`); the relay types it on the board's
/// console and answers with `console.done` (`typed LINE`, or why not). It polls every 100 ms until cancelled.
enum ServedConsoleRelay {
    static func start(folder: String, console: any BoardConsole) -> Task<Void, Never> {
        Task {
            let request = "\(folder)/console.request"
            while !Task.isCancelled {
                if let line = try? String(contentsOfFile: request, encoding: .utf8), !line.isEmpty {
                    try? FileManager.default.removeItem(atPath: request)
                    let typed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    let answer: String
                    do {
                        try await console.send(typed)
                        answer = "typed \(typed)"
                    } catch {
                        answer = "could not type \(typed): \(error)"
                    }
                    try? Data("\(answer)\n".utf8).write(to: URL(filePath: "\(folder)/console.done"), options: .atomic)
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

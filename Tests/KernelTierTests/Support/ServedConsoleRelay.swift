import BenchCore
import Foundation

/// Lets a guest script type on served boards' consoles, which live on the host: the script writes one line into
/// `console.request` in a folder both see (bluez_session.sh's `served_console`); the relay types it on every
/// board's console and answers with `console.done` (`typed LINE` per board, or why not). It polls every 100 ms
/// until cancelled.
enum ServedConsoleRelay {
    static func start(folder: String, consoles: [any BoardConsole]) -> Task<Void, Never> {
        Task {
            let request = "\(folder)/console.request"
            while !Task.isCancelled {
                if let line = try? String(contentsOfFile: request, encoding: .utf8), !line.isEmpty {
                    try? FileManager.default.removeItem(atPath: request)
                    let typed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    var answers: [String] = []
                    for console in consoles {
                        do {
                            try await console.send(typed)
                            answers.append("typed \(typed) on \(console.description)")
                        } catch {
                            answers.append("could not type \(typed) on \(console.description): \(error)")
                        }
                    }
                    let answer = answers.joined(separator: "; ")
                    try? Data("\(answer)\n".utf8).write(to: URL(filePath: "\(folder)/console.done"), options: .atomic)
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

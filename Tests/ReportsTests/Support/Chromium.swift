import Foundation
import Testing

/// Debian's `chromium`, headless: renders a page, runs its scripts, and dumps the DOM or takes a screenshot.
enum Chromium {
    static var executable: URL? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").lazy
            .flatMap { directory in ["chromium", "chromium-browser"].map { "\(directory)/\($0)" } }
            .map(URL.init(fileURLWithPath:))
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static let missingMessage =
        "chromium is not installed, so report.html cannot be rendered: apt-get install chromium, or `make test-deps`"

    /// `--no-sandbox` because CI containers run as root; a private profile so runs do not share state.
    static func run(_ arguments: [String], page: URL) async throws -> String {
        let chromium = try #require(executable, Comment(rawValue: missingMessage))
        return try await offPool { try run(chromium, arguments, page: page) }
    }

    private static func run(_ chromium: URL, _ arguments: [String], page: URL) throws -> String {
        let profile = Fixtures.temporaryFile("chromium-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = chromium
        process.arguments =
            ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(profile.path)"]
            + arguments + [page.absoluteString]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The DOM after the page's scripts ran.
    static func dumpDOM(_ page: URL) async throws -> String {
        try await run(["--dump-dom", "--virtual-time-budget=2000"], page: page)
    }

    static func screenshot(_ page: URL, to png: URL, width: Int = 1360, height: Int = 3200) async throws {
        _ = try await run(["--screenshot=\(png.path)", "--window-size=\(width),\(height)"], page: page)
    }
}

import Foundation
import Testing

@testable import History

/// Two runs into the same `--out` open one history file at once; the first open of a new file turns it to WAL,
/// which SQLite may refuse the other at once (SQLITE_BUSY) without calling its busy handler.
@Suite("SQLite history opened by many at once")
struct SQLiteOpenRaceTests {
    @Test("eight opens of a new file at once all succeed and see the same schema, twenty times over")
    func manyOpensOfANewFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-open-race-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for round in 0..<20 {
            let path = "\(directory)/\(round)/history.sqlite"
            let outcomes = await withTaskGroup(of: Result<Int, any Error>.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        await Task.detached {
                            do {
                                let history = try SQLiteHistory(path: path)
                                let version = try await history.schemaVersion()
                                await history.close()
                                return .success(version)
                            } catch {
                                return .failure(error)
                            }
                        }.value
                    }
                }
                var outcomes: [Result<Int, any Error>] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let failures = outcomes.compactMap { if case let .failure(error) = $0 { "\(error)" } else { nil } }
            #expect(failures == [], "round \(round)")
            #expect(Set(outcomes.compactMap { try? $0.get() }).count == 1)
        }
    }
}

import CentralStack
import Foundation
import Testing

/// An app and `blerig sync requeue` (or two agents) may open one queue file at the same moment.
@Suite("sync queue opened by many at once")
struct SyncQueueOpenRaceTests {
    @Test("eight opens of a new queue file at once all succeed, twenty times over")
    func manyOpensOfANewFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-queue-race-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for round in 0..<20 {
            let path = "\(directory)/queue-\(round).sqlite"
            let failures = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        await Task.detached { () -> String? in
                            do {
                                let queue = try SyncQueue(path: path)
                                _ = try queue.pendingCount()
                                return nil
                            } catch {
                                return "\(error)"
                            }
                        }.value
                    }
                }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            #expect(failures == [], "round \(round)")
        }
    }
}

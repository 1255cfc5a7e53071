import Foundation
import Radios
import Testing

@testable import Benchmarks

extension Interop {
    /// The short form of `blerig bench sync-kills`: the real `blerig sync-agent` process killed with SIGKILL at 50
    /// random instants (uniform over a sync, not at named steps), restarted each time on the same queue; the ingest
    /// then holds every reading exactly once.
    @Suite("sync survives random SIGKILLs")
    struct SyncKillCampaignTests {
        @Test("50 SIGKILLs at random instants during sync, restarted each time: zero lost, zero duplicates")
        func fiftyRandomKills() async throws {
            let binary = SyncCrash.binary
            try #require(
                FileManager.default.isExecutableFile(atPath: binary), "\(binary) is missing: swift build --build-tests")
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-sync-kills-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            var rootcanal = RootcanalProcess.Options()
            rootcanal.launcher = .python(try InteropEnvironment.venv().python)
            let result = try await SyncKillCampaign.run(
                SyncKillCampaign.Options(kills: 50, seed: 16, binary: binary, scratch: scratch), rootcanal: rootcanal)
            #expect(result.kills == 50)
            #expect(result.lost.isEmpty, "lost: \(result.lost.prefix(10))")
            #expect(result.duplicates == 0)
            #expect(result.unexpected == 0)
            #expect(result.pendingInQueue == 0 && result.deadLetters == 0)
            // Every agent that ended before its kill instant synced: a board that stopped answering would make
            // them fail on their own and the kills land on agents only scanning for it.
            #expect(result.failedAlone == 0)
            #expect(result.readings == 3 * 20 + 3 * 200 + 20 + 20 * (result.kills + result.finishedFirst))
            print("sync kill campaign (50): " + result.lines.joined(separator: " | "))
        }

        @Test("the dead links are listed, the first five when there were more, saying so")
        func deadLinksLine() {
            var result = SyncKillCampaign.Result(seed: 1)
            func line() -> String { result.lines.first { $0.hasPrefix("dead links") } ?? "" }
            #expect(line().hasSuffix("rebooted from its console"))
            result.deadLinks = (1...5).map { "kill \($0) after opened" }
            #expect(
                line().hasSuffix(
                    "console: kill 1 after opened; kill 2 after opened; kill 3 after opened; "
                        + "kill 4 after opened; kill 5 after opened"))
            result.deadLinks = (1...8).map { "kill \($0) after opened" }
            #expect(line().hasPrefix("dead links    8 kills"))
            #expect(line().contains("console (the first 5): kill 1 after opened;"))
            #expect(line().hasSuffix("kill 5 after opened"))
        }

        @Test("the board's link count is read from its status line")
        func linkCountFromStatus() {
            let links = LinkCount()
            links.take("[1234] I/SYS: status fw=1.4.2 uptime_ms=1234 connected=2")
            #expect(links.count == 2)
            links.take("[1240] I/SYNC: upload connected=9")
            #expect(links.count == 2)
            links.clear()
            #expect(links.count == nil)
            links.take("[1250] I/SYS: status fw=1.4.2 uptime_ms=1250 connected=0")
            #expect(links.count == 0)
        }
    }
}

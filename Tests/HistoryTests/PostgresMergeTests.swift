import Foundation
import History
import Testing

/// Several rig hosts share one history in PostgreSQL: runs from two hosts (two processes with different host
/// ids) land side by side, and the history commands read them.
@Suite("History shared in PostgreSQL")
struct PostgresMergeTests {
    @Test("two hosts' runs merge in PostgreSQL; history lists both, baseline and compare read them")
    func twoHostsMerge() async throws {
        let rig = try HistoryTesting.rigFile(HistoryTesting.smallRig(name: "merge-farm"))
        try await HistoryTesting.withLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return }
            let history = url.description
            let runs = try ["host-a", "host-b"].map { host in
                try BlerigProcess(
                    ["run", rig, "--out", HistoryTesting.temporaryDirectory("out"), "--history", history, "--quiet"],
                    environment: ["BLERIG_HOST_ID": host])
            }
            for run in runs { #expect(await run.wait() == 0, "\(run.errors)") }
            for run in runs { #expect(run.output.contains("history: stored run merge-farm-"), "\(run.output)") }

            let list = try BlerigProcess(["history", "--history", history, "--rig", "merge-farm", "--json"])
            #expect(await list.wait() == 0, "\(list.errors)")
            let stored = try #require(
                try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
            #expect(stored.compactMap { $0["host"] as? String }.sorted() == ["host-a", "host-b"])
            let ids = stored.compactMap { $0["runID"] as? String }
            #expect(ids.count == 2)
            #expect(stored.allSatisfy { ($0["rigSHA256"] as? String)?.count == 64 })

            let baseline = try BlerigProcess(["baseline", "set", "nightly", ids[1], "--history", history])
            #expect(await baseline.wait() == 0, "\(baseline.errors)")
            let compare = try BlerigProcess(
                ["compare", "nightly", ids[0], "--history", history, "--metric", "handshake.ready_ms"])
            #expect(await compare.wait() == 0, "\(compare.errors)")
            #expect(compare.output.contains("A: \(ids[1])"))
            #expect(compare.output.contains("B: \(ids[0])"))
            #expect(compare.output.contains("board esp-01"))
            #expect(compare.output.contains("handshake.ready_ms (ms) in handshake/"))
            // Same seed, same rig: the virtual farm gives the same numbers on both hosts.
            #expect(compare.output.contains("p50"))
            #expect(compare.output.contains("+0") == false && compare.output.contains("(+") == false)

            let text = try BlerigProcess(["history", "--history", history])
            #expect(await text.wait() == 0)
            #expect(text.output.contains("[baseline nightly]"))

            let unknown = try BlerigProcess(["compare", "nope", ids[0], "--history", history])
            #expect(await unknown.wait() == 2)
            #expect(unknown.errors.contains("no run or baseline named 'nope'"))
        }
    }
}

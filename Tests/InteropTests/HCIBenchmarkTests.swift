import Benchmarks
import Foundation
import Testing

extension Interop {
    /// `blerig bench hci` in miniature, so the command cannot break silently: both centrals must report every
    /// metric with a positive value.
    @Suite("blerig bench hci")
    struct HCIBenchmarkSmoke {
        @Test("all three centrals report every row of the table with positive numbers, from the same ATT requests")
        func everyRowHasBothSides() async throws {
            var options = HCIBenchmark.Options()
            options.handshakes = 3
            options.writes = 40
            options.streamDuration = .seconds(1)
            options.venv = try InteropEnvironment.venv()
            options.peers = InteropEnvironment.peersDirectory
            let report = try await HCIBenchmark(options: options).run()

            #expect(report.rows.map(\.metric) == HCIBenchmarkReport.metrics)
            for row in report.rows {
                #expect(row.blerig > 0, "blerig's \(row.metric) is \(row.blerig)")
                #expect(row.campaign > 0, "the campaign path's \(row.metric) is \(row.campaign)")
                #expect(row.bumble > 0, "Bumble's \(row.metric) is \(row.bumble)")
                #expect(row.ratio > 0, "the ratio of \(row.metric) is \(row.ratio)")
            }
            for central in [report.blerig, report.campaign, report.bumble] {
                // Each central timed its handshakes in three parts of one, taking turns with the others (Bumble's
                // through bench_central.py --control), then the writes and the stream: all joined, the writes once.
                #expect(central.handshakeMs.count == 3 && central.connectMs.count == 3 && central.writeMs.count == 40)
                // Each write starts at a random phase of the 1 ms tick, so the round trips spread over most of a tick;
                // writes sent right after each response would all read two ticks less the loop, within microseconds.
                let spread = (central.writeMs.max() ?? 0) - (central.writeMs.min() ?? 0)
                #expect(
                    spread > 0.4, "write round trips \(central.writeMs.min() ?? 0)…\(central.writeMs.max() ?? 0) ms")
                #expect(central.mtu == 247)
                #expect(central.stream.gaps == 0)
            }
            // The socket floor replayed blerig's handshake with no host: cheaper than either central, never free.
            let floor = try #require(report.socketFloor)
            #expect(floor.handshakes == 3 && floor.readsPerHandshake > 0)
            #expect(floor.cpuMsPerHandshake > 0)
            #expect(floor.cpuMsPerHandshake < report.blerig.cpuMsPerHandshake)
            #expect(floor.cpuMsPerHandshake < report.bumble.cpuMsPerHandshake)
            // blerig's reader woke about as often as the floor's, which lets a completed-packets event wait for the
            // ATT response behind it: fewer reads than the controller's 25 packets a handshake.
            for central in [report.blerig, report.campaign] {
                let reads = try #require(central.readsPerHandshake)
                #expect(reads > 5 && reads < 22, "\(reads) reads a handshake")
            }
            #expect(report.bumble.readsPerHandshake == nil)
            #expect(report.lines.contains { $0.hasPrefix("socket floor: ") })
            // The host replay drove blerig's central from a recording of its controller: every replayed handshake sent
            // the recorded packets (a host that left the recording fails the replay), in less CPU than on the socket.
            let replay = try #require(report.hostReplay)
            #expect(replay.handshakes == 3 * HCIBenchmark.hostReplaysPerHandshake)
            #expect(replay.hostPacketsPerHandshake == 12, "\(replay.hostPacketsPerHandshake) host packets a handshake")
            #expect(replay.cpuMsPerHandshake > 0)
            #expect(replay.cpuMsPerHandshake < report.blerig.cpuMsPerHandshake)
            #expect(report.lines.contains { $0.hasPrefix("host alone: ") })
            #expect(report.blerig.attRequests == report.bumble.attRequests)
            #expect(report.campaign.attRequests == report.bumble.attRequests)
            #expect(report.tickMilliseconds == 1)
            #expect(report.parts == 3)
            #expect(report.versions["bumble"] == "0.0.236" && report.versions["rootcanal"] == "1.10.0")

            let table = report.lines.joined(separator: "\n")
            for metric in HCIBenchmarkReport.metrics { #expect(table.contains(metric)) }
            let json = try JSONSerialization.jsonObject(with: Data(try report.json().utf8)) as? [String: Any]
            let rows = json?["rows"] as? [[String: Any]]
            #expect(rows?.count == HCIBenchmarkReport.metrics.count)
            #expect((json?["host_replay"] as? [String: Any])?["handshakes"] as? Int == replay.handshakes)
        }
    }
}

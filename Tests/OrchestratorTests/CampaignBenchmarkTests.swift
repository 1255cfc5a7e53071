import Benchmarks
import Foundation
import Testing

@testable import Orchestrator

@Suite("campaign benchmark")
struct CampaignBenchmarkTests {
    /// A stand-in for `blerig run` that writes what a real run writes into `--out`: the history store beside the
    /// report directory, and in it junit.xml and run.jsonl.
    static let fakeRun = """
        #!/bin/sh
        out=$4
        : > "$out/history.sqlite"; : > "$out/history.sqlite-wal"; : > "$out/history.sqlite-shm"
        mkdir -p "$out/rig-20261126T000000Z-s42-1"
        printf '<?xml version="1.0"?>\\n<testsuites tests="7" failures="1" errors="1">\\n' \\
            > "$out/rig-20261126T000000Z-s42-1/junit.xml"
        printf '{"event":"runFinished","at":"12.5"}\\n' > "$out/rig-20261126T000000Z-s42-1/run.jsonl"
        exit 1
        """

    /// Eight runs: a pick among what the run created (a Set, in hash order) finds the directory every time only by
    /// looking for it.
    @Test("the measured run is read from its report directory, not from the history store beside it")
    func readsTheReportDirectory() throws {
        for _ in 0..<8 { try measureOnce() }
    }

    func measureOnce() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("campaign-bench-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let executable = (scratch as NSString).appendingPathComponent("fake-blerig")
        try Self.fakeRun.write(toFile: executable, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable)

        let sample = try Self.measure(executable: executable, scratch: scratch)
        #expect(sample.directory.hasSuffix("/reports/rig-20261126T000000Z-s42-1"))
        #expect(sample.checks == 7)
        #expect(sample.notPassed == 2)
        #expect(sample.benchTime == .milliseconds(12_500))
    }

    /// Measures, trying again while the script just written is busy: another test's fork can hold its write
    /// descriptor for an instant (ETXTBSY), which is the test's race, not the benchmark's.
    static func measure(executable: String, scratch: String) throws -> CampaignBenchmark.Sample {
        var attempt = 0
        while true {
            do {
                return try CampaignBenchmark.measure(executable: executable, rig: "rig.yaml", scratch: scratch)
            } catch let error as BenchmarkError where "\(error)".contains("Text file busy") && attempt < 20 {
                attempt += 1
                usleep(50_000)
            }
        }
    }
}

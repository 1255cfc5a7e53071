import BLECore
import Foundation
import Reports

/// The fold benchmark: synthetic console lines, spread round-robin over a few boards, folded through
/// ``RunResultBuilder`` with and without a timeline limit. It measures wall time and how much the process's
/// resident memory grew while the builder held the result; it asserts nothing about time.
///
/// It uses only the public API, so it also runs as an optimised program outside the test runner:
///
/// ```sh
/// swift build -c release --target Reports
/// R=.build/release
/// echo 'for line in FoldBenchmark.report() { print(line) }' > /tmp/main.swift
/// swiftc -O -I $R/Modules Tests/ReportsTests/Support/FoldBenchmark.swift /tmp/main.swift \
///     $R/Reports.build/*.o $R/BLECore.build/*.o -o /tmp/fold-benchmark && /tmp/fold-benchmark
/// ```
///
/// In the test runner (a debug build): `BLERIG_BENCH=1 swift test --skip-build --filter FoldBenchmark`.
enum FoldBenchmark {
    struct Measurement {
        var events: Int
        var boards: Int
        var limit: Int?
        var seconds: Double
        var kept: [Int]
        var elided: [Int]
        /// Resident memory after the fold, with the builder alive, minus before it; pages the allocator kept
        /// from an earlier measurement are reused, so run the bounded folds first.
        var residentGrowthKiB: Int

        var line: String {
            let rate = Double(events) / max(seconds, 1e-9) / 1e6
            return "fold \(events) events / \(boards) boards, limit \(limit.map(String.init) ?? "none"): "
                + String(format: "%.3f s (%.2f M events/s)", seconds, rate)
                + ", kept \(kept.max() ?? 0) per board, elided \(elided.reduce(0, +)), "
                + "resident +\(residentGrowthKiB / 1024) MiB"
        }
    }

    /// `count` log events, generated on the fly so that they take no memory of their own.
    static func events(count: Int, boards: Int) -> some Sequence<RunEvent> {
        let names = (1...boards).map { "esp-0\($0)" }
        return (0..<count).lazy.map { index in
            RunEvent.log(
                .init(
                    board: names[index % boards], at: RigInstant(sinceOrigin: .microseconds(index)),
                    level: index % 100 == 0 ? .warning : .info, source: "console",
                    message: "console line \(index) with a few words of payload"))
        }
    }

    /// Generating the events and dropping them: the part of ``measure(events:boards:limit:)`` that is not the fold.
    static func generationSeconds(events count: Int, boards: Int) -> Double {
        let clock = ContinuousClock()
        var checksum = 0
        let elapsed = clock.measure {
            for event in events(count: count, boards: boards) { checksum &+= event.board?.utf8.count ?? 0 }
        }
        precondition(checksum > 0)
        return elapsed.seconds
    }

    static func measure(events count: Int, boards: Int, limit: Int?) -> Measurement {
        let before = residentKiB()
        let clock = ContinuousClock()
        var builder = RunResultBuilder(timelineLimit: limit)
        let elapsed = clock.measure {
            for event in events(count: count, boards: boards) { builder.take(event) }
        }
        let result = builder.result()
        let growth = residentKiB() - before
        return Measurement(
            events: count, boards: boards, limit: limit, seconds: elapsed.seconds,
            kept: result.boards.map(\.timeline.count), elided: result.boards.map(\.elidedTimelineEntries),
            residentGrowthKiB: growth)
    }

    /// The benchmark's lines: event generation alone, then 1,000,000 events for 4 boards with limits of 1,000
    /// and 10,000 entries per board and with none.
    static func report(events count: Int = 1_000_000, boards: Int = 4) -> [String] {
        var lines = [
            String(
                format: "generate %d events alone: %.3f s", count, generationSeconds(events: count, boards: boards))
        ]
        for limit in [1_000, 10_000, nil] {
            lines.append(measure(events: count, boards: boards, limit: limit).line)
        }
        return lines
    }

    /// The process's resident set from `/proc/self/statm`, in KiB; 0 where there is no such file.
    static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}

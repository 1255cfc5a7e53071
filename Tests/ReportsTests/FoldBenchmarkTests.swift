import Foundation
import Testing

/// Runs ``FoldBenchmark`` when `BLERIG_BENCH=1`; it prints times but asserts only what the fold kept, so a slow
/// machine cannot fail it.
@Suite(
    "Fold benchmark (BLERIG_BENCH=1)",
    .enabled(if: ProcessInfo.processInfo.environment["BLERIG_BENCH"] == "1", "set BLERIG_BENCH=1 to run"))
struct FoldBenchmarkTests {
    @Test("1,000,000 log events for 4 boards fold with each board's timeline bounded")
    func millionEvents() {
        for line in FoldBenchmark.report() { print(line) }
        let bounded = FoldBenchmark.measure(events: 1_000_000, boards: 4, limit: 1_000)
        #expect(bounded.kept == [1_000, 1_000, 1_000, 1_000])
        #expect(bounded.elided == [249_000, 249_000, 249_000, 249_000])
    }
}

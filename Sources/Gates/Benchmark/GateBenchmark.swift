import Foundation
import Reports

/// `blerig bench gates`: a gates file evaluated against many stored runs. The runs are made from one real run
/// (``SyntheticRuns``; every `slowEvery`-th one 20 % slower), written as run directories, read back and folded
/// from their `run.jsonl`, and judged each against the first as baseline. Wall time of each phase.
public struct GateBenchmark: Sendable {
    public struct Result: Sendable {
        public var runs: Int
        public var gates: Int
        public var boards: Int
        /// Raw samples per run, all boards and metrics together.
        public var samplesPerRun: Int
        public var bytesPerRun: Int
        public var write: Duration
        public var load: Duration
        public var evaluate: Duration
        public var held = 0
        public var breached = 0
        public var notEnoughData = 0
        /// Runs with a breached gate, and how many of them were made slower.
        public var breachedRuns = 0
        public var slowRuns = 0
        public var slowRunsCaught = 0
    }

    public var runs = 100
    public var slowEvery = 10
    public var seed: UInt64 = 1

    public init(runs: Int = 100, slowEvery: Int = 10, seed: UInt64 = 1) {
        self.runs = runs
        self.slowEvery = slowEvery
        self.seed = seed
    }

    public func measure(source: [RunEvent], gates: GatesFile, directory: String) async throws -> Result {
        let clock = ContinuousClock()
        let synthetic = SyntheticRuns(source: source, seed: seed)
        func isSlow(_ index: Int) -> Bool { slowEvery > 0 && index > 0 && index % slowEvery == 0 }
        var bytes = 0
        var paths: [String] = []
        let writeStart = clock.now
        for index in 0..<runs {
            let path = (directory as NSString).appendingPathComponent(String(format: "run-%03d", index))
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let text = try RunLog(synthetic.run(index, slowdown: isSlow(index) ? 1.2 : 1)).jsonLines()
            try Data(text.utf8).write(to: URL(fileURLWithPath: (path as NSString).appendingPathComponent("run.jsonl")))
            bytes += text.utf8.count
            paths.append(path)
        }
        let write = writeStart.duration(to: clock.now)
        let loadStart = clock.now
        var stored: [GateRun] = []
        for path in paths { stored.append(GateRun(try StoredRun.load(path))) }
        let load = loadStart.duration(to: clock.now)
        let baseline = RunBaseline(name: "run-000", run: stored[0])
        let evaluator = GateEvaluator(gates)
        var result = Result(
            runs: runs, gates: gates.gates.count, boards: stored[0].boards.count,
            samplesPerRun: stored[0].boards.reduce(0) { $0 + $1.samples.values.reduce(0) { $0 + $1.values.count } },
            bytesPerRun: bytes / max(1, runs), write: write, load: load, evaluate: .zero)
        let evaluateStart = clock.now
        for (index, run) in stored.enumerated() {
            let verdicts = await evaluator.evaluate(run, baseline: baseline)
            result.held += verdicts.count { $0.decision == .held }
            result.breached += verdicts.count { $0.decision == .breached }
            result.notEnoughData += verdicts.count { $0.decision == .notEnoughData }
            let breached = verdicts.contains { $0.decision == .breached }
            if breached { result.breachedRuns += 1 }
            if isSlow(index) {
                result.slowRuns += 1
                if breached { result.slowRunsCaught += 1 }
            }
        }
        result.evaluate = evaluateStart.duration(to: clock.now)
        return result
    }
}

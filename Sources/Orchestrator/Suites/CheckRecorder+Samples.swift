import Reports
import Synchronization

extension CheckRecorder {
    /// Where the check running in this task keeps the raw samples behind its numbers; nil outside a check.
    @TaskLocal static var samples: SampleSink?

    /// Keeps `values` of `metric` as raw samples of the check running in this task, for statistics across runs
    /// (history, regression gates). Outside a check it does nothing.
    public static func record(_ metric: String, unit: MetricUnit, values: [Double]) {
        samples?.add(MetricSamples(metric: metric, unit: unit, values: values))
    }

    /// The raw samples one check recorded, metrics in the order first recorded; a metric recorded twice keeps
    /// both sets of values, in order.
    final class SampleSink: Sendable {
        private let sets = Mutex<[MetricSamples]>([])

        func add(_ samples: MetricSamples) {
            sets.withLock { sets in
                if let index = sets.firstIndex(where: { $0.metric == samples.metric && $0.unit == samples.unit }) {
                    sets[index].values += samples.values
                } else {
                    sets.append(samples)
                }
            }
        }

        var all: [MetricSamples] { sets.withLock { $0 } }
    }
}

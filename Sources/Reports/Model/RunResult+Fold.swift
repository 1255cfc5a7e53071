extension RunResult {
    /// Folds a whole run's events into the result model, keeping every timeline entry: a
    /// ``RunResultBuilder`` with no limit, given every event. The builder documents how events map onto the
    /// model.
    public init(_ events: some Sequence<RunEvent>) {
        var builder = RunResultBuilder()
        for event in events { builder.take(event) }
        self = builder.result()
    }

    public init(_ log: RunLog) {
        self.init(log.events)
    }
}

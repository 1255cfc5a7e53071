import BLECore
import CentralStack
import DeviceProfiles
import Reports

/// `notifications`: listens to the board's periodic notification for a while and reports its rate
/// (`notify.rate_hz`), the gaps (`notify.gaps`: intervals longer than 1.5 periods) and the payload throughput.
/// The periodic value is the temperature of a Nano and the Heart Rate Measurement of an hrm, both every second;
/// an esp-point is set to sample every second for the duration and set back afterwards to `interval_after_s` (the
/// contract's default, 3600 s, unless the rig says otherwise: the suite cannot read a board's interval, and what it
/// needs comes from its options, never from the virtual farm's settings).
///
/// Arrivals are folded as they come (counts, the latest arrival, the longest gap), so listening for a day costs
/// no more memory than listening for a minute.
///
/// The listening is the app's: work given to the suite's ``AppCentral``, on the session its machine made ready (and
/// authenticated, for an esp-point), with the subscription that session holds.
struct NotificationsSuite: Suite {
    static let name = "notifications"
    var duration: Duration = .seconds(30)
    /// An esp-point's sample interval once the listening is done.
    var intervalAfter = EspPoint.defaultSampleInterval
    static let period: Duration = .seconds(1)
    /// How much the suite reads from the inbox at a time.
    static let chunk: Duration = .seconds(60)

    init(options: inout RigMappingReader) {
        if let seconds = options.number("duration_s", in: 2...86_400, unit: "s") {
            duration = .milliseconds(seconds * 1000)
        }
        if let seconds = options.integer("interval_after_s", in: 1...86_400) { intervalAfter = UInt32(seconds) }
    }

    var defaultCheckTimeout: Duration { duration + .seconds(180) }

    func checkNames(for profile: Profile) -> [String] {
        Self.characteristic(profile).map { ["\($0.name) rate and gaps"] } ?? []
    }

    /// The profile's periodic notification; nil for a described board that has none.
    static func characteristic(_ profile: Profile) -> (uuid: BluetoothUUID, name: String)? {
        switch profile {
        case .espPoint: (EspPoint.reading, "Reading")
        case .nano33BLESense: (Nano33BLESense.temperature, "Temperature")
        case .hrm: (StandardUUID.heartRateMeasurement, "Heart Rate Measurement")
        case .described(let data): data.periodic.map { ($0.characteristic, $0.name) }
        }
    }

    /// The interval between the profile's periodic values: a second, or what a described board's file says.
    static func interval(for profile: Profile) -> Duration { profile.data?.periodic?.period ?? period }

    func run(on board: BoardUnderTest) async {
        guard let characteristic = Self.characteristic(board.profile) else {
            return board.recorder.notApplicable(
                Self.name, "rate and gaps", reason: "the \(board.profile) profile describes no periodic notification")
        }
        let test = checkNames(for: board.profile)[0]
        let period = Self.interval(for: board.profile)
        let decoding = board.profile.data?.periodic
        let duration = duration
        var recorded = false
        do {
            try await board.withAppCentral(purpose: "notifications") { app in
                try await app.perform("listening to \(characteristic.name)", attempts: .failWithTheAttempt) { session in
                    if board.profile == .espPoint {
                        try await EspPointClient(session: session).send(
                            .setInterval(seconds: UInt32(Self.period.seconds)))
                    }
                    recorded = true
                    await board.check(Self.name, test) {
                        let inbox = try await session.ensureSubscribedOrReady(characteristic.uuid)
                        _ = inbox.drain()
                        let start = board.clock.now
                        let end = start.advanced(by: duration)
                        var tally = Tally(start: start, period: period, decoding: decoding)
                        while board.clock.now < end {
                            try await board.clock.sleep(
                                until: min(end, board.clock.now.advanced(by: Self.chunk)), tolerance: nil)
                            // The window is [start, end): a value that landed before it but reached the inbox a moment
                            // later does not count.
                            for event in inbox.drain() where event.received >= start && event.received < end {
                                tally.add(event.received, value: event.value)
                            }
                        }
                        return try Self.evaluate(tally, end: end, duration: duration, board: board)
                    }
                    if board.profile == .espPoint {
                        // Housekeeping, not a check: a link lost during the check (already reported) fails this too.
                        let interval = intervalAfter
                        do { try await EspPointClient(session: session).send(.setInterval(seconds: interval)) } catch {
                            board.recorder.log(
                                .warning, "central", "could not set the sample interval back to \(interval) s: \(error)"
                            )
                        }
                    }
                }
            }
        } catch {
            // Only a session that never reached the check records it here; after the check, errors are logged.
            guard !recorded, !Task.isCancelled else {
                board.recorder.log(.warning, "central", "notifications session ended with: \(error)")
                return
            }
            let message = "\(board.place): \(error)"
            await board.check(Self.name, test) { throw CheckFailure(message) }
        }
    }

    /// What a listening window saw, folded as it goes.
    struct Tally {
        let start: RigInstant
        let period: Duration
        /// A described board's notification: each value must decode, within its range.
        let decoding: DataProfile.Periodic?
        var count = 0
        var bytes = 0
        var last: RigInstant
        var gaps = 0
        var longestGap: Duration = .zero
        var decoded = ValueSpan()

        init(start: RigInstant, period: Duration = NotificationsSuite.period, decoding: DataProfile.Periodic? = nil) {
            self.start = start
            self.period = period
            self.decoding = decoding
            last = start
        }

        mutating func add(_ arrival: RigInstant, value: [UInt8]) {
            interval(to: arrival)
            count += 1
            bytes += value.count
            last = arrival
            if let decoding { decoded.add(value, decoding) }
        }

        mutating func interval(to instant: RigInstant) {
            let gap = last.duration(to: instant)
            if gap > period * 1.5 {
                gaps += 1
                longestGap = max(longestGap, gap)
            }
        }
    }

    private static func evaluate(
        _ tally: Tally, end: RigInstant, duration: Duration, board: BoardUnderTest
    ) throws -> [MeasuredValue] {
        var tally = tally
        tally.interval(to: end)
        let seconds = duration.seconds
        let rate = Double(tally.count) / seconds
        let measurements = [
            MeasuredValue(
                metric: "notify.count", statistic: .value, value: Double(tally.count), unit: .count,
                definition: "notifications received in a listening window of \(seconds) s"),
            MeasuredValue(
                metric: "notify.rate_hz", statistic: .value, value: rate, unit: MetricUnit("Hz"),
                definition: "notifications received ÷ listening time"),
            MeasuredValue(
                metric: "notify.gaps", statistic: .value, value: Double(tally.gaps), unit: .count,
                definition: "intervals between notifications longer than 1.5 periods"),
            MeasuredValue(
                metric: "notify.throughput_kBps", statistic: .value, value: Double(tally.bytes) / seconds / 1000,
                unit: .kilobytesPerSecond, definition: "notified value bytes ÷ listening time"),
        ]
        let expected = 1 / tally.period.seconds
        // A window of N periods holds N − 1, N or N + 1 values depending on where the first one falls (an
        // esp-point set to 1 s samples first one period after the window opens): the count may miss N by one, or
        // by 10 % in a long window. Values that stop or stall show as gaps.
        let expectedCount = seconds * expected
        if let periodic = tally.decoding {
            board.recorder.log(.info, "central", "\(periodic.name): \(tally.decoded.summary(periodic))")
            if let problem = tally.decoded.problem(periodic) {
                throw MeasuredFailure(failure: CheckFailure("\(board.place): \(problem)"), measurements: measurements)
            }
        }
        if abs(Double(tally.count) - expectedCount) > max(1, expectedCount * 0.1) || tally.gaps > 0 {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): \(tally.count) notifications in \(seconds) s (\(rate) Hz, expected \(expected) Hz), \(tally.gaps) gap(s)"
                        + (tally.gaps > 0 ? ", longest \(tally.longestGap.msText)" : "")),
                measurements: measurements)
        }
        return measurements
    }
}

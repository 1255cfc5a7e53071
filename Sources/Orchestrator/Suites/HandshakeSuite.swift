import BLECore
import CentralStack
import DeviceProfiles
import Reports

/// `handshake`: N connections one after another, each brought to ready and closed. Reports
/// `handshake.connect_ms` (connect request → link up) and `handshake.ready_ms` (connect request → MTU
/// exchanged, services discovered, the profile's ready notifications enabled) cold: with nothing cached, as on a
/// first connection. "Ready" is the profile's ready subscriptions (`ProfileSpec.subscriptions`): for an esp-point
/// Battery Level, Reading and Command Status; its OTA Control, Log Control and Log Data are subscribed on demand
/// by the OTA transfer and the log client, and are not part of ready.
///
/// A board with a Database Hash (esp-point) is then connected once more after each cold handshake, with the table
/// that handshake cached: `handshake.ready_warm_ms` times that reconnect, which reads the hash and skips discovery
/// when it matches. The check `warm reconnect skips discovery` fails when one of them discovered anyway. Boards
/// without a Database Hash (nano, hrm) keep the cold path; that check is skipped for them, saying why.
///
/// Every connection is the app's: the suite's ``AppCentral`` pairs first (its scan, connection and pairing are not
/// among the N: that connection's request follows an advertising report, so it would always wait a whole
/// advertising interval), then each handshake is work queued to its machine, which connects on demand
/// (`central.pairedDisconnected → central.pairedConnected`), authenticates an esp-point with the rig's key, hands the
/// session to the work and closes the link when it is done. The times are the handshake's own (the session's
/// ``HandshakeTimeline``, from the shell's connect request); an attempt that did not reach ready is the shell's
/// ``LinkAttempt`` with its failure. The app central's GATT cache is the suite's: emptied before each cold handshake.
struct HandshakeSuite: Suite {
    static let name = "handshake"
    var connections = 20
    /// Idle time between two connections: drawn from this range so requests fall at different advertising phases.
    var pause: ClosedRange<Double> = 0.1...0.5

    static let connectDefinition = "connect request → link up (the first connection event completed)"
    static let readyDefinition =
        "connect request → MTU exchanged, services discovered, the ready notifications enabled (esp-point: Battery "
        + "Level, Reading, Command Status; OTA and log ones are subscribed on first use) (cold: nothing cached)"
    static let warmDefinition =
        "connect request → MTU exchanged, Database Hash read and equal to the cached table's (discovery skipped), "
        + "the ready notifications enabled and confirmed (esp-point: Battery Level, Reading, Command Status; no "
        + "Service Changed, robust caching reports a change as 0x12), robust caching enabled (warm: the table cached)"
    static let warmCheck = "warm reconnect skips discovery"

    init(options: inout RigMappingReader) {
        if let count = options.integer("connections", in: 1...100_000) { connections = count }
    }

    /// A connection attempt gives up after 10 s and a handshake takes seconds at worst: a minute each, twice for a
    /// board that is also reconnected warm.
    var defaultCheckTimeout: Duration { .seconds(120) + .seconds(120) * connections }

    /// What the attempts measured.
    struct Tally: Sendable {
        var connect = LatencyHistogram(metric: "handshake.connect_ms", definition: HandshakeSuite.connectDefinition)
        var ready = LatencyHistogram(metric: "handshake.ready_ms", definition: HandshakeSuite.readyDefinition)
        var warm = LatencyHistogram(metric: "handshake.ready_warm_ms", definition: HandshakeSuite.warmDefinition)
        var failures: [String] = []
        /// Warm reconnects that discovered although the cold handshake before them had cached the table.
        var warmMisses: [String] = []
        /// Cold handshakes that found a Database Hash (and so were followed by a warm one).
        var cacheable = 0
    }

    /// The warm check applies to profiles whose GATT table has a Database Hash: the esp-point's (the nano's and the
    /// hrm's have no Generic Attribute service).
    func checkNames(for profile: Profile) -> [String] {
        ["connect to ready"] + (Self.hasDatabaseHash(profile) ? [Self.warmCheck] : [])
    }

    static func hasDatabaseHash(_ profile: Profile) -> Bool {
        profile == .espPoint || profile.data?.characteristic(GATT.GenericAttribute.databaseHash) != nil
    }

    func run(on board: BoardUnderTest) async {
        let tally = Box<Tally>()
        // Test names stay the same whatever the options, so CI keeps one history per check.
        await board.check(Self.name, "connect to ready") {
            // The app central's cache, the suite's own: the cold handshake finds it emptied and fills it; the warm
            // one uses it.
            let cache = InMemoryGATTCache()
            let watch = ConnectionWatch()
            let t = try await board.withAppCentral(purpose: "handshake", cache: cache, report: { watch.add($0) }) {
                app in
                try await app.pair(attempts: .failWithTheAttempt)
                return try await measure(app, cache: cache, watch: watch, board: board)
            }
            tally.value = t
            let measurements = Self.measurements(t)
            guard t.failures.isEmpty else {
                let total = Int(t.connect.count) + t.failures.count
                throw MeasuredFailure(
                    failure: CheckFailure(
                        "\(board.place): \(t.failures.count) of \(total) handshakes failed; first: \(t.failures[0])",
                        details: t.failures.joined(separator: "\n")),
                    measurements: measurements)
            }
            board.recorder.log(.info, "central", Self.summary(t, connections: connections))
            return measurements
        }
        guard let t = tally.value else {
            board.recorder.skip(Self.name, Self.warmCheck, reason: "the cold handshakes did not complete")
            return
        }
        guard t.cacheable > 0 else {
            guard Self.hasDatabaseHash(board.profile) else {
                return board.recorder.notApplicable(
                    Self.name, Self.warmCheck,
                    reason: "\(board.profile) boards have no Database Hash (no Generic Attribute service)")
            }
            board.recorder.skip(
                Self.name, Self.warmCheck,
                reason: "the board has no Database Hash (no Generic Attribute service): every handshake discovers")
            return
        }
        await board.check(Self.name, Self.warmCheck) {
            let measurements = [
                MeasuredValue(
                    metric: "gatt_cache.warm_hits", statistic: .value, value: Double(t.warm.count), unit: .count,
                    definition: "reconnects whose Database Hash matched the table cached by the handshake before"),
                MeasuredValue(
                    metric: "gatt_cache.warm_misses", statistic: .value, value: Double(t.warmMisses.count),
                    unit: .count, definition: "reconnects that discovered although the table was cached"),
            ]
            guard t.warmMisses.isEmpty else {
                throw MeasuredFailure(
                    failure: CheckFailure(
                        "\(board.place): \(t.warmMisses.count) of \(t.cacheable) reconnects did not use the cached "
                            + "table; first: \(t.warmMisses[0])",
                        details: t.warmMisses.joined(separator: "\n")),
                    measurements: measurements)
            }
            return measurements
        }
    }

    /// The N cold handshakes (and a warm one after each that cached a table), each a piece of work for `app`.
    private func measure(
        _ app: AppCentral, cache: InMemoryGATTCache, watch: ConnectionWatch, board: BoardUnderTest
    ) async throws -> Tally {
        var t = Tally()
        var random = board.random("handshake-pauses")
        let pause = pause
        func wait() async throws {
            let wait = pause.lowerBound + (pause.upperBound - pause.lowerBound) * random.nextUnit()
            try await board.clock.sleep(for: .milliseconds(Int64(wait * 1000)))
        }
        /// One handshake as work: its session's timeline and Database Hash, and the attempts that failed on the way
        /// (the machine tries again after a failed one).
        func handshake(_ what: String) async throws -> (HandshakeTimeline, [UInt8]?)? {
            let requested = board.clock.now
            let before = watch.attempts.count
            var outcome: (HandshakeTimeline, [UInt8]?)?
            var error: (any Error)?
            do {
                outcome = try await app.perform(what, attempts: .failWithTheAttempt) { ($0.timeline, $0.databaseHash) }
            } catch let failure {
                try Task.checkCancellation()
                error = failure
            }
            let failed = watch.attempts.dropFirst(before).filter { !$0.succeeded }
            for attempt in failed {
                t.failures.append("\(what) at \(attempt.requested): \(attempt.failure ?? "")")
                board.recorder.log(.warning, "central", "\(what) failed: \(attempt.failure ?? "")")
            }
            if let error, failed.isEmpty {
                t.failures.append("\(what) at \(requested): \(error)")
                board.recorder.log(.warning, "central", "\(what) failed: \(error)")
            }
            return outcome
        }
        let cached = CachedBoard(address: board.address, profile: board.profile)
        try await wait()
        for attempt in 1...connections {
            cache.invalidate(cached)
            let cold = try await handshake("handshake attempt \(attempt)")
            if let (timeline, _) = cold {
                t.connect.record(timeline.connect)
                t.ready.record(timeline.total)
            }
            try await wait()
            guard cold?.1 != nil else { continue }
            t.cacheable += 1
            let warmRequested = board.clock.now
            if let (timeline, _) = try await handshake("warm handshake attempt \(attempt)") {
                t.connect.record(timeline.connect)
                if timeline.discovery == .cached {
                    t.warm.record(timeline.total)
                } else {
                    t.warmMisses.append("attempt \(attempt) at \(warmRequested) discovered again")
                }
            }
            try await wait()
        }
        return t
    }

    static func measurements(_ t: Tally) -> [MeasuredValue] {
        var values = t.connect.measurements + t.ready.measurements
        if t.cacheable > 0 {
            values += t.warm.measurements
            if t.warm.count > 0, t.ready.count > 0 {
                values.append(
                    MeasuredValue(
                        metric: "handshake.warm_to_cold", statistic: .value,
                        value: t.warm.percentile(50) / t.ready.percentile(50), unit: .ratio,
                        definition: "handshake.ready_warm_ms p50 ÷ handshake.ready_ms p50"))
            }
        }
        values.append(
            MeasuredValue(
                metric: "handshake.failures", statistic: .value, value: Double(t.failures.count), unit: .count,
                definition: "connections that did not reach ready"))
        return values
    }

    static func summary(_ t: Tally, connections: Int) -> String {
        var text = String(
            format: "handshake p50 connect %.3f ms, ready %.3f ms (cold) over %d connections",
            t.connect.percentile(50), t.ready.percentile(50), connections)
        if t.warm.count > 0 {
            text += String(
                format: "; ready %.3f ms warm (GATT cache, %d reconnects): %.2f of cold",
                t.warm.percentile(50), Int(t.warm.count), t.warm.percentile(50) / t.ready.percentile(50))
        }
        return text
    }
}

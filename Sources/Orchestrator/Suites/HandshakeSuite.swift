import DeviceProfiles
import BLECore
import CentralStack
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
        let (connections, pause) = (connections, pause)
        let tally = Box<Tally>()
        // Test names stay the same whatever the options, so CI keeps one history per check.
        await board.check(Self.name, "connect to ready") {
            var t = Tally()
            var random = board.random("handshake-pauses")
            func wait() async throws {
                let wait = pause.lowerBound + (pause.upperBound - pause.lowerBound) * random.nextUnit()
                try await board.clock.sleep(for: .milliseconds(Int64(wait * 1000)))
            }
            for attempt in 1...connections {
                // A cache of this attempt's own: the cold handshake finds it empty and fills it; the warm one uses it.
                let cache = InMemoryGATTCache()
                let requested = board.clock.now
                var hash: [UInt8]?
                do {
                    let (timeline, found) = try await board.withSession(cache: cache) { ($0.timeline, $0.databaseHash) }
                    t.connect.record(timeline.connect)
                    t.ready.record(timeline.total)
                    hash = found
                } catch {
                    try Task.checkCancellation()
                    t.failures.append("attempt \(attempt) at \(requested): \(error)")
                    board.recorder.log(.warning, "central", "handshake attempt \(attempt) failed: \(error)")
                }
                try await wait()
                guard hash != nil else { continue }
                t.cacheable += 1
                let warmRequested = board.clock.now
                do {
                    let timeline = try await board.withSession(cache: cache) { $0.timeline }
                    t.connect.record(timeline.connect)
                    if timeline.discovery == .cached {
                        t.warm.record(timeline.total)
                    } else {
                        t.warmMisses.append("attempt \(attempt) at \(warmRequested) discovered again")
                    }
                } catch {
                    try Task.checkCancellation()
                    t.failures.append("warm attempt \(attempt) at \(warmRequested): \(error)")
                    board.recorder.log(.warning, "central", "warm handshake attempt \(attempt) failed: \(error)")
                }
                try await wait()
            }
            tally.value = t
            let measurements = Self.measurements(t)
            guard t.failures.isEmpty else {
                let total = connections + t.cacheable
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

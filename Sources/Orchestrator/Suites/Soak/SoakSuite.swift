import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Reports
import Synchronization

/// `soak`: holds a link to the board under the connection state machine (``ConnectionShell``, policy keep
/// connected) for `duration_h` hours of bench time — virtual hours on the virtual farm — with a read every
/// `traffic_interval_s`, reconnecting with back-off after every drop. Reports `link.drop_rate` per connection-hour
/// and per session with exact 95 % intervals, broken down by HCI reason, and `link.reconnect_ms`.
///
/// The check fails when a link never came up, when a drop was not followed by a reconnect before the end, or —
/// with `expected_drops_per_hour` — when that rate lies outside the measured interval.
struct SoakSuite: Suite {
    static let name = "soak"
    var duration: Duration = .seconds(12 * 3600)
    var trafficInterval: Duration = .seconds(60)
    var expectedDropsPerHour: Double?
    /// How long a link may stay down after a drop before the soak counts it as not coming back: the back-off's
    /// cap, a connection timeout and room for both.
    static let reconnectAllowance: Duration = .seconds(300)

    init(options: inout RigMappingReader) {
        if let hours = options.number("duration_h", in: 0.01...(24 * 365), unit: "h") {
            duration = .milliseconds(Int64((hours * 3_600_000).rounded()))
        }
        if let seconds = options.number("traffic_interval_s", in: 0.1...86_400, unit: "s") {
            trafficInterval = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        expectedDropsPerHour = options.number("expected_drops_per_hour", in: 0...3_600, unit: "/h")
    }

    var defaultCheckTimeout: Duration { duration + .seconds(600) }

    func checkNames(for profile: Profile) -> [String] { ["drop rate"] }

    func run(on board: BoardUnderTest) async {
        let (duration, interval, expected) = (duration, trafficInterval, expectedDropsPerHour)
        await board.check(Self.name, "drop rate") {
            let tally = Mutex(SoakTally())
            let shell = board.connectionShell(
                policy: .keepConnected, store: nil, purpose: "soak", spec: Self.spec(board.profile)
            ) { report in
                tally.withLock { $0.add(report) }
            } traffic: { session in
                try await Self.traffic(session, every: interval, profile: board.profile)
            }
            let start = board.clock.now
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await shell.run() }
                try? await board.clock.sleep(until: start.advanced(by: duration), tolerance: nil)
                shell.stop()
            }
            let end = board.clock.now
            let result = tally.withLock { tally in
                tally.close(at: end)
                return tally
            }
            return try Self.evaluate(result, expected: expected, duration: duration, end: end, board: board)
        }
    }

    /// The profile's spec without the subscriptions to values pushed every second (a Nano's temperature, an hrm's
    /// heart rate): a day of those is 86 400 notifications per board, which the soak does not need — its traffic
    /// is the periodic read. An esp-point keeps its subscriptions: pairing reads Command Status from one, and its
    /// readings come at the sample interval.
    static func spec(_ profile: Profile) -> ProfileSpec {
        var spec = ProfileSpec.standard(profile)
        if profile != .espPoint { spec.subscriptions = [] }
        return spec
    }

    /// A read of a value every `interval` (a reading, a temperature, a battery level), and the notifications that
    /// came meanwhile taken out of their inboxes, so a day-long soak holds no more than a minute's values.
    static func traffic(_ session: ProfileSession, every interval: Duration, profile: Profile) async throws {
        let characteristic: BluetoothUUID? =
            switch profile {
            case .espPoint: EspPoint.reading
            case .nano33BLESense: Nano33BLESense.temperature
            case .hrm: StandardUUID.batteryLevel
            // The first required readable characteristic; a board with none is held with no traffic.
            case .described(let data):
                session.spec.services.flatMap { $0.characteristics }.first {
                    data.characteristic($0)?.characteristic.properties.contains(.read) == true
                }
            }
        while true {
            try await session.clock.sleep(for: interval)
            if let characteristic { _ = try await session.read(characteristic) }
            for inbox in session.subscribedInboxes.values { _ = inbox.drain() }
        }
    }

    static func evaluate(
        _ tally: SoakTally, expected: Double?, duration: Duration, end: RigInstant, board: BoardUnderTest
    ) throws -> [MeasuredValue] {
        let measurements = tally.measurements
        func fail(_ message: String) -> MeasuredFailure {
            MeasuredFailure(
                failure: CheckFailure("\(board.place): \(message)", details: tally.problems.joined(separator: "\n")),
                measurements: measurements)
        }
        guard let rate = tally.perHour else {
            throw fail("no link came up in \(duration.seconds / 3600) h of soak")
        }
        let reasons = tally.dropsByReason.sorted { $0.key < $1.key }
            .map { "\($0.value) × \(SoakTally.hex($0.key)) \(HCIErrorCode(rawValue: $0.key))" }
        let summary =
            String(
                format: "%d drop(s) in %.3f connection-hours over %d session(s): %.4f/h, 95 %% CI [%.4f, %.4f]",
                tally.drops, tally.connectionHours, tally.sessions, rate.rate, rate.lower, rate.upper)
            + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))")
        board.recorder.log(.info, "soak", summary)
        // A drop just before the end may not have come back yet; one that stayed down for minutes is a failure.
        if let since = tally.awaitingReconnectSince, since.duration(to: end) > Self.reconnectAllowance {
            throw fail(
                "\(summary); the link did not come back within \(Int(since.duration(to: end).seconds)) s after the drop at \(since)"
            )
        }
        if let expected, !rate.contains(expected) {
            throw fail(
                String(format: "the expected %.4f drops/h lies outside the measured 95 %% interval: ", expected)
                    + summary)
        }
        return measurements
    }
}

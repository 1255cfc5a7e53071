import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Reports
import Synchronization

/// `soak`: holds a link to the board through the board's app central (``AppCentral``, policy keep connected: the
/// app of a board it monitors) for `duration_h` hours of bench time — virtual hours on the virtual farm — with a
/// read every `traffic_interval_s` as work that lasts as long as each link, its machine reconnecting with back-off
/// after every drop. Reports `link.drop_rate` per connection-hour and per session with exact 95 % intervals, broken
/// down by HCI reason, and `link.reconnect_ms`, folded from the app central's reports (``SoakTally``).
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
            let app = board.appCentral(purpose: "soak", policy: .keepConnected, spec: Self.spec(board.profile)) {
                report in tally.withLock { $0.add(report) }
            }
            let problem: @Sendable (String) -> Void = { message in
                board.recorder.log(.warning, "soak", message)
                tally.withLock { $0.problems.append(message) }
            }
            let start = board.clock.now
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await app.run() }
                group.addTask { await Self.hold(app, every: interval, within: duration, problem: problem) }
                try? await board.clock.sleep(until: start.advanced(by: duration), tolerance: nil)
                app.stop()
                group.cancelAll()
            }
            let end = board.clock.now
            let result = tally.withLock { tally in
                tally.close(at: end)
                return tally
            }
            return try Self.evaluate(result, expected: expected, duration: duration, end: end, board: board)
        }
    }

    /// The soak's traffic as the app's work: on every link, a read every `interval` until the link ends; then the
    /// same work again on the next link, until the task is cancelled. A failure that is not the link's end goes to
    /// `problem`, and the work starts again on the link it failed on.
    static func hold(
        _ app: AppCentral, every interval: Duration, within limit: Duration,
        problem: @escaping @Sendable (String) -> Void
    ) async {
        while !Task.isCancelled {
            do {
                try await app.performWhileConnected("a read every \(interval) while the link lasts", within: limit) {
                    session in try await Self.traffic(session, every: interval)
                }
            } catch {
                if !Task.isCancelled { problem("traffic with \(app.board) failed: \(error)") }
            }
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

    /// A read of a value every `interval` (a reading, a temperature, a battery level: ``ProfileSession/valueToRead``),
    /// and the notifications that came meanwhile taken out of their inboxes, so a day-long soak holds no more than a
    /// minute's values. A board described as data with no readable characteristic is held with no traffic.
    static func traffic(_ session: ProfileSession, every interval: Duration) async throws {
        let characteristic = session.valueToRead
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

import BLECore
import CentralStack
import DeviceProfiles
import Reports

/// `notifications`: listens to the board's periodic notification for a while and reports its rate
/// (`notify.rate_hz`), the gaps (`notify.gaps`: intervals longer than 1.5 periods) and the payload throughput.
/// The periodic value is the temperature of a Nano and the Heart Rate Measurement of an hrm, both every second;
/// an esp-point is set to sample every second for the duration and set back afterwards.
struct NotificationsSuite: Suite {
    static let name = "notifications"
    var duration: Duration = .seconds(30)
    static let period: Duration = .seconds(1)

    init(options: inout RigMappingReader) {
        if let seconds = options.number("duration_s", in: 2...86_400, unit: "s") {
            duration = .milliseconds(seconds * 1000)
        }
    }

    func run(on board: BoardUnderTest) async {
        let characteristic: (uuid: BluetoothUUID, name: String) =
            switch board.profile {
            case .espPoint: (EspPoint.reading, "Reading")
            case .nano33BLESense: (Nano33BLESense.temperature, "Temperature")
            case .hrm: (StandardUUID.heartRateMeasurement, "Heart Rate Measurement")
            }
        let test = "\(characteristic.name) rate and gaps"
        do {
            try await board.withSession { session in
                if board.profile == .espPoint {
                    try await board.authenticate(session)
                    try await EspPointClient(session: session).send(.setInterval(seconds: UInt32(Self.period.seconds)))
                }
                await board.recorder.check(Self.name, test) {
                    let inbox = try session.inbox(characteristic.uuid)
                    _ = inbox.drain()
                    let start = board.clock.now
                    try await board.clock.sleep(for: duration)
                    // The window is [start, start + duration): a value that landed before it but reached the inbox
                    // a moment later does not count.
                    let end = start.advanced(by: duration)
                    let events = inbox.drain().filter { $0.received >= start && $0.received < end }
                    return try evaluate(
                        events.map(\.received), bytes: events.reduce(0) { $0 + $1.value.count }, from: start,
                        board: board)
                }
                if board.profile == .espPoint {
                    let interval = board.config.virtual.farmSettings.sampleInterval
                    try await EspPointClient(session: session).send(.setInterval(seconds: interval))
                }
            }
        } catch {
            await board.recorder.check(Self.name, test) { throw CheckFailure("\(board.place): \(error)") }
        }
    }

    private func evaluate(
        _ arrivals: [RigInstant], bytes: Int, from start: RigInstant, board: BoardUnderTest
    ) throws -> [MeasuredValue] {
        let seconds = duration.seconds
        let rate = Double(arrivals.count) / seconds
        let limit = Self.period * 1.5
        let edges = [start] + arrivals + [start.advanced(by: duration)]
        let intervals = zip(edges, edges.dropFirst()).map { $0.duration(to: $1) }
        let gaps = intervals.filter { $0 > limit }
        let measurements = [
            MeasuredValue(
                metric: "notify.count", statistic: .value, value: Double(arrivals.count), unit: .count,
                definition: "notifications received in a listening window of \(seconds) s"),
            MeasuredValue(
                metric: "notify.rate_hz", statistic: .value, value: rate, unit: MetricUnit("Hz"),
                definition: "notifications received ÷ listening time"),
            MeasuredValue(
                metric: "notify.gaps", statistic: .value, value: Double(gaps.count), unit: .count,
                definition: "intervals between notifications longer than 1.5 periods"),
            MeasuredValue(
                metric: "notify.throughput_kBps", statistic: .value, value: Double(bytes) / seconds / 1000,
                unit: .kilobytesPerSecond, definition: "notified value bytes ÷ listening time"),
        ]
        let expected = 1 / Self.period.seconds
        if abs(rate - expected) > expected * 0.1 || !gaps.isEmpty {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): \(arrivals.count) notifications in \(seconds) s (\(rate) Hz, expected \(expected) Hz), \(gaps.count) gap(s)"
                        + (gaps.max().map { ", longest \($0.msText)" } ?? "")),
                measurements: measurements)
        }
        return measurements
    }
}

import BLECore
import CentralStack
import Reports

/// What a soak saw, folded from the connection shell's reports as they come: connection time from link-up to
/// link-down on the bench clock, sessions, every unexpected disconnect with its HCI reason, and the time from
/// each drop to the link being back.
struct SoakTally {
    var sessions = 0
    var connected: Duration = .zero
    var drops = 0
    var dropsByReason: [UInt8: Int] = [:]
    var reconnect = LatencyHistogram(
        metric: "link.reconnect_ms", definition: "unexpected link-down noticed → link up again (session ready)")
    /// When the link that is up now came up.
    var upSince: RigInstant?
    /// When the last drop that has not been followed by a reconnect yet was noticed.
    var awaitingReconnectSince: RigInstant?
    var problems: [String] = []

    mutating func add(_ report: ConnectionShell.Report) {
        switch report {
        case .notice(.transition(let transition), _):
            if transition.to == .pairedConnected, transition.from != .firmwareUpdating {
                sessions += 1
                upSince = transition.at
            }
        case .notice(.dropped(_, let reason, let upFor), let at):
            drops += 1
            dropsByReason[reason.rawValue, default: 0] += 1
            connected += upFor
            upSince = nil
            if awaitingReconnectSince == nil { awaitingReconnectSince = at }
        case .notice(.closed(_, _, let upFor), _):
            connected += upFor
            upSince = nil
        case .notice(.reconnected(_, let after), _):
            reconnect.record(after)
            awaitingReconnectSince = nil
        case .notice(.ignored, _), .attempt: break
        case .problem(let message, _): problems.append(message)
        }
    }

    /// Closes the tally at `end`: a link still up counts until then.
    mutating func close(at end: RigInstant) {
        if let upSince { connected += upSince.duration(to: end) }
        upSince = nil
    }

    var connectionHours: Double { connected.seconds / 3600 }

    static let perHourDefinition =
        "unexpected disconnects ÷ connection-hours (link-up → link-down on the bench clock), with the exact "
        + "(Garwood) Poisson 95 % confidence interval"
    static let perSessionDefinition =
        "unexpected disconnects ÷ sessions (links brought to ready), with the exact (Garwood) Poisson 95 % "
        + "confidence interval"

    /// The drop rate per connection-hour, nil before any connection time.
    var perHour: PoissonInterval? {
        connectionHours > 0 ? PoissonInterval(count: drops, exposure: connectionHours) : nil
    }

    var measurements: [MeasuredValue] {
        var values: [MeasuredValue] = []
        if let rate = perHour {
            values += Self.interval(rate, metric: "link.drop_rate", unit: .perHour, definition: Self.perHourDefinition)
            for (reason, count) in dropsByReason.sorted(by: { $0.key < $1.key }) {
                let code = HCIErrorCode(rawValue: reason)
                values.append(
                    MeasuredValue(
                        metric: "link.drop_rate", statistic: Statistic("reason_\(Self.hex(reason))"),
                        value: Double(count) / connectionHours, unit: .perHour,
                        definition: "\(Self.perHourDefinition); broken down by HCI reason (\(Self.hex(reason)) \(code))"
                    ))
            }
        }
        if sessions > 0 {
            let rate = PoissonInterval(count: drops, exposure: Double(sessions))
            values += Self.interval(
                rate, metric: "link.drop_rate_per_session", unit: MetricUnit("/session"),
                definition: Self.perSessionDefinition)
        }
        values += [
            MeasuredValue(
                metric: "link.drops", statistic: .count, value: Double(drops), unit: .count,
                definition: "unexpected disconnects (not asked for by the central) during the soak"),
            MeasuredValue(
                metric: "link.connection_hours", statistic: .value, value: connectionHours, unit: MetricUnit("h"),
                definition: "sum over links of link-up → link-down on the bench clock"),
            MeasuredValue(
                metric: "link.sessions", statistic: .count, value: Double(sessions), unit: .count,
                definition: "links brought to ready by the connection state machine"),
        ]
        return values + reconnect.measurements
    }

    private static func interval(
        _ rate: PoissonInterval, metric: String, unit: MetricUnit, definition: String
    ) -> [MeasuredValue] {
        [
            MeasuredValue(metric: metric, statistic: .value, value: rate.rate, unit: unit, definition: definition),
            MeasuredValue(
                metric: metric, statistic: Statistic("ci95_lower"), value: rate.lower, unit: unit,
                definition: definition),
            MeasuredValue(
                metric: metric, statistic: Statistic("ci95_upper"), value: rate.upper, unit: unit,
                definition: definition),
        ]
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" : "") + digits
    }
}

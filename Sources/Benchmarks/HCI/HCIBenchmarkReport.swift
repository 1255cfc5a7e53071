import Foundation
import Orchestrator

/// The comparison `blerig bench hci` prints: one row per metric with blerig's value, Bumble's and their ratio,
/// and the issue's goal for it (blerig no slower than Bumble on every latency, at most 0.15 of its CPU time per
/// handshake, the same ATT requests), on both of blerig's paths: the benchmark's own central and the campaign's.
public struct HCIBenchmarkReport: Sendable, Hashable, Encodable {
    public var handshakes: Int
    /// The parts each central's handshakes were timed in, the centrals taking turns.
    public var parts: Int
    public var tickMilliseconds: Double
    /// Python, Bumble and rootcanal, as the interop venv has them.
    public var versions: [String: String]
    public var blerig: CentralMeasurement
    /// blerig's central as a campaign builds and runs it (``BlerigCentralBenchmark/Path/campaign``).
    public var campaign: CentralMeasurement
    public var bumble: CentralMeasurement
    /// blerig's handshake replayed on a bare socket with no host behind it (``SocketFloor``): what the kernel charges
    /// any central for its packets here; nil when it was not measured.
    public var socketFloor: SocketFloorMeasurement?
    /// blerig's host code alone, driven by a recording in-process (``HostReplay``); nil when it was not measured.
    public var hostReplay: HostReplayMeasurement?

    public struct Row: Sendable, Hashable, Encodable {
        public enum Goal: String, Sendable, Hashable, Encodable {
            /// blerig/Bumble ≤ 1: no slower.
            case atMostBumble = "<= 1"
            /// No slower, both counted in rootcanal's ticks (each rounded to the nearest whole tick): for latencies
            /// that run from one delivery on the tick to another, where the hosts' own time cancels out and what is
            /// left of a difference under half a tick is the tick's phase, not a host.
            case atMostBumbleInTicks = "<= 1 in ticks"
            /// blerig/Bumble ≥ 1: at least as much.
            case atLeastBumble = ">= 1"
            /// blerig/Bumble ≤ 0.15.
            case atMostFifteenHundredths = "<= 0.15"
            /// blerig/Bumble = 1: the same work.
            case same = "= 1"
        }

        public var metric: String
        public var unit: String
        public var blerig: Double
        /// The campaign path's value.
        public var campaign: Double
        public var bumble: Double
        public var goal: Goal
        /// rootcanal's tick, in milliseconds, for ``Goal/atMostBumbleInTicks``.
        public var tickMilliseconds: Double

        /// blerig / Bumble; 0 when Bumble's value is 0.
        public var ratio: Double { Self.ratio(blerig, bumble) }
        /// The campaign path / Bumble.
        public var campaignRatio: Double { Self.ratio(campaign, bumble) }

        /// The goal holds on both of blerig's paths.
        public var met: Bool { meets(blerig) && meets(campaign) }

        func meets(_ value: Double) -> Bool {
            switch goal {
            case .atMostBumble: value <= bumble
            case .atMostBumbleInTicks:
                tickMilliseconds > 0
                    ? (value / tickMilliseconds).rounded() <= (bumble / tickMilliseconds).rounded() : value <= bumble
            case .atLeastBumble: value >= bumble
            case .atMostFifteenHundredths: value <= bumble * 0.15
            case .same: value == bumble
            }
        }

        static func ratio(_ value: Double, _ bumble: Double) -> Double { bumble == 0 ? 0 : value / bumble }

        enum CodingKeys: String, CodingKey {
            case metric, unit, blerig, campaign, bumble, ratio, campaignRatio, goal, met
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(metric, forKey: .metric)
            try container.encode(unit, forKey: .unit)
            try container.encode(blerig, forKey: .blerig)
            try container.encode(campaign, forKey: .campaign)
            try container.encode(bumble, forKey: .bumble)
            try container.encode(ratio, forKey: .ratio)
            try container.encode(campaignRatio, forKey: .campaignRatio)
            try container.encode(goal, forKey: .goal)
            try container.encode(met, forKey: .met)
        }
    }

    public init(
        handshakes: Int, parts: Int = 1, tickMilliseconds: Double, versions: [String: String],
        blerig: CentralMeasurement,
        campaign: CentralMeasurement, bumble: CentralMeasurement, socketFloor: SocketFloorMeasurement? = nil,
        hostReplay: HostReplayMeasurement? = nil
    ) {
        self.handshakes = handshakes
        self.parts = parts
        self.tickMilliseconds = tickMilliseconds
        self.versions = versions
        self.blerig = blerig
        self.campaign = campaign
        self.bumble = bumble
        self.socketFloor = socketFloor
        self.hostReplay = hostReplay
    }

    /// The metric names, in the table's order.
    public static let metrics = [
        "connect p50", "connect p95", "handshake p50", "handshake p95", "write RTT p50", "write RTT p95",
        "notifications", "CPU per handshake", "ATT requests per handshake",
    ]

    public var rows: [Row] {
        func row(_ metric: String, _ unit: String, _ goal: Row.Goal, _ value: (CentralMeasurement) -> Double) -> Row {
            Row(
                metric: metric, unit: unit, blerig: value(blerig), campaign: value(campaign), bumble: value(bumble),
                goal: goal, tickMilliseconds: tickMilliseconds)
        }
        return [
            row("connect p50", "ms", .atMostBumbleInTicks) { Percentile.of($0.connectMs, 0.5) },
            row("connect p95", "ms", .atMostBumbleInTicks) { Percentile.of($0.connectMs, 0.95) },
            row("handshake p50", "ms", .atMostBumbleInTicks) { Percentile.of($0.handshakeMs, 0.5) },
            row("handshake p95", "ms", .atMostBumbleInTicks) { Percentile.of($0.handshakeMs, 0.95) },
            row("write RTT p50", "ms", .atMostBumble) { Percentile.of($0.writeMs, 0.5) },
            row("write RTT p95", "ms", .atMostBumble) { Percentile.of($0.writeMs, 0.95) },
            row("notifications", "kB/s", .atLeastBumble) { $0.stream.kilobytesPerSecond },
            row("CPU per handshake", "ms", .atMostFifteenHundredths) { $0.cpuMsPerHandshake },
            row("ATT requests per handshake", "", .same) { $0.attRequestsPerHandshake },
        ]
    }

    /// The table and what it was measured with, one line per element.
    public var lines: [String] {
        let header = ["metric", "blerig", "campaign", "Bumble", "blerig/Bumble", "campaign/Bumble", "goal", ""]
        let body = rows.map { row in
            [
                row.unit.isEmpty ? row.metric : "\(row.metric) (\(row.unit))", Self.format(row.blerig),
                Self.format(row.campaign), Self.format(row.bumble), String(format: "%.2f", row.ratio),
                String(format: "%.2f", row.campaignRatio), row.goal.rawValue, row.met ? "met" : "MISSED",
            ]
        }
        let table = [header] + body
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: " | ").trimmingCharacters(in: .whitespaces)
        }
        var lines = [render(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-")]
        lines += body.map(render)
        func stream(_ name: String, _ m: CentralMeasurement) -> String {
            var line =
                "\(name): \(m.stream.values) values of \(m.stream.size) bytes in \(String(format: "%.3f", m.stream.seconds)) s, "
                + "\(m.stream.gaps) sequence gap(s); handshake loop \(String(format: "%.2f", m.loopS)) s wall, "
                + "\(String(format: "%.1f", m.cpuS * 1000)) ms CPU"
            if let harness = m.harnessCpuS {
                line +=
                    " (its process used \(String(format: "%.1f", (m.cpuS + harness) * 1000)) ms: the other "
                    + "\(String(format: "%.1f", harness * 1000)) ms read rootcanal's and the peripheral's output)"
            }
            if let reads = m.readsPerHandshake {
                line += "; \(String(format: "%.1f", reads)) reads of rootcanal's socket per handshake"
            }
            return line
        }
        lines.append("")
        lines.append(
            "\(handshakes) handshakes and \(blerig.writeMs.count) writes per central, ATT MTU \(blerig.mtu) (blerig) / "
                + "\(bumble.mtu) (Bumble); rootcanal tick \(Self.format(tickMilliseconds)) ms, as rootcanal confirmed it"
        )
        lines.append(stream("blerig", blerig))
        lines.append(stream("campaign", campaign))
        lines.append(stream("Bumble", bumble))
        if let floor = socketFloor { lines.append(floorLine(floor)) }
        if let replay = hostReplay { lines.append(hostLine(replay)) }
        lines.append(
            "versions: " + versions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        lines.append(
            "p50/p95 are nearest-rank percentiles; CPU is the central's process over the handshake loop, less the "
                + "benchmark's own reading of rootcanal's and the peripheral's output in blerig's process; the "
                + "campaign column is blerig's central as a campaign builds it (captures written, as in a run)."
                + (parts > 1
                    ? " The centrals stayed open for the whole run and timed their handshakes, then their writes, in "
                        + "\(parts) parts, taking turns (blerig, campaign, Bumble, then backwards), so that a change in "
                        + "the machine's load weighs on all three alike." : ""))
        lines.append(
            "rootcanal delivers on its tick. Each timed write first waits a random part of a tick (the same seeded "
                + "waits in both centrals), so its round trip is 1.5 ticks on average plus the host's send and receive "
                + "paths. A connection and each step of a handshake start as soon as the previous packet is in, so they "
                + "run from tick to tick: their rows are compared in whole ticks, and a difference under half a tick "
                + "is the tick's phase, not a host (docs/benchmarks.md).")
        return lines
    }

    /// The socket floor, and what each central spends above it.
    func floorLine(_ floor: SocketFloorMeasurement) -> String {
        let base = floor.cpuMsPerHandshake
        let above = [blerig, campaign, bumble].map { max(0, $0.cpuMsPerHandshake - base) }
        return "socket floor: blerig's handshake replayed \(floor.handshakes) times on a bare socket, read and written as "
            + "blerig's transport does with no host behind it, used \(ms(base)) ms CPU per handshake (\(share(base)) "
            + "of Bumble's; \(String(format: "%.1f", floor.readsPerHandshake)) reads per handshake): no central here "
            + "can go below it. Above it: blerig \(ms(above[0])) ms, campaign \(ms(above[1])) ms, Bumble "
            + "\(ms(above[2])) ms (\(share(above[0])) and \(share(above[1])) of Bumble's total)."
    }

    /// blerig's host code alone, and what is left of blerig's figure once it and the floor are taken away.
    func hostLine(_ replay: HostReplayMeasurement) -> String {
        let host = replay.cpuMsPerHandshake
        var line =
            "host alone: blerig's handshake replayed \(replay.handshakes) times in this process from a recording of "
            + "its controller (\(String(format: "%.1f", replay.hostPacketsPerHandshake)) host packets each), no "
            + "socket, used \(ms(host)) ms CPU per handshake (\(share(host)) of Bumble's)"
        if let floor = socketFloor {
            let rest = blerig.cpuMsPerHandshake - floor.cpuMsPerHandshake - host
            line +=
                ". blerig less the floor and its host alone: \(ms(rest)) ms, what the host's work costs on the socket "
                + "beyond what it costs here (docs/benchmarks.md)"
        }
        return line + "."
    }

    /// CPU milliseconds per handshake, as the lines print them.
    private func ms(_ value: Double) -> String { String(format: "%.3f", value) }

    /// CPU per handshake as a share of Bumble's.
    private func share(_ value: Double) -> String {
        String(format: "%.2f", Row.ratio(value, bumble.cpuMsPerHandshake))
    }

    /// The same as JSON: the rows, then each central's samples.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    enum CodingKeys: String, CodingKey {
        case handshakes, parts, tickMilliseconds, versions, rows, blerig, campaign, bumble, socketFloor, hostReplay
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(handshakes, forKey: .handshakes)
        try container.encode(parts, forKey: .parts)
        try container.encode(tickMilliseconds, forKey: .tickMilliseconds)
        try container.encode(versions, forKey: .versions)
        try container.encode(rows, forKey: .rows)
        try container.encode(blerig, forKey: .blerig)
        try container.encode(campaign, forKey: .campaign)
        try container.encode(bumble, forKey: .bumble)
        try container.encodeIfPresent(socketFloor, forKey: .socketFloor)
        try container.encodeIfPresent(hostReplay, forKey: .hostReplay)
    }

    /// Whole numbers as they are, else three decimals below 10 (a write round trip is two rootcanal ticks, 2 ms,
    /// for any host: what differs is in the microseconds), two below 100 and one from 100 up.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        let decimals = abs(value) < 10 ? 3 : abs(value) < 100 ? 2 : 1
        return String(format: "%.\(decimals)f", value)
    }
}

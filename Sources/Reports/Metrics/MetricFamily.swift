/// One metric family of an exposition: its name, type, unit and help, and its samples in order. What
/// ``OpenMetricsWriter`` builds from a run and then writes as OpenMetrics text or as Prometheus text.
struct MetricFamily {
    enum Kind: String {
        case gauge
        case counter
        case histogram
    }

    /// The family's name: for a counter without `_total`, otherwise the name its samples carry before their
    /// suffix (`_bucket`, `_count`, `_sum`).
    var name: String
    var kind: Kind
    /// The OpenMetrics unit, the name's last part (`seconds`, `bytes`, `ratio`); nil for plain counts.
    var unit: String?
    var help: String
    var samples: [Sample] = []

    struct Sample {
        /// Appended to the family name: `_total`, `_bucket`, `_count`, `_sum` or nothing.
        var suffix: String
        var labels: [(name: String, value: String)]
        var value: Double
    }
}

/// Metric names and units in OpenMetrics' base units: blerig's `handshake.connect_ms` in milliseconds becomes
/// `blerig_handshake_connect_seconds` in seconds, `ota.throughput_kBps` becomes
/// `blerig_ota_throughput_bytes_per_second`.
///
/// | blerig unit | OpenMetrics unit   | factor     |
/// |-------------|--------------------|------------|
/// | `ms`        | `seconds`          | 0.001      |
/// | `s`         | `seconds`          | 1          |
/// | `h`         | `seconds`          | 3600       |
/// | `kB/s`      | `bytes_per_second` | 1000       |
/// | `B`         | `bytes`            | 1          |
/// | `Hz`        | `hertz`            | 1          |
/// | `/h`        | `per_second`       | 1 / 3600   |
/// | `ratio`     | `ratio`            | 1          |
/// | (count)     | none               | 1          |
///
/// Another unit keeps its values and goes into the family's help; the name then has no unit.
struct BaseUnit {
    var unit: String?
    var factor: Double

    init(_ unit: MetricUnit) {
        switch unit.rawValue {
        case "ms": (self.unit, factor) = ("seconds", 0.001)
        case "s": (self.unit, factor) = ("seconds", 1)
        case "h": (self.unit, factor) = ("seconds", 3600)
        case "kB/s": (self.unit, factor) = ("bytes_per_second", 1000)
        case "B": (self.unit, factor) = ("bytes", 1)
        case "Hz": (self.unit, factor) = ("hertz", 1)
        case "/h": (self.unit, factor) = ("per_second", 1.0 / 3600)
        case "ratio": (self.unit, factor) = ("ratio", 1)
        default: (self.unit, factor) = (nil, 1)
        }
    }

    /// The suffixes blerig's metric names carry for their unit, dropped before the base unit is appended.
    static let nameSuffixes = ["_ms", "_s", "_kBps", "_hz", "_bytes", "_h"]

    /// `blerig_<metric>[_<part>][_<unit>]`, every character outside `[a-zA-Z0-9_]` made `_`; the metric's own unit
    /// suffix (`_ms`) is dropped when a unit or a part takes its place.
    static func name(metric: String, part: String? = nil, unit: String?) -> String {
        var stem = metric
        if unit != nil || part != nil, let suffix = nameSuffixes.first(where: { stem.hasSuffix($0) }) {
            stem.removeLast(suffix.count)
        }
        var parts = ["blerig", stem]
        if let part { parts.append(part) }
        if let unit { parts.append(unit) }
        return sanitized(parts.joined(separator: "_"))
    }

    static func sanitized(_ name: String) -> String {
        func allowed(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        if name.utf8.allSatisfy(allowed) { return name }
        // ASCII text: byte for byte. Otherwise one `_` per scalar, however many bytes it takes.
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: name.utf8.map { allowed($0) ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
        }
        var result = ""
        for scalar in name.unicodeScalars {
            let ok = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            result.unicodeScalars.append(ok ? scalar : "_")
        }
        return result
    }
}

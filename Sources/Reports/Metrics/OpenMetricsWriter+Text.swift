/// Collects families in the order first named; a sample whose family and labels were already added is left out
/// (a check that ran twice has one series).
struct FamilyBuilder {
    private(set) var families: [MetricFamily] = []
    private var index: [String: Int] = [:]
    private var seen: Set<String> = []

    mutating func add(
        _ name: String, _ kind: MetricFamily.Kind, unit: String?, help: String, _ labels: [(String, String)],
        _ value: Double
    ) {
        let position = family(name, kind, unit: unit, help: help)
        let key = name + "\u{0}" + labels.map { "\($0.0)=\($0.1)" }.joined(separator: "\u{0}")
        guard seen.insert(key).inserted else { return }
        let suffix = kind == .counter ? "_total" : ""
        families[position].samples.append(.init(suffix: suffix, labels: labels, value: value))
    }

    /// A histogram series of `values`: cumulative buckets over ``OpenMetricsWriter/bucketBounds`` and `+Inf`,
    /// `_count`, and `_sum` unless a value is negative (OpenMetrics forbids `_sum` then).
    mutating func histogram(
        _ name: String, unit: String?, help: String, _ labels: [(String, String)], values: [Double]
    ) {
        let position = family(name, .histogram, unit: unit, help: help)
        let key = name + "\u{0}" + labels.map { "\($0.0)=\($0.1)" }.joined(separator: "\u{0}")
        guard seen.insert(key).inserted else { return }
        let sorted = values.filter { !$0.isNaN }.sorted()
        var below = 0
        var samples: [MetricFamily.Sample] = []
        for (bound, text) in Self.bucketLabels {
            while below < sorted.count, sorted[below] <= bound { below += 1 }
            samples.append(.init(suffix: "_bucket", labels: labels + [("le", text)], value: Double(below)))
        }
        samples.append(.init(suffix: "_bucket", labels: labels + [("le", "+Inf")], value: Double(sorted.count)))
        samples.append(.init(suffix: "_count", labels: labels, value: Double(sorted.count)))
        if sorted.first.map({ $0 >= 0 }) ?? true {
            samples.append(.init(suffix: "_sum", labels: labels, value: sorted.reduce(0, +)))
        }
        families[position].samples += samples
    }

    /// The position of the family `name`; a name already used for another type or unit gets a `_<type>` suffix
    /// rather than clash.
    private mutating func family(_ name: String, _ kind: MetricFamily.Kind, unit: String?, help: String) -> Int {
        if let known = index[name] {
            if families[known].kind == kind && families[known].unit == unit { return known }
            var renamed = name
            if let unit, renamed.hasSuffix("_" + unit) { renamed.removeLast(unit.count + 1) }
            renamed += "_" + kind.rawValue + (unit.map { "_" + $0 } ?? "")
            return family(renamed, kind, unit: unit, help: help)
        }
        index[name] = families.count
        families.append(MetricFamily(name: name, kind: kind, unit: unit, help: help))
        return families.count - 1
    }

    /// Every bucket's bound with its `le` text, written once rather than for every histogram.
    private static let bucketLabels = OpenMetricsWriter.bucketBounds.map { ($0, bound($0)) }

    /// A bucket bound as OpenMetrics writes it canonically: `0.001`, `1.0`, `100000.0`.
    static func bound(_ value: Double) -> String {
        if value == value.rounded() { return String(Int64(value)) + ".0" }
        return NumberText.significant(value, digits: 1)
    }
}

extension OpenMetricsWriter {
    static func text(_ families: [MetricFamily], format: Format) -> String {
        var text = ""
        for family in families {
            let exposed = format == .prometheusText && family.kind == .counter ? family.name + "_total" : family.name
            switch format {
            case .openMetrics:
                text += "# TYPE \(exposed) \(family.kind.rawValue)\n"
                if let unit = family.unit { text += "# UNIT \(exposed) \(unit)\n" }
                text += "# HELP \(exposed) \(escapedHelp(family.help))\n"
            case .prometheusText:
                text += "# HELP \(exposed) \(escapedHelp(family.help))\n"
                text += "# TYPE \(exposed) \(family.kind.rawValue)\n"
            }
            for sample in family.samples {
                let name = format == .prometheusText && family.kind == .counter ? exposed : family.name + sample.suffix
                text += name
                if !sample.labels.isEmpty {
                    text +=
                        "{" + sample.labels.map { "\($0.name)=\"\(escapedLabel($0.value))\"" }.joined(separator: ",")
                    text += "}"
                }
                text += " " + number(sample.value) + "\n"
            }
        }
        if format == .openMetrics { text += "# EOF\n" }
        return text
    }

    /// Shortest text that reads back as the same value; `NaN`, `+Inf`, `-Inf`.
    static func number(_ value: Double) -> String {
        NumberText.machine(value)
    }

    /// Backslash and line feed escaped, control characters made visible (`\x07`).
    static func escapedHelp(_ text: String) -> String {
        VisibleText.visible(text).replacingEvery(helpEscapes)
    }

    private static let helpEscapes = CharacterReplacements(["\\": "\\\\", "\n": "\\n", "\r\n": "\\n", "\r": " "])

    /// Backslash, double quote and line feed escaped, control characters made visible.
    static func escapedLabel(_ text: String) -> String {
        VisibleText.visible(text).replacingEvery(labelEscapes)
    }

    private static let labelEscapes = CharacterReplacements([
        "\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\r\n": "\\n", "\r": " ",
    ])
}

/// Characters to replace and what replaces each, for ``Swift/String/replacingEvery(_:)``: built once, with the
/// first UTF-8 byte of every key.
struct CharacterReplacements: Sendable {
    let table: [Character: String]
    let leads: [UInt8]

    init(_ table: [Character: String]) {
        self.table = table
        leads = table.keys.compactMap { $0.utf8.first }
    }
}

extension String {
    /// Each character that is a key of `replacements` replaced by its value, in one pass.
    func replacingEvery(_ replacements: CharacterReplacements) -> String {
        // ASCII text none of whose bytes begins a key is returned without breaking it into characters (most text
        // is). Anything else takes the character-by-character path: a non-ASCII character may equal an ASCII key
        // canonically (U+037E is ";").
        guard utf8.contains(where: { $0 >= 0x80 || replacements.leads.contains($0) }) else { return self }
        let table = replacements.table
        guard contains(where: { table[$0] != nil }) else { return self }
        var result = ""
        for character in self {
            if let replacement = table[character] { result += replacement } else { result.append(character) }
        }
        return result
    }
}

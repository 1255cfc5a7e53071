/// Reading a node as a typed value. Each conversion names the key it reads in its message and throws a
/// ``RigFileIssue`` located at the node.
extension RigNode {
    /// An issue located at this node.
    public func issue(_ code: RigFileIssue.Code, _ message: String) -> RigFileIssue {
        RigFileIssue(code, message, at: location)
    }

    /// Any non-null scalar's text: `name: 1234` reads as "1234".
    public func string(for key: String) throws(RigFileIssue) -> String {
        guard let scalar, !scalar.isNull else { throw issue(.wrongType, "'\(key)' must be a string, found \(summary)") }
        return scalar.text
    }

    /// A plain integer (decimal, `0x` hexadecimal or `0o` octal, `_` separators allowed) within `range`.
    public func integer<T: FixedWidthInteger>(for key: String, in range: ClosedRange<T>) throws(RigFileIssue) -> T {
        let bounds = "between \(range.lowerBound) and \(range.upperBound)"
        guard let scalar, !scalar.isNull, !scalar.isQuoted, let parsed = Self.parseInteger(scalar.text) else {
            let quoted = scalar.map { $0.isQuoted && Self.parseInteger($0.text) != nil } ?? false
            throw issue(
                .wrongType,
                "'\(key)' must be an integer \(bounds), found \(summary)"
                    + (quoted ? " (remove the quotes)" : ""))
        }
        guard let value = T(exactly: parsed), range.contains(value) else {
            throw issue(.outOfRange, "'\(key)' must be \(bounds), found \(RigWording.excerpt(scalar.text))")
        }
        return value
    }

    /// A plain number (integer or decimal, finite) within `range` and, if `step` is given, a multiple of it.
    /// `unit` is appended to the numbers in messages (`ms`).
    public func number(
        for key: String, in range: ClosedRange<Double>, step: Double? = nil, unit: String = ""
    ) throws(RigFileIssue) -> Double {
        let suffix = unit.isEmpty ? "" : " \(unit)"
        let bounds =
            "between \(RigWording.number(range.lowerBound)) and \(RigWording.number(range.upperBound))\(suffix)"
        guard let scalar, !scalar.isNull, !scalar.isQuoted, let value = Self.parseNumber(scalar.text) else {
            let quoted = scalar.map { $0.isQuoted && Self.parseNumber($0.text) != nil } ?? false
            throw issue(
                .wrongType,
                "'\(key)' must be a number \(bounds), found \(summary)"
                    + (quoted ? " (remove the quotes)" : ""))
        }
        guard range.contains(value) else {
            throw issue(.outOfRange, "'\(key)' must be \(bounds), found \(RigWording.excerpt(scalar.text))")
        }
        if let step {
            let steps = value / step
            guard abs(steps - steps.rounded()) < 1e-9 else {
                throw issue(
                    .outOfRange,
                    "'\(key)' must be a multiple of \(RigWording.number(step))\(suffix), "
                        + "found \(RigWording.excerpt(scalar.text))")
            }
        }
        return value
    }

    /// A plain `true` or `false` (any case). `yes`, `no`, `on` and `off` are refused: they read as strings in
    /// YAML 1.2 and surprise people in YAML 1.1.
    public func bool(for key: String) throws(RigFileIssue) -> Bool {
        if let scalar, !scalar.isQuoted {
            switch scalar.text.lowercased() {
            case "true": return true
            case "false": return false
            default: break
            }
        }
        throw issue(.wrongType, "'\(key)' must be true or false, found \(summary)")
    }

    /// One of a closed set of names, matched ignoring case. `noun` names the set in messages:
    /// `unknown profile 'esp-pointt' (expected esp-point, nano33-ble-sense or hrm)`.
    public func choice<T: RawRepresentable & CaseIterable>(
        for key: String, noun: String, _ type: T.Type = T.self
    ) throws(RigFileIssue) -> T where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        guard let scalar, !scalar.isNull else {
            throw issue(.wrongType, "'\(key)' must be one of \(RigWording.list(names)), found \(summary)")
        }
        if let exact = T(rawValue: scalar.text) { return exact }
        if let loose = T.allCases.first(where: { $0.rawValue.lowercased() == scalar.text.lowercased() }) {
            return loose
        }
        throw issue(
            .invalidValue, "unknown \(noun) \(RigWording.quoted(scalar.text)) (expected \(RigWording.list(names)))")
    }

    /// Parses a YAML integer: optional sign, then decimal digits, `0x` hex, `0o` octal or `0b` binary, with `_`
    /// separators. nil if the text is not an integer (or an absurdly long one).
    static func parseInteger(_ text: String) -> Int128? {
        var body = Substring(text.filter { $0 != "_" })
        var negative = false
        if let sign = body.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        var radix = 10
        for (prefix, base) in [("0x", 16), ("0X", 16), ("0o", 8), ("0b", 2)] where body.hasPrefix(prefix) {
            radix = base
            body = body.dropFirst(2)
        }
        guard let first = body.first, first != "+", first != "-", !text.hasPrefix("_"), body.allSatisfy(\.isASCII),
            let magnitude = Int128(body, radix: radix)
        else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// Parses a finite YAML number: an integer as above, or a decimal such as `7.5`, `.5`, `1e3`.
    static func parseNumber(_ text: String) -> Double? {
        if let integer = parseInteger(text) { return Double(integer) }
        let body = text.filter { $0 != "_" }
        guard !body.isEmpty, body.allSatisfy({ "0123456789+-.eE".contains($0) }), body.contains(where: \.isNumber),
            let value = Double(body), value.isFinite
        else { return nil }
        return value
    }
}

import BLECore

extension DataProfile {
    /// One of BLECore's standard characteristic codecs, named as in a profile file.
    public enum StandardCodec: String, Hashable, Sendable, CaseIterable {
        case heartRateMeasurement = "heart-rate-measurement"
        case batteryLevel = "battery-level"
        case bodySensorLocation = "body-sensor-location"

        /// The characteristic the codec belongs to.
        public var uuid: BluetoothUUID {
            switch self {
            case .heartRateMeasurement: HeartRateMeasurement.uuid
            case .batteryLevel: BatteryLevel.uuid
            case .bodySensorLocation: BodySensorLocation.uuid
            }
        }

        /// The value as one number: beats per minute, percent, the location's code.
        public func decode(_ bytes: [UInt8]) throws(DecodingError) -> Double {
            switch self {
            case .heartRateMeasurement: Double(try HeartRateMeasurement(decoding: bytes).beatsPerMinute)
            case .batteryLevel: Double(try BatteryLevel(decoding: bytes).percent)
            case .bodySensorLocation: Double(try BodySensorLocation(decoding: bytes).rawValue)
            }
        }

        public var unit: String {
            switch self {
            case .heartRateMeasurement: "bpm"
            case .batteryLevel: "%"
            case .bodySensorLocation: ""
            }
        }
    }

    /// How a notified value reads as a number: a little-endian integer or float scaled into a unit, or a codec.
    public enum ValueDecoder: Hashable, Sendable, CustomStringConvertible {
        case number(NumberFormat)
        case codec(StandardCodec)

        public func decode(_ bytes: [UInt8]) throws(DecodingError) -> Double {
            switch self {
            case .number(let format): try format.decode(bytes)
            case .codec(let codec): try codec.decode(bytes)
            }
        }

        public var unit: String {
            switch self {
            case .number(let format): format.unit
            case .codec(let codec): codec.unit
            }
        }

        public var description: String {
            switch self {
            case .number(let format): "\(format.name) × \(format.scale) \(format.unit)"
            case .codec(let codec): codec.rawValue
            }
        }
    }

    /// A little-endian number of `width` bytes; the value is the raw number × `scale`, in `unit`.
    public struct NumberFormat: Hashable, Sendable {
        public enum Kind: String, Hashable, Sendable, CaseIterable {
            case unsigned = "u", signed = "i", float = "f"
        }

        public var kind: Kind
        /// Bytes: 1, 2, 4 or 8 (4 or 8 for a float).
        public var width: Int
        public var scale: Double
        public var unit: String

        public init(kind: Kind, width: Int, scale: Double = 1, unit: String = "") {
            self.kind = kind
            self.width = width
            self.scale = scale
            self.unit = unit
        }

        /// `u8`, `i16`, `f32`…: the formats a profile file names.
        public init?(name: String) {
            guard let kind = Kind(rawValue: String(name.prefix(1))), let bits = Int(name.dropFirst()),
                bits % 8 == 0, [1, 2, 4, 8].contains(bits / 8), kind != .float || bits >= 32
            else { return nil }
            self.init(kind: kind, width: bits / 8)
        }

        public var name: String { "\(kind.rawValue)\(width * 8)" }

        public func decode(_ bytes: [UInt8]) throws(DecodingError) -> Double {
            guard bytes.count <= width else {
                throw .trailingBytes(context: name, count: bytes.count - width, at: width)
            }
            guard bytes.count == width else {
                throw .truncated(context: name, field: "value", needed: width, available: bytes.count, at: 0)
            }
            let raw = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let number: Double
            switch kind {
            case .unsigned: number = Double(raw)
            case .signed:
                let shift = UInt64(64 - width * 8)
                number = Double(Int64(bitPattern: raw << shift) >> Int64(shift))
            case .float: number = width == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)
            }
            return number * scale
        }

        /// The bytes of `value` (in the unit), rounded and clamped to what the width holds.
        public func encode(_ value: Double) -> [UInt8] {
            let raw = value / scale
            let bits: UInt64
            switch kind {
            case .unsigned:
                let limit = width == 8 ? Double(UInt64.max) : Double((UInt64(1) << (width * 8)) - 1)
                bits = UInt64(min(limit, max(0, raw.rounded())))
            case .signed:
                let limit = width == 8 ? Double(Int64.max) : Double((Int64(1) << (width * 8 - 1)) - 1)
                bits = UInt64(bitPattern: Int64(min(limit, max(-limit - 1, raw.rounded()))))
            case .float: bits = width == 4 ? UInt64(Float(raw).bitPattern) : raw.bitPattern
            }
            return (0..<width).map { UInt8(truncatingIfNeeded: bits >> (8 * UInt64($0))) }
        }
    }

    /// An advertised name: literal text, `*` for any text, `{addr4}` for the address's last two bytes in hex.
    public struct NamePattern: Hashable, Sendable, CustomStringConvertible {
        public var text: String

        public init(_ text: String) { self.text = text }

        public var description: String { text }

        /// The pattern with `{addr4}` filled in for `address`.
        public func resolved(for address: DeviceAddress) -> String {
            let hex = address.bytes.suffix(2).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return text.replacingOccurrences(of: "{addr4}", with: hex)
        }

        /// The name a virtual board of this profile advertises: `*` becomes the address's last two bytes.
        public func example(for address: DeviceAddress) -> String {
            let resolved = resolved(for: address)
            let hex = address.bytes.suffix(2).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return resolved.split(separator: "*", omittingEmptySubsequences: false).joined(separator: hex)
        }

        /// Whether `name` matches the pattern for a board at `address`.
        public func matches(_ name: String, address: DeviceAddress) -> Bool {
            let parts = resolved(for: address).split(separator: "*", omittingEmptySubsequences: false).map(String.init)
            guard parts.count > 1 else { return name == parts[0] }
            guard name.hasPrefix(parts[0]), name.dropFirst(parts[0].count).hasSuffix(parts[parts.count - 1]),
                name.count >= parts[0].count + parts[parts.count - 1].count
            else { return false }
            var rest = Substring(name.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count))
            for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
                guard let found = rest.firstRange(of: middle) else { return false }
                rest = rest[found.upperBound...]
            }
            return true
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

import BLECore
import DeviceProfiles

extension NotificationsSuite {
    /// What a described board's periodic values decoded to, folded as they come: the lowest and highest, and the
    /// values that did not decode or fell outside the profile's range (the first of each kept for the message).
    struct ValueSpan {
        var decoded = 0
        var lowest = Double.infinity
        var highest = -Double.infinity
        var undecodable = 0
        var firstUndecodable: String?
        var outOfRange = 0
        var firstOutOfRange: Double?

        mutating func add(_ value: [UInt8], _ periodic: DataProfile.Periodic) {
            let number: Double
            do { number = try periodic.decoder.decode(value) } catch {
                undecodable += 1
                if firstUndecodable == nil { firstUndecodable = "\(value.hexString): \(error)" }
                return
            }
            decoded += 1
            lowest = min(lowest, number)
            highest = max(highest, number)
            if let range = periodic.range, !range.contains(number) {
                outOfRange += 1
                if firstOutOfRange == nil { firstOutOfRange = number }
            }
        }

        /// `12 values decoded, 21 … 23 °C`.
        func summary(_ periodic: DataProfile.Periodic) -> String {
            let unit = periodic.decoder.unit.isEmpty ? "" : " \(periodic.decoder.unit)"
            return decoded == 0
                ? "no value decoded (\(periodic.decoder))"
                : "\(decoded) value(s) decoded as \(periodic.decoder), \(lowest) … \(highest)\(unit)"
        }

        /// Why the values fail the profile, or nil.
        func problem(_ periodic: DataProfile.Periodic) -> String? {
            if let firstUndecodable {
                return "\(undecodable) \(periodic.name) value(s) did not decode as \(periodic.decoder), first \(firstUndecodable)"
            }
            if let firstOutOfRange, let range = periodic.range {
                return "\(outOfRange) \(periodic.name) value(s) outside \(range.lowerBound) … \(range.upperBound) "
                    + "\(periodic.decoder.unit), first \(firstOutOfRange)"
            }
            return nil
        }
    }
}

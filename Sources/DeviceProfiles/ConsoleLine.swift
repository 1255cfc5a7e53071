import BLECore

/// One line of a board's serial console (docs/board-contract.md, "The serial console"). Parsing never fails: a line the
/// contract does not describe is kept as ``other(_:)``.
public enum ConsoleLine: Hashable, Sendable, CustomStringConvertible {
    /// `BOOT fw=1.4.2 bank=A reset=POWERON boot_id=5f3a9c01` (bank is absent on boards with one bank).
    case boot(firmware: FirmwareVersion, bank: String?, reset: ResetReason, bootID: UInt32)
    /// `READY name=ESP-Point-1a2b addr=24:0A:C4:12:1A:2B`
    case ready(name: String, address: DeviceAddress)
    /// `[10234] I/OTA: batch 41 ok next_seq=420`
    case log(uptimeMilliseconds: UInt64, level: Character, tag: String, message: String)
    /// `OTA committed bank=B fw=1.5.0`
    case otaCommitted(bank: String, firmware: FirmwareVersion)
    /// `OTA rollback bank=A reason=selftest`
    case otaRollback(bank: String, reason: String)
    case other(String)

    public enum ResetReason: String, Sendable, Hashable, CaseIterable {
        case powerOn = "POWERON", software = "SW", external = "EXT", brownout = "BROWNOUT", panic = "PANIC"
    }

    public var description: String {
        switch self {
        case let .boot(firmware, bank, reset, bootID):
            let id = String(bootID, radix: 16)
            return "BOOT fw=\(firmware)" + (bank.map { " bank=\($0)" } ?? "") + " reset=\(reset.rawValue) boot_id="
                + String(repeating: "0", count: 8 - id.count) + id
        case let .ready(name, address): return "READY name=\(name) addr=\(address)"
        case let .log(uptime, level, tag, message): return "[\(uptime)] \(level)/\(tag): \(message)"
        case let .otaCommitted(bank, firmware): return "OTA committed bank=\(bank) fw=\(firmware)"
        case let .otaRollback(bank, reason): return "OTA rollback bank=\(bank) reason=\(reason)"
        case let .other(text): return text
        }
    }

    public init(parsing line: String) {
        self = Self.parse(line) ?? .other(line)
    }

    private static func parse(_ line: String) -> ConsoleLine? {
        // Only BOOT, READY and OTA lines are read as words; a log line or another is not split (a long line that
        // is neither cost a pass and an array of words for nothing).
        switch line.drop(while: { $0 == " " }).prefix(while: { $0 != " " }) {
        case "BOOT", "READY", "OTA": parseWords(line.split(separator: " "))
        default: parseLog(line)
        }
    }

    /// `BOOT …`, `READY …`, `OTA committed …`, `OTA rollback …`: a keyword, then `key=value` fields.
    private static func parseWords(_ words: [Substring]) -> ConsoleLine? {
        func fields(_ words: ArraySlice<Substring>) -> [String: String] {
            var result: [String: String] = [:]
            for word in words {
                guard let eq = word.firstIndex(of: "=") else { continue }
                result[String(word[..<eq])] = String(word[word.index(after: eq)...])
            }
            return result
        }
        switch words.first {
        case "BOOT":
            let f = fields(words.dropFirst())
            guard let fw = f["fw"].flatMap(FirmwareVersion.init), let reset = f["reset"].flatMap(ResetReason.init),
                let id = f["boot_id"].flatMap({ UInt32($0, radix: 16) })
            else { return nil }
            return .boot(firmware: fw, bank: f["bank"], reset: reset, bootID: id)
        case "READY":
            let f = fields(words.dropFirst())
            guard let name = f["name"], let address = f["addr"].flatMap(DeviceAddress.init) else { return nil }
            return .ready(name: name, address: address)
        case "OTA" where words.count >= 2:
            let f = fields(words.dropFirst(2))
            if words[1] == "committed", let bank = f["bank"], let fw = f["fw"].flatMap(FirmwareVersion.init) {
                return .otaCommitted(bank: bank, firmware: fw)
            }
            if words[1] == "rollback", let bank = f["bank"], let reason = f["reason"] {
                return .otaRollback(bank: bank, reason: reason)
            }
            return nil
        default:
            return nil
        }
    }

    /// `[10234] I/OTA: batch 41 ok next_seq=420`.
    private static func parseLog(_ line: String) -> ConsoleLine? {
        guard line.hasPrefix("["), let close = line.firstIndex(of: "]"),
            let uptime = UInt64(line[line.index(after: line.startIndex)..<close])
        else { return nil }
        let rest = line[line.index(after: close)...].drop { $0 == " " }
        guard let slash = rest.firstIndex(of: "/"), rest.distance(from: rest.startIndex, to: slash) == 1,
            let colon = rest.range(of: ": ")
        else { return nil }
        return .log(
            uptimeMilliseconds: uptime, level: rest[rest.startIndex],
            tag: String(rest[rest.index(after: slash)..<colon.lowerBound]), message: String(rest[colon.upperBound...]))
    }
}

extension Substring {
    fileprivate func range(of needle: String) -> Range<Index>? {
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}

import BLECore

extension DataProfile.Console {
    /// The console patterns compiled: what a line of a described board means.
    public struct Matcher {
        let boot: Regex<AnyRegexOutput>
        let ready: Regex<AnyRegexOutput>
        let errors: [Regex<AnyRegexOutput>]

        /// Nil when a pattern is not a regular expression (the loader refuses those). `compiled` holds patterns
        /// already compiled, by their text (the loader's, which compiled each to check it), so none is compiled twice.
        public init?(_ console: DataProfile.Console, compiled: [String: Regex<AnyRegexOutput>] = [:]) {
            func regex(_ pattern: String) -> Regex<AnyRegexOutput>? { compiled[pattern] ?? (try? Regex(pattern)) }
            guard let boot = regex(console.boot), let ready = regex(console.ready) else { return nil }
            var errors: [Regex<AnyRegexOutput>] = []
            for pattern in console.errors {
                guard let regex = regex(pattern) else { return nil }
                errors.append(regex)
            }
            self.boot = boot
            self.ready = ready
            self.errors = errors
        }

        /// What a console line is to the profile.
        public enum Meaning: Hashable, Sendable {
            /// A boot banner, with the reset reason when the pattern captures one.
            case boot(ConsoleLine.ResetReason?)
            case ready
            case error
            case other
        }

        public func meaning(of line: String) -> Meaning {
            if let match = try? boot.firstMatch(in: line) {
                let reset = match.output["reset"]?.substring.flatMap { ConsoleLine.ResetReason(rawValue: String($0)) }
                return .boot(reset)
            }
            if (try? ready.firstMatch(in: line)) != nil { return .ready }
            if errors.contains(where: { (try? $0.firstMatch(in: line)) != nil }) { return .error }
            return .other
        }
    }

    /// A line template with its placeholders filled: `{fw}`, `{reset}`, `{boot_id}`, `{name}`, `{addr}`.
    public static func fill(
        _ template: String, firmware: FirmwareVersion, reset: ConsoleLine.ResetReason, bootID: UInt32, name: String,
        address: DeviceAddress
    ) -> String {
        let id = String(bootID, radix: 16)
        let values = [
            "{fw}": firmware.description, "{reset}": reset.rawValue,
            "{boot_id}": String(repeating: "0", count: 8 - id.count) + id, "{name}": name, "{addr}": address.description,
        ]
        return values.reduce(template) { text, pair in
            text.split(separator: pair.key, omittingEmptySubsequences: false).joined(separator: pair.value)
        }
    }
}

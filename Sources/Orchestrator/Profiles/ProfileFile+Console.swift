import BLECore
import DeviceProfiles

/// `console:` of a profile file: regular expressions, and the lines the virtual board prints, which must match them.
extension ProfileFile {
    static func decodeConsole(_ node: RigNode, diagnostics: RigDiagnostics) -> DataProfile.Console? {
        guard var reader = RigMappingReader(node, noun: "console", diagnostics: diagnostics) else { return nil }
        var console = DataProfile.Console()
        // Each pattern is compiled once, to check it here; the matcher below takes the compiled ones.
        var compiled: [String: Regex<AnyRegexOutput>] = [:]
        func pattern(_ node: RigNode, _ key: String) throws(RigFileIssue) -> String {
            let text = try node.string(for: key)
            do { compiled[text] = try Regex(text) } catch {
                throw node.issue(.invalidValue, "'\(key)' is not a regular expression: \(error)")
            }
            if let nested = NestedRepetition.first(in: text) {
                throw node.issue(
                    .invalidValue,
                    "'\(key)' repeats a group that repeats inside itself, \(RigWording.quoted(nested.text)): a line that "
                        + "almost matches can take minutes to read (the matcher backtracks, exponentially here); write it "
                        + "without the nested repetition ('a+' matches what '(a+)+' does) or make the outer repetition "
                        + "possessive ('(a+)++')")
            }
            return text
        }
        if let boot = reader.read("boot", { node throws(RigFileIssue) in try pattern(node, "boot") }) {
            console.boot = boot
        }
        if let ready = reader.read("ready", { node throws(RigFileIssue) in try pattern(node, "ready") }) {
            console.ready = ready
        }
        console.errors =
            reader.read("errors") { node throws(RigFileIssue) in
                guard let elements = node.elements else {
                    throw node.issue(.wrongType, "'errors' must be a list of regular expressions, found \(node.summary)")
                }
                var list: [String] = []
                for element in elements { list.append(try pattern(element, "errors")) }
                return list
            } ?? []
        let bootLine = reader.string("boot_line")
        let readyLine = reader.string("ready_line")
        if let bootLine { console.bootLine = bootLine }
        if let readyLine { console.readyLine = readyLine }
        // A banner of the user's own needs the line the virtual board prints for it.
        var missing: Set<String> = []
        for (pattern, line) in [("boot", "boot_line"), ("ready", "ready_line")]
        where reader.value(pattern) != nil && reader.value(line) == nil {
            missing.insert(line)
            reader.recordMissing(line, because: " (the line the virtual board prints; it must match '\(pattern)')")
        }
        reader.rejectUnknownKeys()
        // What the virtual board prints must read back as what it stands for.
        let example = { (template: String) in
            DataProfile.Console.fill(
                template, firmware: FirmwareVersion(1, 0, 0), reset: .powerOn, bootID: 0x5F3A_9C01, name: "board",
                address: DeviceAddress(0x240A_C412_1A2B))
        }
        guard let matcher = DataProfile.Console.Matcher(console, compiled: compiled) else { return console }
        for (key, line, wanted) in [
            ("boot_line", console.bootLine, DataProfile.Console.Matcher.Meaning.boot(.powerOn)),
            ("ready_line", console.readyLine, .ready),
        ] where !missing.contains(key) {
            var meaning = matcher.meaning(of: example(line))
            if case .boot = meaning, case .boot = wanted, !console.bootTellsReset { meaning = wanted }
            guard meaning != wanted else { continue }
            let at = reader.keyLocation(key) ?? reader.keyLocation(key == "boot_line" ? "boot" : "ready") ?? node.location
            diagnostics.record(
                .invalidValue,
                "\(key) \(RigWording.quoted(example(line))) does not read as the \(key == "boot_line" ? "boot" : "ready") "
                    + "line its pattern describes; give 'boot_line'/'ready_line' that match", at: at)
        }
        return console
    }
}

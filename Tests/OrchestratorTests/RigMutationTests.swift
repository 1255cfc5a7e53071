import Foundation
import Testing

@testable import Orchestrator

/// Rig files to mutate: the shipped ones and two small ones that use the rest of the format.
private let seeds: [String] = [
    "rigs/virtual.yaml", "rigs/examples/bench-bluez.yaml", "rigs/rootcanal.yaml", "small-virtual", "small-hci",
]

private func seedText(_ name: String) throws -> String {
    switch name {
    case "small-virtual":
        return """
            rig: small
            radios:
              - {id: r1, kind: virtual, max_links: 4}
              - {id: r2, kind: virtual}
            boards:
              - &esp {id: esp-01, profile: esp-point, radio: r1, virtual: {battery_percent: 50, firmware: 1.4.2}}
              - <<: *esp
                id: esp-02
                match: {name: "ESP-Point-2", address: 24:0A:C4:00:00:02}
              - id: hrm-01
                profile: hrm
                virtual: {heart_rate: {pattern: sine, base_bpm: 80}, rssi_dbm: -60}
            virtual: {seed: 7, link: {interval_ms: 30, phy: 1M}, faults: {drops_per_hour: 0.5}}
            suites: [discovery, {handshake: {connections: 5}}]
            after_run: on

            """
    case "small-hci":
        return """
            rig: bench-b
            radio: {kind: hci, transport: "uart:/dev/ttyACM0@1000000", max_links: 2}
            boards:
              - id: nano-01
                profile: nano33-ble-sense
                match: {address: 24:0A:C4:12:3C:4D/random}
                serial: {port: /dev/serial/by-id/usb-Arduino-if00, baud: 115200, reset: none}
                power: {hub: "1-1.4", port: 3}
            suites:
              - discovery
              - notifications:
                  duration_s: 10
            gates: 'rigs/gates.yaml'

            """
    default:
        return try String(contentsOfFile: RigTesting.path(name), encoding: .utf8)
    }
}

/// The ways a seed is broken, each giving many mutants.
enum Mutation: String, CaseIterable, Sendable {
    case truncate, deleteLine, duplicateLine, insertTab, swapCharacters, injectCharacter, longValue, deepNesting

    /// The mutants of `text`.
    func mutants(of text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            return String(view)
        }
        func joined(_ lines: [String]) -> String { lines.joined(separator: "\n") }
        switch self {
        case .truncate:
            return stride(from: 0, to: scalars.count, by: max(1, scalars.count / 800)).map { string(scalars[..<$0]) }
        case .deleteLine:
            return lines.indices.map { index in joined(lines.enumerated().filter { $0.offset != index }.map(\.element))
            }
        case .duplicateLine:
            return lines.indices.map { index in joined(Array(lines[...index]) + Array(lines[index...])) }
        case .insertTab:
            return lines.indices.flatMap { index -> [String] in
                let line = lines[index]
                let indent = line.prefix { $0 == " " }.count
                var mutants = [joined(lines[..<index] + ["\t" + line] + lines[(index + 1)...])]
                if indent > 0 {
                    let lastSpace = String(repeating: " ", count: indent - 1) + "\t" + line.dropFirst(indent)
                    let allSpaces = "\t" + line.dropFirst(indent)
                    mutants.append(joined(lines[..<index] + [lastSpace] + lines[(index + 1)...]))
                    mutants.append(joined(lines[..<index] + [allSpaces] + lines[(index + 1)...]))
                }
                if let colon = line.firstIndex(of: ":") {
                    mutants.append(
                        joined(
                            lines[..<index] + [line.replacingCharacters(in: colon...colon, with: ":\t")]
                                + lines[(index + 1)...]))
                }
                return mutants
            }
        case .swapCharacters:
            return stride(from: 0, to: scalars.count - 1, by: max(3, scalars.count / 400)).map { offset in
                var swapped = scalars
                swapped.swapAt(offset, offset + 1)
                return string(swapped)
            }
        case .injectCharacter:
            let injected: [Unicode.Scalar] = [
                "\"", "'", "{", "}", "[", "]", "&", "*", "!", "|", ">", "%", "@", "`", "#", "-", ":", ",", "?", "\r",
                "\u{1}", "\u{85}", "\u{2028}", "\u{FEFF}", "\u{202E}", "\\",
            ]
            return stride(from: 0, to: scalars.count, by: 11).enumerated().map { count, offset in
                var mutated = scalars
                mutated.insert(injected[count % injected.count], at: offset)
                return string(mutated)
            }
        case .longValue:
            let long = String(repeating: "x", count: 10_000)
            return lines.indices.flatMap { index -> [String] in
                let line = lines[index]
                guard let colon = line.range(of: ": ") else {
                    return [joined(lines[..<index] + [line + long] + lines[(index + 1)...])]
                }
                let key = line[..<colon.upperBound]
                return [
                    joined(lines[..<index] + [key + long] + lines[(index + 1)...]),
                    joined(lines[..<index] + [key + "\"\\t\\u0007\\u2028" + long + "\""] + lines[(index + 1)...]),
                    joined(lines[..<index] + [long + line[colon.lowerBound...]] + lines[(index + 1)...]),
                ]
            }
        case .deepNesting:
            return lines.indices.flatMap { index -> [String] in
                let line = lines[index]
                let indent = String(line.prefix { $0 == " " })
                let flow = String(repeating: "[", count: 3_000) + String(repeating: "]", count: 3_000)
                let block = (1...80).map { indent + String(repeating: " ", count: $0) + "- a:" }
                return [
                    joined(lines[..<index] + [line + " " + flow] + lines[(index + 1)...]),
                    joined(lines[..<index] + [indent + "deep: " + flow] + lines[index...]),
                    joined(lines[..<index] + [indent + "deep:"] + block + lines[index...]),
                ]
            }
        }
    }
}

/// What every issue of every mutant must satisfy; the broken rules, described.
private func violations(of text: String) -> [String] {
    let issues = RigTesting.issues(text)
    // Lines as libyaml counts them: LF, CR LF, CR, NEL, LS and PS each end one.
    var lengths = [0]
    var previousWasCR = false
    for scalar in text.unicodeScalars {
        if previousWasCR, scalar == "\n" {
            previousWasCR = false
            continue
        }
        previousWasCR = scalar == "\r"
        switch scalar {
        case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}":
            lengths.append(0)
        default:
            lengths[lengths.count - 1] += 1
        }
    }
    var found: [String] = []
    if issues.count > RigMutationTests.issueBound(lines: lengths.count) {
        found.append("\(issues.count) issues for \(lengths.count) lines")
    }
    for issue in issues {
        let location = issue.location
        let inside =
            (location.line == 0 && location.column == 0)
            || ((1...lengths.count).contains(location.line)
                && (1...lengths[location.line - 1] + 1).contains(location.column))
        if location.file != "rig.yaml" || !inside { found.append("outside the file: \(issue.description)") }
        let message = issue.message
        if message.count > RigMutationTests.messageBound { found.append("\(message.count) characters: \(message)") }
        if message.unicodeScalars.contains(where: {
            $0.properties.generalCategory == .control || ["\u{85}", "\u{2028}", "\u{2029}"].contains($0)
        }) {
            found.append("not one visible line: \(message.debugDescription)")
        }
        for wording in RigMutationTests.internalWording where message.contains(wording) {
            found.append("libyaml's wording '\(wording)': \(message)")
        }
    }
    return found
}

/// The loader under mutation: truncated, shuffled and overgrown rig files never trap and always get located,
/// short, one-line issues in our own words, a bounded number of them.
@Suite struct RigMutationTests {
    /// The longest message: two quoted values of 40 characters and the longest fixed wording fit with room.
    static let messageBound = 260
    /// Issues a mutant may produce: about one per line (the seeds' mutants give at most 7 for 49 lines), never
    /// one per character or per alias expansion.
    static func issueBound(lines: Int) -> Int { lines + 10 }
    /// Words that would show libyaml's or Yams' internals.
    static let internalWording = [
        "yaml_", "libyaml", "Maximum nesting", "hexdecimal", "Yams", "YamlError", "<stream-start>", "(null)",
        "<document start>", "unknown problem",
    ]

    @Test(arguments: seeds, Mutation.allCases)
    func mutantsGetLocatedShortIssuesAndNeverTrap(_ seed: String, _ mutation: Mutation) throws {
        let mutants = mutation.mutants(of: try seedText(seed))
        #expect(!mutants.isEmpty)
        var failures: [String] = []
        for (index, mutant) in mutants.enumerated() {
            failures += violations(of: mutant).map { "mutant \(index): \($0)" }
            if failures.count > 20 { break }
        }
        #expect(failures.isEmpty, "\(failures.prefix(20).joined(separator: "\n"))")
    }

    @Test(arguments: seeds)
    func theSeedsThemselvesLoad(_ seed: String) throws {
        #expect(RigTesting.issues(try seedText(seed)).isEmpty)
    }
}

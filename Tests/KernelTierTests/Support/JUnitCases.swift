import Foundation

/// The checks of a blerig run as its junit.xml records them: each testcase's board and suite (`esp-01.handshake`),
/// name and outcome (`passed`, `failure TYPE: MESSAGE`, `error TYPE: MESSAGE`, `skipped: MESSAGE`),
/// and the run's properties. Read with patterns: blerig writes the file, one element per line as here.
struct JUnitCases {
    struct Case: Sendable, CustomStringConvertible {
        let board: String
        let suite: String
        let name: String
        let outcome: String
        var description: String { "\(board) \(suite).\(name): \(outcome)" }
    }

    let cases: [Case]
    let xml: String

    /// Reads FOLDER/<run-id>/junit.xml (the one run blerig wrote under `--out FOLDER`).
    init(folder: String) throws {
        let runs = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        guard let run = runs.sorted().first(where: {
            FileManager.default.fileExists(atPath: "\(folder)/\($0)/junit.xml")
        }) else {
            throw KernelTierFailure("no junit.xml under \(folder) (\(runs))")
        }
        xml = try String(contentsOfFile: "\(folder)/\(run)/junit.xml", encoding: .utf8)
        var cases: [Case] = []
        for block in xml.components(separatedBy: "<testcase ").dropFirst() {
            let body = block.components(separatedBy: "</testcase>")[0]
            let classname = Self.attribute("classname", in: body) ?? "?"
            let suite = String(classname.split(separator: ".").last ?? "?")
            let board = String(classname.split(separator: ".").dropLast().joined(separator: "."))
            let outcome: String
            if let element = ["failure", "error"].first(where: { body.contains("<\($0) ") }) {
                let tail = body.components(separatedBy: "<\(element) ")[1]
                let type = Self.attribute("type", in: tail) ?? "?"
                outcome = "\(element) \(type): \(Self.attribute("message", in: tail) ?? "")"
            } else if body.contains("<skipped") {
                outcome = "skipped: \(Self.attribute("message", in: body.components(separatedBy: "<skipped")[1]) ?? "")"
            } else {
                outcome = "passed"
            }
            let name = Self.attribute("name", in: body) ?? "?"
            cases.append(Case(board: board, suite: suite, name: name, outcome: outcome))
        }
        self.cases = cases
    }

    /// Every `<property name=NAME value=…>`'s value, in order (one per board for a board's metric).
    func properties(_ name: String) -> [String] {
        xml.components(separatedBy: "<property name=\"\(name)\" value=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
    }

    private static func attribute(_ name: String, in text: String) -> String? {
        let start = text.hasPrefix("\(name)=\"") ? text.range(of: "\(name)=\"") : text.range(of: " \(name)=\"")
        guard let range = start else { return nil }
        let raw = String(text[range.upperBound...].prefix { $0 != "\"" })
        return raw.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

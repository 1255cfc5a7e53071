/// `blerig validate`: a rig file checked as `run` would check it (the file, its bindings, every suite's options,
/// whether this build can drive its radios) without opening anything or running anything.
public enum RigValidation {
    /// What a check found: the rig's shape when it is valid, every problem otherwise.
    public enum Verdict: Sendable {
        case valid(summary: String)
        case invalid(problems: [String])
    }

    /// How `blerig validate` exits, for its `--help`.
    public static let exitStatuses: [(ExitStatus, String)] = [
        (.passed, "the rig file is valid: nothing wrong in it, its bindings or its suites' options"),
        (.usage, "the rig file has problems (every one is printed, with file:line:column) or the arguments are wrong"),
    ]

    /// Checks the rig file at `path` as `blerig run` would before it starts, with `benches` building (not opening)
    /// its bench.
    public static func check(rigFile path: String, benches: any BenchFactory) -> Verdict {
        let campaign: Campaign
        do {
            campaign = try Campaign(rigFile: path, benches: benches)
        } catch {
            switch error {
            case .rig(let rig): return .invalid(problems: rig.issues.map(\.description))
            default: return .invalid(problems: [error.description])
            }
        }
        let rig = campaign.rig
        let radios = rig.radios.map(\.kindName)
        let radioWords = rig.radios.count == 1 ? "1 radio (\(radios[0]))" : "\(rig.radios.count) radios"
        let boardWords = rig.boards.count == 1 ? "1 board" : "\(rig.boards.count) boards"
        return .valid(
            summary: "\(path): rig '\(rig.name)' is valid: \(boardWords) on \(radioWords), suites "
                + campaign.suites.map(\.name).joined(separator: ", "))
    }
}

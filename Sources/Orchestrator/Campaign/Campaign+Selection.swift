/// Narrowing a rig to some of its suites and boards: `--suites`, `--boards` and `--rerun-failed`. Each names what
/// it cannot find and lists what there is.
extension Campaign {
    /// The planned suites named in `names`, in the rig's order.
    static func select(suites names: [String], from planned: [PlannedSuite], rig: RigConfig) throws(CampaignError)
        -> [PlannedSuite]
    {
        if let unknown = names.first(where: { !suiteNames.contains($0) }) {
            throw .argument(
                flag: "--suites",
                message: "unknown suite '\(unknown)' (blerig has \(RigWording.list(suiteNames, conjunction: "and")))")
        }
        let selected = planned.filter { names.contains($0.name) }
        guard !selected.isEmpty else {
            throw .argument(
                flag: "--suites",
                message: "none of \(names.joined(separator: ",")) is selected in \(rig.location.file) "
                    + "(it selects \(rig.suites.map(\.name).joined(separator: ",")))")
        }
        return selected
    }

    /// The rig's boards named in `ids`, in the rig's order.
    static func select(boards ids: [String], rig: RigConfig) throws(CampaignError) -> [BoardConfig] {
        let known = rig.boards.map(\.id)
        guard !ids.isEmpty, !ids.contains(where: \.isEmpty) else {
            throw .argument(flag: "--boards", message: "name at least one board: a,b (the rig has \(list(known)))")
        }
        if let unknown = ids.first(where: { !known.contains($0) }) {
            throw .argument(
                flag: "--boards",
                message: "unknown board '\(unknown)'"
                    + (RigWording.suggestion(for: unknown, among: known).map { " (did you mean '\($0)'?)" } ?? "")
                    + "; \(rig.location.file) has \(list(known))")
        }
        return rig.boards.filter { ids.contains($0.id) }
    }

    /// Per board of `rig` that the earlier run started, the suites among `suites` to run again; boards with none
    /// are left out.
    static func select(rerun: RerunPlan, suites: [String], rig: RigConfig) throws(CampaignError) -> [String: [String]] {
        guard rerun.rig == rig.name else {
            throw .argument(
                flag: "--rerun-failed",
                message: "run \(rerun.runID) ran rig '\(rerun.rig)', not '\(rig.name)' (\(rig.location.file))")
        }
        var chosen: [String: [String]] = [:]
        for board in rig.boards {
            let again = rerun.suites(for: board.id, among: suites)
            if !again.isEmpty { chosen[board.id] = again }
        }
        guard !chosen.isEmpty else { throw .nothingToRerun(runID: rerun.runID) }
        return chosen
    }

    /// `a, b and c`, or the first ten and how many more.
    private static func list(_ names: [String]) -> String {
        names.count <= 10
            ? RigWording.list(names, conjunction: "and")
            : names.prefix(10).joined(separator: ", ") + " and \(names.count - 10) more"
    }
}

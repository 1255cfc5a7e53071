extension RigFile {
    /// Loads the rig file and reads its suites' options in the same pass, so one error lists every problem in
    /// the file: the rig's own, its bindings', each suite's options' and a gates file that does not exist. A user
    /// fixes a rig in one round.
    static func loadPlanned(contentsOf path: String) throws(RigFileError) -> (rig: RigConfig, suites: [PlannedSuite]) {
        let text = try readText(contentsOf: path)
        var planned: [PlannedSuite] = []
        let rig = try parse(
            yaml: text, file: path, knownSuites: SuiteCatalog.names,
            checkSuites: { selections, diagnostics in planned = SuiteCatalog.plan(selections, diagnostics: diagnostics) },
            checkGates: { checkGatesExist($0, diagnostics: $1) })
        return (rig, planned)
    }
}

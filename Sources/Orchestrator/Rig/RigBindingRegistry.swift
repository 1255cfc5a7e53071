/// Remembers who claimed what first, and reports a second claim as a conflict: two boards on one serial port, two
/// radios on one adapter, one id twice.
struct RigBindingRegistry {
    let diagnostics: RigDiagnostics
    private var claims: [String: (owner: String, location: SourceLocation)] = [:]
    private var ids: [String: (id: String, location: SourceLocation)] = [:]

    init(diagnostics: RigDiagnostics) { self.diagnostics = diagnostics }

    /// False (after recording a conflict) if `thing` was claimed before. An empty `owner` words the conflict as a
    /// duplicate (`duplicate suite 'ota' (first at 4:9)`); otherwise owners are `board 'esp-01'` or `radio 'r1'`.
    @discardableResult
    mutating func claim(_ thing: String, by owner: String, at location: SourceLocation) -> Bool {
        guard let first = claims[thing] else {
            claims[thing] = (owner, location)
            return true
        }
        let message =
            owner.isEmpty
            ? "duplicate \(thing) (first at \(first.location.lineAndColumn))"
            : "\(thing) is already used by \(first.owner) (at \(first.location.lineAndColumn))"
        diagnostics.record(.conflict, message, at: location)
        return false
    }

    /// False (after recording a conflict) if `id` was claimed before under `noun` (`board id`), also when the two
    /// differ only in case; `reason` says why case does not make ids different (`ids name report files ...`).
    mutating func claimID(_ id: String, noun: String, because reason: String, at location: SourceLocation) -> Bool {
        let key = noun + "\u{0}" + id.lowercased()
        guard let first = ids[key] else {
            ids[key] = (id, location)
            return true
        }
        let message =
            first.id == id
            ? "duplicate \(noun) \(RigWording.quoted(id)) (first at \(first.location.lineAndColumn))"
            : "\(noun) \(RigWording.quoted(id)) differs only in case from \(RigWording.quoted(first.id)) "
                + "(at \(first.location.lineAndColumn)); \(reason)"
        diagnostics.record(.conflict, message, at: location)
        return false
    }
}

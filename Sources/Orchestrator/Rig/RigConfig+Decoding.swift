import DeviceProfiles

extension RigConfig {
    /// Reads a whole rig file's tree; nil if any issue was recorded in `diagnostics`.
    /// `checkSuites` gets the suites selected, to read their options into the same diagnostics; `checkGates` the
    /// gates file named, to check it exists.
    static func decode(
        _ root: RigNode, knownSuites: [String], diagnostics: RigDiagnostics,
        checkSuites: ([SuiteSelection], RigDiagnostics) -> Void = { _, _ in },
        checkGates: (FileReference, RigDiagnostics) -> Void = { _, _ in }
    ) -> RigConfig? {
        guard var reader = RigMappingReader(root, noun: "the rig file", diagnostics: diagnostics) else { return nil }
        let name = reader.read("rig", required: true) { node throws(RigFileIssue) in
            let name = try node.string(for: "rig")
            guard isValidName(name) else {
                throw node.issue(
                    .invalidValue,
                    "rig name \(RigWording.quoted(name)) may hold only letters, digits, '.', '-' and '_' "
                        + "(1 to 64 of them)")
            }
            return name
        }
        let radioNode = reader.value("radio")
        let radiosNode = reader.value("radios")
        let radios = decodeRadios(
            single: radioNode, list: radiosNode, radiosKey: reader.keyLocation("radios"), diagnostics: diagnostics)
        if radioNode == nil, radiosNode == nil {
            // `radios:` written without a value is missing its value; otherwise the one-radio form is asked for.
            if reader.keyLocation("radios") != nil, reader.keyLocation("radio") == nil {
                reader.recordMissing("radios")
            } else {
                reader.recordMissing(
                    "radio", because: " (virtual, {kind: bluez, adapter: hci0} or {kind: hci, ...}), or a 'radios' list"
                )
            }
        }
        let boardsNode = reader.value("boards")
        let boards = boardsNode.map { decodeBoards($0, radios: radios, diagnostics: diagnostics) }
        if boardsNode == nil { reader.recordMissing("boards") }
        let virtualNode = reader.value("virtual")
        var virtual = virtualNode.flatMap { VirtualFarmConfig.decode($0, diagnostics: diagnostics) }
        let suitesNode = reader.value("suites")
        let suites = suitesNode.map { decodeSuites($0, known: knownSuites, diagnostics: diagnostics) }
        if suitesNode == nil { reader.recordMissing("suites") }
        if let suites { checkSuites(suites, diagnostics) }
        let gates = reader.read("gates") { node throws(RigFileIssue) in
            let path = try node.string(for: "gates")
            guard !path.isEmpty else { throw node.issue(.invalidValue, "'gates' must be a file path") }
            return FileReference(path: path, at: node.location)
        }
        if let gates { checkGates(gates, diagnostics) }
        let afterRun = reader.choice("after_run", noun: "after_run setting", AfterRun.self) ?? .off
        var retries = reader.value("retries").flatMap { RetryPolicy.decode($0, diagnostics: diagnostics) }
            ?? RetryPolicy()
        if let reruns = reader.integer("rerun_failed", in: RetryPolicy.range) { retries.rerunFailed = reruns }
        reader.rejectUnknownKeys()

        if let first = radios.configs?.first, radios.configs?.allSatisfy(\.isVirtual) == true, virtualNode == nil {
            virtual = VirtualFarmConfig(at: first.location)
        }
        if let virtual, virtual.airs == .perRadio, let boards {
            for board in boards where board.radio == nil {
                diagnostics.record(
                    .missingKey,
                    "board '\(board.id)' needs 'radio': with 'airs: per_radio' every board lives on the air of the "
                        + "radio it names", at: board.location)
            }
        }
        guard diagnostics.isEmpty, let name, let radioList = radios.configs, !radioList.isEmpty, let boards,
            let suites
        else { return nil }
        var rig = RigConfig(
            name: name, radios: radioList, boards: boards, virtual: virtual, suites: suites, gates: gates,
            afterRun: afterRun, at: root.location)
        rig.retries = retries
        return rig
    }

    /// Why board ids that differ only in case conflict.
    static let reportFiles = "ids name report files such as captures/<id>.btsnoop, which collide where case is ignored"

    /// Reads `boards:` and checks what the boards must not share and the radios they name.
    private static func decodeBoards(
        _ node: RigNode, radios: DecodedRadios, diagnostics: RigDiagnostics
    ) -> [BoardConfig] {
        guard let elements = node.elements else {
            diagnostics.record(
                .wrongType, "'boards' must be a list of boards, found \(node.summary)",
                at: node.location)
            return []
        }
        if elements.isEmpty {
            diagnostics.record(.missingKey, "'boards' must list at least one board", at: node.location)
        }
        // Board models (the virtual farm, rootcanal) have addresses of their own; hardware must be matched.
        let isVirtual = radios.configs.map { !$0.isEmpty && $0.allSatisfy(\.servesBoardModels) } ?? false
        var boards: [BoardConfig] = []
        var seen = RigBindingRegistry(diagnostics: diagnostics)
        let onRootcanal = radios.configs?.contains { if case .rootcanal = $0.kind { true } else { false } } ?? false
        var addresses = BoardAddressRegistry(diagnostics: diagnostics, airForm: onRootcanal)
        let profiles = ProfileFiles(diagnostics: diagnostics)
        for (index, element) in elements.enumerated() {
            guard let board = BoardConfig.decode(element, index: index, diagnostics: diagnostics, profiles: profiles)
            else { continue }
            let at = { (path: [String]) in path.reduce(Optional(element)) { $0?[$1] }?.location ?? element.location }
            guard seen.claimID(board.id, noun: "board id", because: reportFiles, at: at(["id"])) else { continue }
            let owner = "board \(RigWording.quoted(board.id))"
            if let pinned = board.radio, let ids = radios.writtenIDs, !ids.contains(pinned) {
                diagnostics.record(
                    .invalidValue,
                    "unknown radio \(RigWording.quoted(pinned)) for \(owner)"
                        + RigWording.hint(for: pinned, among: Array(ids.prefix(6))),
                    at: board.radioLocation ?? board.location)
            }
            if let configs = radios.configs, !configs.isEmpty, !isVirtual, board.match == nil {
                let pinned = board.radio.flatMap { id in configs.first { $0.id == id } }
                let kinds = Set((pinned.map { [$0] } ?? configs).map(\.kindName))
                let kind = kinds.count == 1 ? kinds.first ?? "hardware" : "hardware"
                diagnostics.record(
                    .missingKey,
                    "\(owner) needs 'match' (a name or an address) to be found on "
                        + "\(kind == "hci" ? "an" : "a") \(kind) radio",
                    at: board.location)
            }
            if let port = board.serial?.port {
                seen.claim("serial port \(RigWording.quoted(port))", by: owner, at: at(["serial", "port"]))
            }
            if let power = board.power {
                seen.claim("hub \(power.hub) port \(power.port)", by: owner, at: at(["power", "port"]))
            }
            if let name = board.match?.name {
                seen.claim("match name \(RigWording.quoted(name))", by: owner, at: at(["match", "name"]))
            }
            var matchClaimed = true
            if let address = board.match?.address {
                matchClaimed = seen.claim("match address \(address)", by: owner, at: at(["match", "address"]))
            }
            if isVirtual {
                let written = element["virtual"]?["address"] != nil
                if written, let address = board.virtual.address, let matched = board.match?.address, matched != address {
                    diagnostics.record(
                        .conflict,
                        "virtual address \(address) differs from match address \(matched); the central would not "
                            + "find the board", at: at(["virtual", "address"]))
                } else if let address = board.virtual.address, written {
                    addresses.claim(address, board: board.id, from: .virtualAddress(at(["virtual", "address"])))
                } else if let address = board.virtual.address, matchClaimed {
                    addresses.claim(address, board: board.id, from: .matchAddress(at(["match", "address"])))
                } else if board.virtual.address == nil {
                    addresses.claim(
                        board.profile.modelAddress(forBoard: board.id), board: board.id, from: .derived(id: at(["id"])))
                }
            }
            boards.append(board)
        }
        return boards
    }

    /// Reads `suites:`: names, or one-key mappings from a name to its options.
    private static func decodeSuites(
        _ node: RigNode, known: [String], diagnostics: RigDiagnostics
    ) -> [SuiteSelection] {
        guard let elements = node.elements else {
            diagnostics.record(
                .wrongType, "'suites' must be a list of suite names, found \(node.summary)",
                at: node.location)
            return []
        }
        if elements.isEmpty {
            diagnostics.record(.missingKey, "'suites' must select at least one suite", at: node.location)
        }
        var suites: [SuiteSelection] = []
        var seen = RigBindingRegistry(diagnostics: diagnostics)
        for element in elements {
            let selection: SuiteSelection
            if let entries = element.entries {
                guard entries.count == 1, let entry = entries.first else {
                    diagnostics.record(
                        .wrongType,
                        "a suite with options is a one-key mapping, {name: {option: value}}; "
                            + "found \(entries.count) keys",
                        at: element.location)
                    continue
                }
                if !entry.value.isNull, entry.value.entries == nil {
                    diagnostics.record(
                        .wrongType,
                        "the options of suite \(RigWording.quoted(entry.key)) must be a mapping, "
                            + "found \(entry.value.summary)",
                        at: entry.value.location)
                    continue
                }
                let options = entry.value.isNull ? nil : entry.value
                selection = SuiteSelection(name: entry.key, options: options, at: entry.keyLocation)
            } else if let scalar = element.scalar, !scalar.isNull {
                selection = SuiteSelection(name: scalar.text, at: element.location)
            } else {
                diagnostics.record(
                    .wrongType, "a suite must be a name or {name: {options}}, found \(element.summary)",
                    at: element.location)
                continue
            }
            guard known.contains(selection.name) else {
                diagnostics.record(
                    .unknownSuite,
                    "unknown suite \(RigWording.quoted(selection.name))"
                        + RigWording.hint(for: selection.name, among: known),
                    at: selection.location)
                continue
            }
            guard seen.claim("suite \(RigWording.quoted(selection.name))", by: "", at: selection.location) else {
                continue
            }
            suites.append(selection)
        }
        return suites
    }
}

extension RigConfig {
    /// What `radio:` or `radios:` gave: the radios, nil when they are unusable, and the ids written, against which
    /// boards' `radio:` pins are checked (nil when they cannot be known, so a broken list raises no second issue per
    /// board).
    struct DecodedRadios {
        var configs: [RadioConfig]? = nil
        var writtenIDs: [String]? = nil
    }

    /// Reads `radio:` (one radio with id `radio`) or `radios:` (a list); both at once is a conflict reported at
    /// `radiosKey`, where `radios:` is written.
    static func decodeRadios(
        single: RigNode?, list: RigNode?, radiosKey: SourceLocation?, diagnostics: RigDiagnostics
    ) -> DecodedRadios {
        switch (single, list) {
        case (nil, nil):
            return DecodedRadios()
        case (let single?, nil):
            let radio = RadioConfig.decode(single, diagnostics: diagnostics)
            return DecodedRadios(configs: radio.map { [$0] }, writtenIDs: [RadioConfig.defaultID])
        case (nil, let list?):
            return decodeRadioList(list, diagnostics: diagnostics)
        case (let single?, let list?):
            diagnostics.record(
                .conflict,
                "write 'radio' (one radio) or 'radios' (a list), not both; 'radio' is at "
                    + single.location.lineAndColumn, at: radiosKey ?? list.location)
            _ = RadioConfig.decode(single, diagnostics: diagnostics)
            let listed = decodeRadioList(list, diagnostics: diagnostics)
            return DecodedRadios(writtenIDs: [RadioConfig.defaultID] + (listed.writtenIDs ?? []))
        }
    }

    /// Reads `radios:`: ids unique ignoring case, no device held twice, no virtual radio beside a hardware one
    /// (reported once, at the first radio that differs from the first radio).
    private static func decodeRadioList(_ node: RigNode, diagnostics: RigDiagnostics) -> DecodedRadios {
        guard let elements = node.elements else {
            diagnostics.record(
                .wrongType,
                "'radios' must be a list of radios such as [{id: r1, kind: virtual}], found \(node.summary)",
                at: node.location)
            return DecodedRadios()
        }
        guard !elements.isEmpty else {
            diagnostics.record(.missingKey, "'radios' must list at least one radio", at: node.location)
            return DecodedRadios()
        }
        var radios: [RadioConfig] = []
        var mixed = false
        var seen = RigBindingRegistry(diagnostics: diagnostics)
        for (index, element) in elements.enumerated() {
            guard let radio = RadioConfig.decode(entry: element, index: index, diagnostics: diagnostics),
                seen.claimID(
                    radio.id, noun: "radio id", because: "ids must differ in more than case",
                    at: element["id"]?.location ?? element.location)
            else { continue }
            if let device = radio.device {
                let at = element["adapter"]?.location ?? element["transport"]?.location ?? element.location
                seen.claim(device, by: "radio \(RigWording.quoted(radio.id))", at: at)
            }
            if !mixed, let first = radios.first, first.family != radio.family {
                mixed = true
                diagnostics.record(
                    .conflict,
                    "radio \(RigWording.quoted(radio.id)) is \(radio.kindName) but radio \(RigWording.quoted(first.id)) "
                        + "(at \(first.location.lineAndColumn)) is \(first.kindName): a rig's radios are all virtual, "
                        + "all rootcanal or all hardware, since board models are reachable only on their own air",
                    at: radio.location)
            }
            radios.append(radio)
        }
        let written = elements.compactMap { element in element["id"]?.scalar.flatMap { $0.isNull ? nil : $0.text } }
        // Mixed radios leave it open which boards are virtual: no board is checked against them.
        return DecodedRadios(configs: mixed ? nil : radios, writtenIDs: written)
    }
}

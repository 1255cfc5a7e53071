import BenchCore

extension RadioConfig {
    /// The names `kind:` takes.
    enum KindName: String, CaseIterable {
        case virtual, bluez, hci, rootcanal
    }

    static let transportForms = "tcp:HOST:PORT, uart:/dev/PATH@BAUD[,flow=none] or hci-user:N"

    /// Reads `radio:`, a kind name or a mapping, as the one radio with id `radio`; nil if unusable. Issues go to
    /// `diagnostics`.
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> RadioConfig? {
        if node.scalar != nil {
            let kind: KindName
            do {
                kind = try node.choice(for: "radio", noun: "radio kind", KindName.self)
            } catch {
                diagnostics.record(error)
                return nil
            }
            switch kind {
            case .virtual: return RadioConfig(.virtual, at: node.location)
            case .bluez: return RadioConfig(.bluez(adapter: defaultBlueZAdapter), at: node.location)
            case .rootcanal:
                return RadioConfig(.rootcanal(nil, tickMilliseconds: defaultRootcanalTick), at: node.location)
            case .hci:
                diagnostics.record(
                    .missingKey,
                    "an hci radio needs a transport: radio: {kind: hci, transport: \"tcp:127.0.0.1:6402\"} "
                        + "(\(transportForms))", at: node.location)
                return nil
            }
        }
        guard node.entries != nil else {
            diagnostics.record(
                .wrongType,
                "'radio' must be a kind (virtual, bluez, hci or rootcanal) or a mapping such as {kind: bluez, adapter: hci0}, "
                    + "found \(node.summary)", at: node.location)
            return nil
        }
        guard var reader = RigMappingReader(node, noun: "radio", diagnostics: diagnostics) else { return nil }
        if reader.contains("id"), let at = reader.keyLocation("id") {
            diagnostics.record(
                .invalidValue,
                "'id' does not apply to 'radio', whose one radio is called '\(defaultID)' (to name radios, list them "
                    + "under 'radios')", at: at)
        }
        return decodeSettings(&reader, id: defaultID, diagnostics: diagnostics)
    }

    /// Reads the `index`-th entry of `radios:`, a mapping with an `id`; nil if unusable.
    static func decode(entry node: RigNode, index: Int, diagnostics: RigDiagnostics) -> RadioConfig? {
        guard node.entries != nil || node.isNull else {
            diagnostics.record(
                .wrongType,
                "radio \(index + 1) must be a mapping such as {id: r1, kind: virtual}, found \(node.summary)",
                at: node.location)
            return nil
        }
        guard var reader = RigMappingReader(node, noun: "radio \(index + 1)", diagnostics: diagnostics) else {
            return nil
        }
        let id = reader.read("id", required: true) { node throws(RigFileIssue) in
            let id = try node.string(for: "id")
            guard BoardConfig.isValidID(id) else {
                throw node.issue(
                    .invalidValue,
                    "radio id \(RigWording.quoted(id)) may hold only letters, digits, '-' and '_' (1 to 64 of them)")
            }
            return id
        }
        if let id { reader.noun = "radio \(RigWording.quoted(id))" }
        let radio = decodeSettings(&reader, id: id ?? defaultID, diagnostics: diagnostics)
        return id == nil ? nil : radio
    }

    /// Reads `kind`, `adapter`, `transport` and `max_links` from a radio's mapping, and rejects unknown keys.
    private static func decodeSettings(
        _ reader: inout RigMappingReader, id: String, diagnostics: RigDiagnostics
    ) -> RadioConfig? {
        let node = reader.node
        let kind = reader.choice("kind", noun: "radio kind", KindName.self, required: true)
        let adapter = reader.read("adapter") { node throws(RigFileIssue) in
            let adapter = try node.string(for: "adapter")
            guard isAdapterName(adapter) else {
                throw node.issue(
                    .invalidValue,
                    "'adapter' must be a BlueZ adapter name such as hci0, found \(RigWording.quoted(adapter))")
            }
            return adapter
        }
        let transport = reader.read("transport") { node throws(RigFileIssue) in
            let text = try node.string(for: "transport")
            do throws(HCITransportError) {
                return try HCITransportSpec.parse(text)
            } catch {
                // The spec's own words, with a long value shortened as everywhere in rig messages. The spec quotes
                // parts of the value too (the scheme), unescaped: when one holds a line break or another character
                // a message must not show raw, or the message is long, say it in the rig's words instead.
                let message =
                    "transport " + error.message.replacingOccurrences(of: "'\(text)'", with: RigWording.quoted(text))
                let shown = message.unicodeScalars.allSatisfy { RigWording.visible($0) == String($0) }
                guard message.count <= 200, shown else {
                    throw node.issue(
                        .invalidValue, "transport \(RigWording.quoted(text)) is not one of \(transportForms)")
                }
                throw node.issue(.invalidValue, message)
            }
        }
        let maxLinks = reader.integer("max_links", in: maxLinksRange)
        let tick = reader.integer("tick_ms", in: 1...100)
        reader.rejectUnknownKeys()
        guard let kind else { return nil }
        func refuse(_ key: String, _ advice: String = "") {
            guard let at = reader.keyLocation(key) else { return }
            diagnostics.record(.invalidValue, "'\(key)' does not apply to a \(kind.rawValue) radio\(advice)", at: at)
        }
        let radioKind: Kind
        switch kind {
        case .virtual:
            refuse("adapter")
            refuse("transport")
            refuse("tick_ms")
            radioKind = .virtual
        case .bluez:
            refuse("transport", " (for blerig's own HCI host write kind: hci)")
            refuse("tick_ms")
            radioKind = .bluez(adapter: adapter ?? defaultBlueZAdapter)
        case .rootcanal:
            refuse("adapter")
            if transport != nil {
                refuse("tick_ms", " that blerig does not start (set its tick through its test channel)")
            }
            radioKind = .rootcanal(transport, tickMilliseconds: tick ?? defaultRootcanalTick)
        case .hci:
            refuse("tick_ms")
            refuse(
                "adapter",
                " (write transport: hci-user:\((adapter ?? "hci0").dropFirst(3)) for an adapter's HCI user channel)")
            guard let transport else {
                if reader.value("transport") == nil {
                    reader.recordMissing("transport", because: " (\(transportForms))")
                }
                return nil
            }
            radioKind = .hci(transport)
        }
        return RadioConfig(id: id, radioKind, maxLinks: maxLinks, at: node.location)
    }
}

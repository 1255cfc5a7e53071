extension RadioConfig {
    /// The names `kind:` takes.
    enum KindName: String, CaseIterable {
        case virtual, bluez, hci
    }

    static let transportForms = "tcp:HOST:PORT, uart:/dev/PATH@BAUD or user:hciN"

    /// Reads `radio:`, a kind name or a mapping; nil if unusable. Issues go to `diagnostics`.
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
                "'radio' must be a kind (virtual, bluez or hci) or a mapping such as {kind: bluez, adapter: hci0}, "
                    + "found \(node.summary)", at: node.location)
            return nil
        }
        guard var reader = RigMappingReader(node, noun: "radio", diagnostics: diagnostics) else { return nil }
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
            switch Transport.parse(try node.string(for: "transport")) {
            case .success(let transport): return transport
            case .failure(let error): throw node.issue(.invalidValue, error.message)
            }
        }
        reader.rejectUnknownKeys()
        guard let kind else { return nil }
        func refuse(_ key: String, _ advice: String = "") {
            guard let at = reader.keyLocation(key) else { return }
            diagnostics.record(.invalidValue, "'\(key)' does not apply to a \(kind.rawValue) radio\(advice)", at: at)
        }
        switch kind {
        case .virtual:
            refuse("adapter")
            refuse("transport")
            return RadioConfig(.virtual, at: node.location)
        case .bluez:
            refuse("transport", " (for blerig's own HCI host write kind: hci)")
            return RadioConfig(.bluez(adapter: adapter ?? defaultBlueZAdapter), at: node.location)
        case .hci:
            refuse("adapter", " (write transport: user:\(adapter ?? "hci0") for an adapter's HCI user channel)")
            guard let transport else {
                if reader.value("transport") == nil {
                    reader.recordMissing("transport", because: " (\(transportForms))")
                }
                return nil
            }
            return RadioConfig(.hci(transport), at: node.location)
        }
    }
}

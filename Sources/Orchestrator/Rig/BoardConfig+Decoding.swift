import BLECore
import BenchCore
import DeviceProfiles
import Reports

extension BoardConfig {
    /// Reads the `index`-th entry of `boards:`; nil if it is unusable. Issues go to `diagnostics`.
    static func decode(_ node: RigNode, index: Int, diagnostics: RigDiagnostics) -> BoardConfig? {
        guard var reader = RigMappingReader(node, noun: "board \(index + 1)", diagnostics: diagnostics) else {
            return nil
        }
        let id = reader.read("id", required: true) { node throws(RigFileIssue) in
            let id = try node.string(for: "id")
            guard isValidID(id) else {
                throw node.issue(
                    .invalidValue,
                    "board id \(RigWording.quoted(id)) may hold only letters, digits, '-' and '_' (1 to 64 of them)")
            }
            guard !JUnitWriter.reservedSuiteNames.contains(id.lowercased()) else {
                throw node.issue(
                    .invalidValue,
                    "board id \(RigWording.quoted(id)) is taken: junit.xml has testsuites named "
                        + JUnitWriter.reservedSuiteNames.sorted().map { "'\($0)'" }.joined(separator: " and ")
                        + " beside the boards'")
            }
            return id
        }
        if let id { reader.noun = "board \(RigWording.quoted(id))" }
        let profile = reader.choice("profile", noun: "profile", Profile.self, required: true)
        let match = reader.value("match").flatMap { Match.decode($0, diagnostics: diagnostics) }
        let serial = reader.value("serial").flatMap {
            Serial.decode($0, profile: profile ?? .espPoint, diagnostics: diagnostics)
        }
        let power = reader.value("power").flatMap { Power.decode($0, diagnostics: diagnostics) }
        var virtual = reader.value("virtual").flatMap {
            VirtualSettings.decode($0, profile: profile, diagnostics: diagnostics)
        }
        let radio = reader.read("radio") { node throws(RigFileIssue) in
            guard let scalar = node.scalar, !scalar.isNull else {
                throw node.issue(
                    .wrongType, "a board's 'radio' is the id of one of the rig's radios, found \(node.summary)")
            }
            return (id: scalar.text, location: node.location)
        }
        reader.rejectUnknownKeys()
        guard let id, let profile else { return nil }
        if virtual == nil { virtual = VirtualSettings(profile: profile, at: node.location) }
        if virtual?.address == nil { virtual?.address = match?.address }
        return BoardConfig(
            id: id, profile: profile, match: match, serial: serial, power: power, virtual: virtual,
            radio: radio?.id, radioLocation: radio?.location, at: node.location)
    }
}

extension BoardConfig.Match {
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> Self? {
        guard var reader = RigMappingReader(node, noun: "match", diagnostics: diagnostics) else { return nil }
        let name = reader.read("name") { node throws(RigFileIssue) in
            let name = try node.string(for: "name")
            guard !name.isEmpty else { throw node.issue(.invalidValue, "'name' must not be empty") }
            return name
        }
        let address = reader.read("address") { node throws(RigFileIssue) in try node.deviceAddress(for: "address") }
        let written = reader.value("name") != nil || reader.value("address") != nil
        reader.rejectUnknownKeys()
        if !written {
            diagnostics.record(.missingKey, "match needs 'name' or 'address' (or both)", at: node.location)
        }
        guard name != nil || address != nil else { return nil }
        return Self(name: name, address: address, at: node.location)
    }
}

extension BoardConfig.Serial {
    static func decode(_ node: RigNode, profile: Profile, diagnostics: RigDiagnostics) -> Self? {
        guard var reader = RigMappingReader(node, noun: "serial", diagnostics: diagnostics) else { return nil }
        let port = reader.read("port", required: true) { node throws(RigFileIssue) in
            let port = try node.string(for: "port")
            do throws(SerialPortNameError) { _ = try SerialPortName(parsing: port) } catch {
                // The message quotes the text whole; a rig's value is quoted shortened, as everywhere else.
                let message = error.message.replacingOccurrences(of: "'\(port)'", with: RigWording.quoted(port))
                throw node.issue(.invalidValue, "'port': \(message)")
            }
            return port
        }
        let baud = reader.integer("baud", in: Self.baudRange) ?? Self.defaultBaud
        let reset =
            reader.read("reset") { node throws(RigFileIssue) in try node.resetWiring(for: "reset") }
            ?? Self.defaultReset(for: profile)
        reader.rejectUnknownKeys()
        guard let port else { return nil }
        return Self(port: port, baud: baud, reset: reset, at: node.location)
    }
}

extension BoardConfig.Power {
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> Self? {
        guard var reader = RigMappingReader(node, noun: "power", diagnostics: diagnostics) else { return nil }
        let hub = reader.read("hub", required: true) { node throws(RigFileIssue) in
            let hub = try node.string(for: "hub")
            guard isHubLocation(hub) else {
                throw node.issue(
                    .invalidValue,
                    "'hub' must be a USB hub location such as \"1-1.4\" (bus-port.port), "
                        + "found \(RigWording.quoted(hub))")
            }
            return hub
        }
        let port = reader.integer("port", in: Self.portRange, required: true)
        reader.rejectUnknownKeys()
        guard let hub, let port else { return nil }
        return Self(hub: hub, port: port, at: node.location)
    }
}

extension RigNode {
    /// A device address, `24:0A:C4:12:1A:2B` (or with dashes), optionally followed by ` (random)` or `/random`.
    public func deviceAddress(for key: String) throws(RigFileIssue) -> DeviceAddress {
        let text = try string(for: key)
        guard let address = DeviceAddress(text) else {
            throw issue(
                .invalidValue,
                "'\(key)' must be a device address such as 24:0A:C4:12:1A:2B (add /random for a random one), "
                    + "found \(RigWording.quoted(text))")
        }
        return address
    }
}

extension RigNode {
    /// A reset preset, `none`, or a sequence in esptool's grammar; a malformed sequence is reported at the column
    /// of the offending command inside the scalar.
    func resetWiring(for key: String) throws(RigFileIssue) -> ResetWiring {
        let text = try string(for: key)
        do {
            return try ResetWiring(parsing: text)
        } catch {
            var at = location
            // A quoted scalar's location is its opening quote.
            at.column += error.column - 1 + ((scalar?.isQuoted ?? false) ? 1 : 0)
            throw RigFileIssue(.invalidValue, "'\(key)': \(error.message)", at: at)
        }
    }
}

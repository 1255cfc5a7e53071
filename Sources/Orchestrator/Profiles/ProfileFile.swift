import BLECore
import DeviceProfiles

/// Loads profile files: a board described as data (docs/profiles.md), checked whole on load, every problem
/// reported with `file:line:column` like a rig file.
///
/// ```swift
/// let profile = try ProfileFile.parse(yaml: text, file: "profiles/my-sensor.yaml")
/// ```
/// ``parse(yaml:file:)`` is a plain function of the text and the name it reports: no file system, no state.
public enum ProfileFile {
    /// Reads, parses and checks the profile file at `path`.
    public static func load(contentsOf path: String) throws(RigFileError) -> DataProfile {
        try parse(yaml: RigFile.readText(contentsOf: path), file: path)
    }

    /// Parses and checks profile file text; `file` names it in locations.
    public static func parse(yaml text: String, file: String) throws(RigFileError) -> DataProfile {
        let diagnostics = RigDiagnostics()
        let root = try RigNode.parse(yaml: text, file: file, diagnostics: diagnostics)
        let profile = decode(root, diagnostics: diagnostics)
        try diagnostics.throwIfAny(file: file)
        guard let profile else {
            throw RigFileError(RigFileIssue(.syntax, "the profile file could not be read", at: root.location))
        }
        return profile
    }

    /// The top-level keys, in the order docs/profiles.md describes them.
    static let keys = ["profile", "advertising", "services", "ready", "notification", "commands", "console", "virtual"]

    static func decode(_ root: RigNode, diagnostics: RigDiagnostics) -> DataProfile? {
        guard var reader = RigMappingReader(root, noun: "the profile file", diagnostics: diagnostics) else {
            return nil
        }
        let name = reader.read("profile", required: true) { node throws(RigFileIssue) in
            let name = try node.string(for: "profile")
            guard BoardConfig.isValidID(name) else {
                throw node.issue(
                    .invalidValue,
                    "profile name \(RigWording.quoted(name)) may hold only letters, digits, '-' and '_' (1 to 64)")
            }
            guard Profile(rawValue: name.lowercased()) == nil else {
                throw node.issue(
                    .conflict, "profile name \(RigWording.quoted(name)) is a built-in profile's; choose another")
            }
            return name
        }
        let advertising = reader.value("advertising").flatMap { decodeAdvertising($0, diagnostics: diagnostics) }
        if reader.value("advertising") == nil { reader.recordMissing("advertising") }
        let servicesNode = reader.value("services")
        let services = servicesNode.map { decodeServices($0, diagnostics: diagnostics) } ?? []
        if servicesNode == nil { reader.recordMissing("services") }
        let ready = reader.read("ready") { node throws(RigFileIssue) in try node.uuidList(for: "ready") }
        let periodic = reader.value("notification").flatMap { decodePeriodic($0, diagnostics: diagnostics) }
        let commands = reader.value("commands").flatMap { decodeCommands($0, diagnostics: diagnostics) }
        let console = reader.value("console").flatMap { decodeConsole($0, diagnostics: diagnostics) }
        let simulation = reader.value("virtual").flatMap { decodeSimulation($0, diagnostics: diagnostics) }
        reader.rejectUnknownKeys()
        guard let advertising else { return nil }
        // The references are checked even when the name is wrong, so one load reports both.
        let profile = DataProfile(
            name: name ?? "", advertising: advertising, services: services, ready: ready?.map { $0.uuid } ?? [],
            periodic: periodic?.value, commands: commands?.value, console: console ?? DataProfile.Console(),
            simulation: simulation ?? DataProfile.Simulation())
        var references = ProfileReferences(profile: profile, diagnostics: diagnostics)
        for (uuid, location) in ready ?? [] {
            references.subscribable(uuid, at: location, role: "a ready subscription")
        }
        if let periodic {
            references.subscribable(periodic.value.characteristic, at: periodic.characteristicAt, role: "the notification")
        }
        if let commands {
            for (command, at) in zip(commands.value.writes, commands.locations) { references.writable(command, at: at) }
        }
        return name == nil ? nil : profile
    }
}

extension RigNode {
    /// A Bluetooth UUID: `180D`, `0x180D`, or 128 bits with or without dashes.
    func uuid(for key: String) throws(RigFileIssue) -> BluetoothUUID {
        let text = try string(for: key)
        guard let uuid = BluetoothUUID(text) else {
            throw issue(
                .invalidValue,
                "'\(key)' must be a Bluetooth UUID (0x180D, or 128 bits such as "
                    + "cd48409a-f3cc-11ed-a05b-0242ac120003), found \(RigWording.quoted(text))")
        }
        return uuid
    }

    /// A list of UUIDs, each with its place.
    func uuidList(for key: String) throws(RigFileIssue) -> [(uuid: BluetoothUUID, location: SourceLocation)] {
        guard let elements else { throw issue(.wrongType, "'\(key)' must be a list of UUIDs, found \(summary)") }
        var list: [(BluetoothUUID, SourceLocation)] = []
        for element in elements { list.append((try element.uuid(for: key), element.location)) }
        return list
    }

    /// Bytes written as hexadecimal digits, spaces allowed: `"01"`, `"0a 1b"`.
    func hexBytes(for key: String) throws(RigFileIssue) -> [UInt8] {
        let text = try string(for: key)
        let digits = Array(text.unicodeScalars.filter { $0 != " " })
        guard digits.count % 2 == 0, digits.allSatisfy({ $0.properties.isASCIIHexDigit }) else {
            throw issue(
                .invalidValue,
                "'\(key)' must be bytes in hexadecimal digits, two per byte (\"01\", \"0a 1b\"), "
                    + "found \(RigWording.quoted(text))")
        }
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(String.UnicodeScalarView(digits[$0..<$0 + 2])), radix: 16)!
        }
    }
}

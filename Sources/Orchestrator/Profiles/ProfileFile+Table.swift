import BLECore
import DeviceProfiles

/// `advertising:` and `services:` of a profile file.
extension ProfileFile {
    static func decodeAdvertising(_ node: RigNode, diagnostics: RigDiagnostics) -> DataProfile.Advertising? {
        guard var reader = RigMappingReader(node, noun: "advertising", diagnostics: diagnostics) else { return nil }
        var advertising = DataProfile.Advertising()
        advertising.name = reader.read("name") { node throws(RigFileIssue) in
            let text = try node.string(for: "name")
            guard !text.isEmpty, text.utf8.count <= 29 else {
                throw node.issue(
                    .invalidValue, "'name' must be 1 to 29 bytes (what fits an advertisement), found \(text.utf8.count)")
            }
            return DataProfile.NamePattern(text)
        }
        advertising.serviceUUIDs =
            reader.read("services") { node throws(RigFileIssue) in try node.uuidList(for: "services").map(\.uuid) }
            ?? []
        if let manufacturer = reader.value("manufacturer"),
            var inner = RigMappingReader(manufacturer, noun: "manufacturer", diagnostics: diagnostics)
        {
            advertising.manufacturerID = inner.integer("company", in: UInt16.min...UInt16.max, required: true)
            advertising.manufacturerData =
                inner.read("data") { node throws(RigFileIssue) in try node.hexBytes(for: "data") } ?? []
            inner.rejectUnknownKeys()
        }
        advertising.flags = reader.integer("flags", in: UInt8.min...UInt8.max)
        reader.rejectUnknownKeys()
        return advertising
    }

    static func decodeServices(_ node: RigNode, diagnostics: RigDiagnostics) -> [DataProfile.Service] {
        guard let elements = node.elements else {
            diagnostics.record(.wrongType, "'services' must be a list of services, found \(node.summary)", at: node.location)
            return []
        }
        if elements.isEmpty {
            diagnostics.record(.missingKey, "'services' must list at least one service", at: node.location)
        }
        var seen = RigBindingRegistry(diagnostics: diagnostics)
        var services: [DataProfile.Service] = []
        for (index, element) in elements.enumerated() {
            guard var reader = RigMappingReader(element, noun: "service \(index + 1)", diagnostics: diagnostics) else {
                continue
            }
            let uuid = reader.read("uuid", required: true) { node throws(RigFileIssue) in try node.uuid(for: "uuid") }
            let name = reader.string("name")
            if let uuid { reader.noun = "service \(name ?? uuid.description)" }
            let required = reader.bool("required") ?? true
            let list = reader.value("characteristics")
            let characteristics = list.map { decodeCharacteristics($0, diagnostics: diagnostics, seen: &seen) } ?? []
            if list == nil { reader.recordMissing("characteristics") }
            reader.rejectUnknownKeys()
            guard let uuid else { continue }
            guard seen.claim("service \(uuid)", by: "", at: element["uuid"]?.location ?? element.location) else {
                continue
            }
            services.append(DataProfile.Service(uuid, name: name, required: required, characteristics: characteristics))
        }
        return services
    }

    static let propertyNames: [(String, GATT.CharacteristicProperties)] = [
        ("broadcast", .broadcast), ("read", .read), ("write-without-response", .writeWithoutResponse),
        ("write", .write), ("notify", .notify), ("indicate", .indicate),
        ("signed-write", .authenticatedSignedWrites), ("extended", .extendedProperties),
    ]

    static func decodeCharacteristics(
        _ node: RigNode, diagnostics: RigDiagnostics, seen: inout RigBindingRegistry
    ) -> [DataProfile.Characteristic] {
        guard let elements = node.elements else {
            diagnostics.record(
                .wrongType, "'characteristics' must be a list of characteristics, found \(node.summary)",
                at: node.location)
            return []
        }
        var characteristics: [DataProfile.Characteristic] = []
        for (index, element) in elements.enumerated() {
            guard var reader = RigMappingReader(element, noun: "characteristic \(index + 1)", diagnostics: diagnostics)
            else { continue }
            let uuid = reader.read("uuid", required: true) { node throws(RigFileIssue) in try node.uuid(for: "uuid") }
            let name = reader.string("name")
            if let uuid { reader.noun = "characteristic \(name ?? uuid.description)" }
            let properties = reader.read("properties", required: true) { node throws(RigFileIssue) in
                try node.properties()
            }
            let required = reader.bool("required") ?? true
            let descriptors = reader.read("descriptors") { node throws(RigFileIssue) in try node.descriptors() } ?? []
            let text = reader.string("value")
            let bytes = reader.read("bytes") { node throws(RigFileIssue) in try node.hexBytes(for: "bytes") }
            let codec = reader.choice("codec", noun: "codec", DataProfile.StandardCodec.self)
            if [text != nil, bytes != nil, codec != nil].filter({ $0 }).count > 1 {
                diagnostics.record(
                    .conflict, "\(reader.noun) takes one of 'value', 'bytes' and 'codec'", at: element.location)
            }
            reader.rejectUnknownKeys()
            guard let uuid, let properties else { continue }
            guard seen.claim("characteristic \(uuid)", by: "", at: element["uuid"]?.location ?? element.location) else {
                continue
            }
            characteristics.append(
                DataProfile.Characteristic(
                    uuid, name: name, properties: properties, required: required, descriptors: descriptors,
                    value: bytes ?? text.map { Array($0.utf8) }, codec: codec))
        }
        return characteristics
    }
}

extension RigNode {
    /// `[read, notify]`: characteristic properties by name.
    func properties() throws(RigFileIssue) -> GATT.CharacteristicProperties {
        guard let elements else {
            throw issue(.wrongType, "'properties' must be a list such as [read, notify], found \(summary)")
        }
        var properties: GATT.CharacteristicProperties = []
        let names = ProfileFile.propertyNames.map(\.0)
        for element in elements {
            let name = try element.string(for: "properties").lowercased()
            guard let property = ProfileFile.propertyNames.first(where: { $0.0 == name })?.1 else {
                throw element.issue(
                    .invalidValue,
                    "unknown property \(RigWording.quoted(name))" + RigWording.hint(for: name, among: names))
            }
            properties.insert(property)
        }
        if properties.isEmpty { throw issue(.invalidValue, "'properties' must name at least one property") }
        return properties
    }

    /// `[0x2901, {uuid: 0x2901, value: "Alert light"}]`.
    func descriptors() throws(RigFileIssue) -> [DataProfile.Descriptor] {
        guard let elements else { throw issue(.wrongType, "'descriptors' must be a list, found \(summary)") }
        var descriptors: [DataProfile.Descriptor] = []
        for element in elements {
            if element.entries == nil {
                descriptors.append(DataProfile.Descriptor(try element.uuid(for: "descriptors")))
                continue
            }
            guard let uuidNode = element["uuid"] else {
                throw element.issue(.missingKey, "a descriptor needs 'uuid'")
            }
            for entry in element.entries ?? [] where !["uuid", "value", "bytes"].contains(entry.key) {
                throw RigFileIssue(
                    .unknownKey,
                    "unknown key \(RigWording.quoted(entry.key)) in descriptor"
                        + RigWording.hint(for: entry.key, among: ["uuid", "value", "bytes"]), at: entry.keyLocation)
            }
            var value: [UInt8] = []
            if let bytes = element["bytes"] {
                value = try bytes.hexBytes(for: "bytes")
            } else if let text = element["value"] {
                value = Array(try text.string(for: "value").utf8)
            }
            descriptors.append(DataProfile.Descriptor(try uuidNode.uuid(for: "uuid"), value: value))
        }
        return descriptors
    }
}

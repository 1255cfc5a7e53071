import BLECore
import DeviceProfiles

/// `notification:`, `commands:`, `console:` and `virtual:` of a profile file.
extension ProfileFile {
    struct Located<Value> {
        var value: Value
        var characteristicAt: SourceLocation
    }

    static func decodePeriodic(_ node: RigNode, diagnostics: RigDiagnostics) -> Located<DataProfile.Periodic>? {
        guard var reader = RigMappingReader(node, noun: "notification", diagnostics: diagnostics) else { return nil }
        let characteristic = reader.read("characteristic", required: true) { node throws(RigFileIssue) in
            try node.uuid(for: "characteristic")
        }
        let name = reader.string("name")
        let rate = reader.number("rate_hz", in: 0.001...1000, unit: "Hz", required: true)
        let decoder = reader.read("decoder", required: true) { node throws(RigFileIssue) in try node.valueDecoder() }
        let range = reader.read("range") { node throws(RigFileIssue) -> ClosedRange<Double> in
            guard let bounds = node.elements, bounds.count == 2 else {
                throw node.issue(.wrongType, "'range' must be [lowest, highest], found \(node.summary)")
            }
            let low = try bounds[0].number(for: "range", in: -1e300...1e300)
            let high = try bounds[1].number(for: "range", in: -1e300...1e300)
            guard low <= high else { throw node.issue(.invalidValue, "'range' must be [lowest, highest], low first") }
            return low...high
        }
        reader.rejectUnknownKeys()
        guard let characteristic, let rate, let decoder else { return nil }
        return Located(
            value: DataProfile.Periodic(
                characteristic: characteristic, name: name ?? characteristic.description, rateHz: rate,
                decoder: decoder, range: range),
            characteristicAt: node["characteristic"]?.location ?? node.location)
    }

    struct DecodedCommands {
        var value: DataProfile.Commands
        var locations: [SourceLocation]
    }

    static func decodeCommands(_ node: RigNode, diagnostics: RigDiagnostics) -> DecodedCommands? {
        guard var reader = RigMappingReader(node, noun: "commands", diagnostics: diagnostics) else { return nil }
        let check = reader.string("check") ?? "commands answered"
        var writes: [DataProfile.Command] = []
        var locations: [SourceLocation] = []
        if let list = reader.value("writes") {
            if let elements = list.elements, !elements.isEmpty {
                for (index, element) in elements.enumerated() {
                    if let command = decodeCommand(element, index: index, diagnostics: diagnostics) {
                        writes.append(command)
                        locations.append(element.location)
                    }
                }
            } else {
                diagnostics.record(
                    .wrongType, "'writes' must be a list of at least one write, found \(list.summary)", at: list.location)
            }
        } else {
            reader.recordMissing("writes")
        }
        reader.rejectUnknownKeys()
        return DecodedCommands(value: DataProfile.Commands(check: check, writes: writes), locations: locations)
    }

    static func decodeCommand(_ node: RigNode, index: Int, diagnostics: RigDiagnostics) -> DataProfile.Command? {
        guard var reader = RigMappingReader(node, noun: "write \(index + 1)", diagnostics: diagnostics) else {
            return nil
        }
        let name = reader.string("name") ?? "write \(index + 1)"
        reader.noun = "write \(RigWording.quoted(name))"
        let characteristic = reader.read("characteristic", required: true) { node throws(RigFileIssue) in
            try node.uuid(for: "characteristic")
        }
        let bytes = reader.read("bytes") { node throws(RigFileIssue) in try node.hexBytes(for: "bytes") }
        let text = reader.string("value")
        // Written but not valid is already reported where it is written.
        if bytes == nil, text == nil, reader.value("bytes") == nil, reader.value("value") == nil {
            reader.recordMissing("bytes", because: " (or 'value', UTF-8 text)")
        }
        let withoutResponse = reader.bool("without_response") ?? false
        let within = reader.number("within_ms", in: 1...60_000, unit: "ms") ?? 1000
        var expect = DataProfile.Expectation()
        if let node = reader.value("expect"),
            var inner = RigMappingReader(node, noun: "expect", diagnostics: diagnostics)
        {
            expect.error = inner.integer("error", in: UInt8(1)...UInt8.max)
            if let notified = inner.value("notification"),
                var note = RigMappingReader(notified, noun: "expected notification", diagnostics: diagnostics)
            {
                let uuid = note.read("characteristic", required: true) { node throws(RigFileIssue) in
                    try node.uuid(for: "characteristic")
                }
                let value = note.read("bytes") { node throws(RigFileIssue) in try node.hexBytes(for: "bytes") }
                note.rejectUnknownKeys()
                expect.notification = uuid.map { DataProfile.ExpectedNotification(characteristic: $0, bytes: value) }
            }
            inner.rejectUnknownKeys()
            if withoutResponse, expect.error != nil {
                diagnostics.record(
                    .conflict, "a write without response has no response to carry an error", at: node.location)
            }
        }
        reader.rejectUnknownKeys()
        guard let characteristic, let value = bytes ?? text.map({ Array($0.utf8) }) else { return nil }
        return DataProfile.Command(
            name: name, characteristic: characteristic, bytes: value, withoutResponse: withoutResponse, expect: expect,
            within: .milliseconds(within))
    }

    static func decodeSimulation(_ node: RigNode, diagnostics: RigDiagnostics) -> DataProfile.Simulation? {
        guard var reader = RigMappingReader(node, noun: "virtual", diagnostics: diagnostics) else { return nil }
        var simulation = DataProfile.Simulation()
        if let version = reader.read("firmware", { node throws(RigFileIssue) in try node.firmwareVersion(for: "firmware") }) {
            simulation.firmware = version
        }
        if let ms = reader.number("boot_ms", in: 1...60_000, unit: "ms") { simulation.bootDuration = .milliseconds(ms) }
        if let mtu = reader.integer("mtu", in: UInt16(23)...UInt16(517)) { simulation.maximumMTU = mtu }
        if let oui = reader.integer("oui", in: UInt32(0)...UInt32(0xFF_FFFF)) { simulation.oui = oui }
        reader.rejectUnknownKeys()
        return simulation
    }
}

extension RigNode {
    /// `{format: i16, scale: 0.01, unit: °C}` or `{codec: heart-rate-measurement}`.
    func valueDecoder() throws(RigFileIssue) -> DataProfile.ValueDecoder {
        guard let entries else {
            throw issue(.wrongType, "'decoder' must be {format: i16, scale: 0.01, unit: °C} or {codec: …}, found \(summary)")
        }
        let known = ["format", "scale", "unit", "codec"]
        for entry in entries where !known.contains(entry.key) {
            throw RigFileIssue(
                .unknownKey,
                "unknown key \(RigWording.quoted(entry.key)) in decoder" + RigWording.hint(for: entry.key, among: known),
                at: entry.keyLocation)
        }
        if let codec = self["codec"] {
            guard self["format"] == nil else { throw issue(.conflict, "a decoder takes 'format' or 'codec', not both") }
            return .codec(try codec.choice(for: "codec", noun: "codec", DataProfile.StandardCodec.self))
        }
        guard let formatNode = self["format"] else {
            throw issue(.missingKey, "decoder needs 'format' (u8 … u64, i8 … i64, f32, f64) or 'codec'")
        }
        let name = try formatNode.string(for: "format").lowercased()
        guard var format = DataProfile.NumberFormat(name: name) else {
            throw formatNode.issue(
                .invalidValue,
                "unknown format \(RigWording.quoted(name)) (expected u8, u16, u32, u64, i8, i16, i32, i64, f32 or f64)")
        }
        if let scale = self["scale"] { format.scale = try scale.number(for: "scale", in: -1e12...1e12) }
        guard format.scale != 0 else { throw self["scale"]!.issue(.outOfRange, "'scale' must not be 0") }
        if let unit = self["unit"] { format.unit = try unit.string(for: "unit") }
        return .number(format)
    }
}

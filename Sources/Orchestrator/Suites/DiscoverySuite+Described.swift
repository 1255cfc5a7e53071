import BLECore
import CentralStack
import DeviceProfiles

/// The `discovery` checks of a board described as data: its advertising and its table against the profile file.
extension DiscoverySuite {
    /// What is wrong with `data` as the advertising of a board of the described `profile` at `address`.
    static func problems(in data: AdvertisingData, of profile: DataProfile, address: DeviceAddress) -> [String] {
        var problems: [String] = []
        let advertising = profile.advertising
        if let pattern = advertising.name, !(data.localName.map { pattern.matches($0, address: address) } ?? false) {
            problems.append(
                "local name is \(data.localName.map { "'\($0)'" } ?? "absent"), expected '\(pattern.resolved(for: address))'")
        }
        for uuid in advertising.serviceUUIDs where !data.serviceUUIDs.contains(uuid) {
            problems.append("service \(uuid) is not advertised")
        }
        if let company = advertising.manufacturerID,
            data.manufacturerData(for: CompanyIdentifier(rawValue: company)) == nil
        {
            problems.append("no manufacturer data for company \(CompanyIdentifier(rawValue: company))")
        }
        if let flags = advertising.flags, data.flags != AdvertisingFlags(rawValue: flags) {
            problems.append("flags are \(String(describing: data.flags)), expected \(AdvertisingFlags(rawValue: flags))")
        }
        return problems
    }

    /// What the board's table lacks of the profile's required part: the handshake already found every required
    /// service and characteristic, so this checks their properties and descriptors.
    static func tableProblems(of profile: DataProfile, in session: ProfileSession) async throws -> [String] {
        var problems: [String] = []
        for service in profile.services where service.required {
            for wanted in service.characteristics where wanted.required {
                let found = try session.characteristic(wanted.uuid)
                let missing = wanted.properties.subtracting(found.properties)
                if !missing.isEmpty {
                    problems.append(
                        "\(wanted.name ?? wanted.uuid.description) lacks properties "
                            + ProfileFile.propertyNames.filter { missing.contains($0.1) }.map(\.0).joined(separator: ", "))
                }
                let descriptors = wanted.descriptors.map(\.uuid).filter {
                    $0 != GATT.AttributeType.clientCharacteristicConfiguration
                }
                guard !descriptors.isEmpty else { continue }
                let present = try await session.connection.discoverDescriptors(of: found).map(\.uuid)
                for uuid in descriptors where !present.contains(uuid) {
                    problems.append("\(wanted.name ?? wanted.uuid.description) has no descriptor \(uuid)")
                }
            }
        }
        return problems
    }
}

/// One AD structure of advertising or scan response data: a length byte, an AD type byte and the type's data
/// (Core 5.4 Vol 3 Part C §11; formats in Core Specification Supplement Part A). Every type the rig reads is a
/// typed case; anything else is ``raw(_:_:)`` and re-encoded unchanged.
public enum ADStructure: Hashable, Sendable {
    /// Flags, 0x01, one octet (CSS Part A §1.3). A Flags structure of any other length decodes as ``raw(_:_:)``.
    case flags(AdvertisingFlags)
    /// 0x02–0x07: a list of service UUIDs written at one width; `complete` says the device offers no other
    /// service UUID of that width (CSS Part A §1.1).
    case serviceUUIDs([BluetoothUUID], width: BluetoothUUID.Width, complete: Bool)
    /// 0x08 Shortened or 0x09 Complete Local Name, UTF-8 (CSS Part A §1.2).
    case localName(String, complete: Bool)
    /// 0x0A: the transmitted power in dBm, −127…+127 (CSS Part A §1.5).
    case txPowerLevel(Int8)
    /// 0x16, 0x20, 0x21: a service UUID at the given width followed by service-defined bytes (CSS Part A §1.11).
    case serviceData(BluetoothUUID, [UInt8], width: BluetoothUUID.Width)
    /// 0x19, two octets (CSS Part A §1.12).
    case appearance(Appearance)
    /// 0xFF: a company identifier followed by company-defined bytes (CSS Part A §1.4).
    case manufacturerData(CompanyIdentifier, [UInt8])
    /// Any other type, kept as received. Use the typed cases for the types above: a typed type put here encodes
    /// the same bytes but decodes back as its typed case.
    case raw(ADType, [UInt8])

    /// The AD type byte this structure is written with.
    public var type: ADType {
        switch self {
        case .flags: .flags
        case let .serviceUUIDs(_, width, complete): .serviceUUIDs(width, complete: complete)
        case let .localName(_, complete): complete ? .completeLocalName : .shortenedLocalName
        case .txPowerLevel: .txPowerLevel
        case let .serviceData(_, _, width): .serviceData(width)
        case .appearance: .appearance
        case .manufacturerData: .manufacturerSpecificData
        case let .raw(type, _): type
        }
    }

    /// Largest data part of one structure: the length byte counts the type byte too and holds at most 255.
    public static let maximumDataLength = 254

    /// The data part (everything after the AD type byte), or why this structure cannot be written.
    public func encodedData() throws(AdvertisingData.EncodingError) -> [UInt8] {
        var writer = ByteWriter()
        switch self {
        case let .flags(flags):
            writer.write(flags.rawValue)
        case let .serviceUUIDs(uuids, width, _):
            for uuid in uuids {
                guard let bytes = uuid.littleEndianBytes(width: width) else {
                    throw .uuidTooWide(uuid, type: type)
                }
                writer.write(contentsOf: bytes)
            }
        case let .localName(name, _):
            writer.write(contentsOf: name.utf8)
        case let .txPowerLevel(dBm):
            writer.write(dBm)
        case let .serviceData(uuid, data, width):
            guard let bytes = uuid.littleEndianBytes(width: width) else { throw .uuidTooWide(uuid, type: type) }
            writer.write(contentsOf: bytes)
            writer.write(contentsOf: data)
        case let .appearance(appearance):
            writer.write(appearance.rawValue)
        case let .manufacturerData(company, data):
            writer.write(company.rawValue)
            writer.write(contentsOf: data)
        case let .raw(_, data):
            writer.write(contentsOf: data)
        }
        guard writer.bytes.count <= Self.maximumDataLength else {
            throw .structureTooLong(type: type, dataLength: writer.bytes.count)
        }
        return writer.bytes
    }

    /// The whole structure: length, type, data.
    public func encoded() throws(AdvertisingData.EncodingError) -> [UInt8] {
        let data = try encodedData()
        return [UInt8(data.count + 1), type.rawValue] + data
    }
}

extension ADStructure: CustomStringConvertible {
    /// `Complete Local Name "ESP-Point-1a2b"`, `Complete List of 16-bit Service UUIDs [180D, 180F]`.
    public var description: String {
        switch self {
        case let .flags(flags): "\(type.name) \(flags)"
        case let .serviceUUIDs(uuids, _, _): "\(type.name) [\(uuids.map(\.description).joined(separator: ", "))]"
        case let .localName(name, _): "\(type.name) \"\(name)\""
        case let .txPowerLevel(dBm): "\(type.name) \(dBm) dBm"
        case let .serviceData(uuid, data, _): "\(type.name) \(uuid): \(data.hexString)"
        case let .appearance(appearance): "\(type.name) \(appearance)"
        case let .manufacturerData(company, data): "\(type.name) company \(company): \(data.hexString)"
        case let .raw(type, data): "\(type): \(data.hexString)"
        }
    }
}

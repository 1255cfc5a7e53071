/// Advertising or scan response data: a sequence of AD structures (Core 5.4 Vol 3 Part C §11, formats in Core
/// Specification Supplement Part A), kept in the order received so that decoding and re-encoding give the same
/// bytes. The properties below are typed views over ``structures``.
public struct AdvertisingData: Hashable, Sendable {
    /// The AD structures, in order.
    public var structures: [ADStructure]

    public init(structures: [ADStructure]) {
        self.structures = structures
    }

    /// Builds data in the usual order: flags, service UUID lists, complete local name, Tx power, appearance,
    /// service data, manufacturer data. UUIDs go into complete lists at their narrowest width.
    public init(
        flags: AdvertisingFlags? = nil,
        localName: String? = nil,
        serviceUUIDs: [BluetoothUUID] = [],
        txPowerLevel: Int8? = nil,
        appearance: Appearance? = nil,
        serviceData: [(uuid: BluetoothUUID, data: [UInt8])] = [],
        manufacturerData: (company: CompanyIdentifier, data: [UInt8])? = nil
    ) {
        structures = []
        if let flags { structures.append(.flags(flags)) }
        structures += Self.completeLists(serviceUUIDs)
        if let localName { structures.append(.localName(localName, complete: true)) }
        if let txPowerLevel { structures.append(.txPowerLevel(txPowerLevel)) }
        if let appearance { structures.append(.appearance(appearance)) }
        for (uuid, data) in serviceData { structures.append(.serviceData(uuid, data, width: uuid.narrowestWidth)) }
        if let manufacturerData {
            structures.append(.manufacturerData(manufacturerData.company, manufacturerData.data))
        }
    }

    /// The Flags, when present. A Flags structure longer than one octet reports its first octet. Setting replaces
    /// the Flags structure in place, or puts a new one first; nil removes it.
    public var flags: AdvertisingFlags? {
        get {
            for structure in structures {
                switch structure {
                case let .flags(flags): return flags
                case let .raw(.flags, data) where !data.isEmpty: return AdvertisingFlags(rawValue: data[0])
                default: continue
                }
            }
            return nil
        }
        set {
            let index = structures.firstIndex { $0.type == .flags }
            structures.removeAll { $0.type == .flags }
            guard let newValue else { return }
            structures.insert(.flags(newValue), at: min(index ?? 0, structures.count))
        }
    }

    /// The complete local name, else the shortened one. Setting replaces the first name structure in place (as a
    /// complete name) and removes any other, or appends one; nil removes every name.
    public var localName: String? {
        get {
            var shortened: String?
            for case let .localName(name, complete) in structures {
                if complete { return name }
                shortened = shortened ?? name
            }
            return shortened
        }
        set {
            let isName: (ADStructure) -> Bool = { if case .localName = $0 { true } else { false } }
            let index = structures.firstIndex(where: isName)
            structures.removeAll(where: isName)
            guard let newValue else { return }
            let position = min(index ?? structures.count, structures.count)
            structures.insert(.localName(newValue, complete: true), at: position)
        }
    }

    /// Every UUID of every service UUID list (16-, 32- and 128-bit, complete and incomplete), in order. Setting
    /// replaces all lists with complete lists at each UUID's narrowest width, where the first list was.
    public var serviceUUIDs: [BluetoothUUID] {
        get {
            var uuids: [BluetoothUUID] = []
            for case let .serviceUUIDs(list, _, _) in structures { uuids += list }
            return uuids
        }
        set {
            let isList: (ADStructure) -> Bool = { if case .serviceUUIDs = $0 { true } else { false } }
            let index = structures.firstIndex(where: isList)
            structures.removeAll(where: isList)
            let position = min(index ?? structures.count, structures.count)
            structures.insert(contentsOf: Self.completeLists(newValue), at: position)
        }
    }

    /// The Tx Power Level in dBm, when present.
    public var txPowerLevel: Int8? {
        for case let .txPowerLevel(dBm) in structures { return dBm }
        return nil
    }

    /// The Appearance, when present.
    public var appearance: Appearance? {
        for case let .appearance(appearance) in structures { return appearance }
        return nil
    }

    /// The bytes after the company identifier of the first Manufacturer Specific Data from `company`.
    public func manufacturerData(for company: CompanyIdentifier) -> [UInt8]? {
        for case let .manufacturerData(from, data) in structures where from == company { return data }
        return nil
    }

    /// The bytes after the UUID of the first Service Data for `uuid`, whatever width it was written in.
    public func serviceData(for uuid: BluetoothUUID) -> [UInt8]? {
        for case let .serviceData(of, data, _) in structures where of == uuid { return data }
        return nil
    }

    /// The structures of one AD type, in order.
    public func structures(of type: ADType) -> [ADStructure] { structures.filter { $0.type == type } }

    /// Complete lists, one per width present, 16-bit first; order within a width is kept.
    private static func completeLists(_ uuids: [BluetoothUUID]) -> [ADStructure] {
        BluetoothUUID.Width.allCases.compactMap { width in
            let group = uuids.filter { $0.narrowestWidth == width }
            return group.isEmpty ? nil : .serviceUUIDs(group, width: width, complete: true)
        }
    }
}

extension AdvertisingData: CustomStringConvertible {
    /// One structure per clause: `Flags 0x06 [...]; Complete Local Name "hrm"`.
    public var description: String {
        structures.isEmpty ? "(no AD structures)" : structures.map(\.description).joined(separator: "; ")
    }
}

extension AdvertisingData {
    /// The advertising data followed by the scan response, the way a scanning host reports a device.
    public func merged(with scanResponse: AdvertisingData) -> AdvertisingData {
        AdvertisingData(structures: structures + scanResponse.structures)
    }
}

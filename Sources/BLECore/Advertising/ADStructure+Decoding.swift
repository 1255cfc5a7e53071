extension ADStructure {
    /// Decodes the data part of one AD structure of the given type (CSS Part A). `offset` is where the
    /// structure's length byte sits in the enclosing advertising data; errors report it and name the type.
    ///
    /// Throws when a UUID list is not a whole number of UUIDs, a fixed-size type (Tx Power Level 1 byte,
    /// Appearance 2 bytes) has another size, service or manufacturer data is too short for its UUID or company,
    /// or a local name is not UTF-8.
    public init(type: ADType, data: some Collection<UInt8>, at offset: Int = 0) throws(DecodingError) {
        let data = Array(data)
        func wrongLength(_ reason: String) -> DecodingError {
            .invalidValue(context: "advertising data", field: "\(type) length", reason: reason, at: offset)
        }
        switch type {
        case .flags where data.count == 1:
            self = .flags(AdvertisingFlags(rawValue: data[0]))
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16, .incompleteServiceUUIDs32,
            .completeServiceUUIDs32, .incompleteServiceUUIDs128, .completeServiceUUIDs128:
            let width: BluetoothUUID.Width =
                type.rawValue <= 0x03 ? .bits16 : (type.rawValue <= 0x05 ? .bits32 : .bits128)
            guard data.count.isMultiple(of: width.byteCount) else {
                throw wrongLength("\(data.count) data byte(s) is not a whole number of \(width) UUIDs")
            }
            var uuids: [BluetoothUUID] = []
            for start in stride(from: 0, to: data.count, by: width.byteCount) {
                uuids.append(try BluetoothUUID(littleEndian: data[start..<(start + width.byteCount)]))
            }
            self = .serviceUUIDs(uuids, width: width, complete: !type.rawValue.isMultiple(of: 2))
        case .shortenedLocalName, .completeLocalName:
            if let bad = firstInvalidUTF8Offset(data) {
                throw .invalidValue(
                    context: "advertising data", field: "\(type)", reason: "not valid UTF-8",
                    at: offset + 2 + bad)
            }
            self = .localName(String(decoding: data, as: UTF8.self), complete: type == .completeLocalName)
        case .txPowerLevel:
            guard data.count == 1 else { throw wrongLength("\(data.count) data byte(s); Tx Power Level has 1") }
            self = .txPowerLevel(Int8(bitPattern: data[0]))
        case .serviceData16, .serviceData32, .serviceData128:
            let width: BluetoothUUID.Width =
                type == .serviceData16 ? .bits16 : (type == .serviceData32 ? .bits32 : .bits128)
            guard data.count >= width.byteCount else {
                throw wrongLength("\(data.count) data byte(s); service data starts with a \(width) UUID")
            }
            let uuid = try BluetoothUUID(littleEndian: data[0..<width.byteCount])
            self = .serviceData(uuid, Array(data[width.byteCount...]), width: width)
        case .appearance:
            guard data.count == 2 else { throw wrongLength("\(data.count) data byte(s); Appearance has 2") }
            self = .appearance(Appearance(rawValue: UInt16(data[0]) | UInt16(data[1]) << 8))
        case .manufacturerSpecificData:
            guard data.count >= 2 else {
                throw wrongLength("\(data.count) data byte(s); manufacturer data starts with a 2-byte company")
            }
            let company = CompanyIdentifier(rawValue: UInt16(data[0]) | UInt16(data[1]) << 8)
            self = .manufacturerData(company, Array(data[2...]))
        default:
            // Includes Flags of a length other than one: CSS Part A §1.3 lets Flags grow, so keep them as sent.
            self = .raw(type, data)
        }
    }
}

/// The offset of the first byte that does not belong to a well-formed UTF-8 sequence (Unicode §3.9: overlong
/// forms, surrogates and code points above U+10FFFF are ill-formed), or nil when all of `bytes` is UTF-8.
private func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var consumed = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case let .valid(scalar): consumed += scalar.count
        case .emptyInput: return nil
        case .error: return consumed
        }
    }
}

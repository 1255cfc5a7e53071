extension GATTServer {
    /// The value of an attribute for this client, after the read permission check: a stored value, the client's
    /// own CCCD, or what the application returns for a dynamic value.
    mutating func readValue<A: GATTServerApplication>(
        _ attribute: Attribute, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> [UInt8] {
        if let error = attribute.permissions.check(.read, security(of: connection)) {
            throw RequestError(error, attribute.handle)
        }
        if attribute.isClientSupportedFeatures { return [clientFeatures(of: connection).rawValue] }
        switch (attribute.role, attribute.stored) {
        case (.clientConfiguration(let valueHandle, _), _):
            let bits = clientConfiguration(valueHandle, for: connection).rawValue
            return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8)]
        case (_, .stored(let value)):
            return value
        case (_, .dynamic):
            switch application.read(access(attribute, connection)) {
            case .success(let value): return Array(value.prefix(ATT.maximumAttributeValueLength))
            case .failure(let error): throw RequestError(error, attribute.handle)
            }
        }
    }

    /// Read (§3.4.4.3): the first ATT_MTU − 1 bytes of the value.
    mutating func read<A: GATTServerApplication>(
        _ request: ATT.ReadRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.ReadResponse {
        let value = try readValue(try attribute(request.handle), connection, &application)
        return ATT.ReadResponse(value: Array(value.prefix(Int(mtu(of: connection)) - 1)))
    }

    /// Read Blob (§3.4.4.5): up to ATT_MTU − 1 bytes from the offset. 0x0B Attribute Not Long for a fixed-length
    /// value that a Read Response carries whole; 0x07 Invalid Offset past the end. An offset equal to the length
    /// gives an empty response, which ends a long read.
    mutating func readBlob<A: GATTServerApplication>(
        _ request: ATT.ReadBlobRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.ReadBlobResponse {
        let attribute = try attribute(request.handle)
        let mtu = Int(mtu(of: connection))
        if let error = attribute.permissions.check(.read, security(of: connection)) {
            throw RequestError(error, attribute.handle)
        }
        if let fixed = attribute.length.fixedLength, fixed <= mtu - 1 {
            throw RequestError(.attributeNotLong, attribute.handle)
        }
        let value = try readValue(attribute, connection, &application)
        guard Int(request.offset) <= value.count else { throw RequestError(.invalidOffset, attribute.handle) }
        return ATT.ReadBlobResponse(value: Array(value[Int(request.offset)...].prefix(mtu - 1)))
    }

    /// Read Multiple (§3.4.4.7): the values concatenated and cut at ATT_MTU − 1 bytes; the first handle that
    /// cannot be read fails the whole request.
    mutating func readMultiple<A: GATTServerApplication>(
        _ request: ATT.ReadMultipleRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.ReadMultipleResponse {
        var values: [UInt8] = []
        for handle in request.handles {
            values += try readValue(try attribute(handle), connection, &application)
        }
        return ATT.ReadMultipleResponse(values: Array(values.prefix(Int(mtu(of: connection)) - 1)))
    }

    /// Read Multiple Variable (§3.4.4.11): a length–value tuple per handle, the list cut at ATT_MTU − 1 bytes. A
    /// cut may shorten the last value (its length field still gives the whole length) but never splits a length
    /// field; tuples that do not fit are left out.
    mutating func readMultipleVariable<A: GATTServerApplication>(
        _ request: ATT.ReadMultipleVariableRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.ReadMultipleVariableResponse {
        var values: [[UInt8]] = []
        for handle in request.handles {
            values.append(try readValue(try attribute(handle), connection, &application))
        }
        var budget = Int(mtu(of: connection)) - 1
        var included: [[UInt8]] = []
        var truncatedLength: UInt16?
        for value in values {
            guard budget >= 2 else { break }
            budget -= 2
            if value.count <= budget {
                included.append(value)
                budget -= value.count
            } else {
                included.append(Array(value.prefix(budget)))
                truncatedLength = UInt16(value.count)
                break
            }
        }
        return ATT.ReadMultipleVariableResponse(values: included, truncatedLastValueLength: truncatedLength)
    }
}

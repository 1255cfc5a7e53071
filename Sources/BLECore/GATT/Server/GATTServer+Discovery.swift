extension GATTServer {
    /// Exchange MTU (Vol 3 Part F §3.4.2; Part G §4.3.1): the effective ATT_MTU becomes min(client, server), never
    /// below 23. Only the first exchange on a connection sets it; a repeated request is answered but changes
    /// nothing, since both sides must keep using the MTU they agreed.
    mutating func exchangeMTU(_ request: ATT.ExchangeMTURequest, _ connection: ConnectionID) -> ATT.ExchangeMTUResponse
    {
        if !connections[connection, default: Connection(security: .open)].hasExchangedMTU {
            connections[connection]!.mtu = max(ATT.defaultMTU, min(request.clientRxMTU, configuration.maximumMTU))
            connections[connection]!.hasExchangedMTU = true
        }
        return ATT.ExchangeMTUResponse(serverRxMTU: configuration.maximumMTU)
    }

    /// Find Information (§3.4.3.1): handle–type pairs in the range, as many as fit in ATT_MTU, all of the first
    /// pair's UUID format; the list stops at the first attribute of the other format so the client's next request
    /// (from the last handle + 1) misses nothing.
    func findInformation(
        _ request: ATT.FindInformationRequest, _ connection: ConnectionID
    ) throws(RequestError) -> ATT.FindInformationResponse {
        try Self.checkRange(request.startingHandle, request.endingHandle)
        let mtu = Int(mtu(of: connection))
        var format: ATT.UUIDFormat?
        var entries: [ATT.FindInformationResponse.Entry] = []
        for attribute in database.attributes(from: request.startingHandle, to: request.endingHandle) {
            let entryFormat = ATT.UUIDFormat(shortestFor: attribute.type)
            guard format == nil || format == entryFormat, 2 + (entries.count + 1) * (2 + entryFormat.width) <= mtu
            else { break }
            format = entryFormat
            entries.append(.init(handle: attribute.handle, type: attribute.type))
        }
        guard let format else { throw RequestError(.attributeNotFound, request.startingHandle) }
        return ATT.FindInformationResponse(format: format, entries: entries)
    }

    /// Find By Type Value (§3.4.3.3): the attributes in the range with this type and value, each with the end of
    /// its group. Service UUIDs match in either width. Attributes the client may not read are skipped.
    mutating func findByTypeValue<A: GATTServerApplication>(
        _ request: ATT.FindByTypeValueRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.FindByTypeValueResponse {
        try Self.checkRange(request.startingHandle, request.endingHandle)
        let mtu = Int(mtu(of: connection))
        let isServiceType = [GATT.AttributeType.primaryService, GATT.AttributeType.secondaryService]
            .contains(request.attributeType)
        let wantedService =
            isServiceType && [2, 16].contains(request.value.count)
            ? try? BluetoothUUID(littleEndian: request.value) : nil
        var found: [ATT.FindByTypeValueResponse.HandlesInformation] = []
        for attribute in database.attributes(from: request.startingHandle, to: request.endingHandle)
        where attribute.type == request.attributeType {
            guard 1 + (found.count + 1) * 4 <= mtu else { break }
            guard let value = try? readValue(attribute, connection, &application) else { continue }
            let matches =
                if let wantedService { (try? BluetoothUUID(littleEndian: value)) == wantedService } else {
                    value == request.value
                }
            if matches { found.append(.init(foundHandle: attribute.handle, groupEndHandle: attribute.groupEnd)) }
        }
        guard !found.isEmpty else { throw RequestError(.attributeNotFound, request.startingHandle) }
        return ATT.FindByTypeValueResponse(handles: found)
    }

    /// Read By Type (§3.4.4.1): the values of the attributes of this type in the range, each truncated to
    /// min(ATT_MTU − 4, 253) bytes, as many of the first value's length as fit. An attribute that cannot be read
    /// fails the request when it is the first match, else ends the list before it.
    mutating func readByType<A: GATTServerApplication>(
        _ request: ATT.ReadByTypeRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.ReadByTypeResponse {
        try Self.checkRange(request.startingHandle, request.endingHandle)
        let mtu = Int(mtu(of: connection))
        let limit = min(mtu - 4, ATT.ReadByTypeResponse.maximumValueLength)
        var entries: [ATT.ReadByTypeResponse.Entry] = []
        for attribute in database.attributes(from: request.startingHandle, to: request.endingHandle)
        where attribute.type == request.attributeType {
            let value: [UInt8]
            do {
                value = Array(try readValue(attribute, connection, &application).prefix(limit))
            } catch {
                if entries.isEmpty { throw error } else { break }
            }
            guard entries.isEmpty || value.count == entries[0].value.count,
                2 + (entries.count + 1) * (2 + value.count) <= mtu
            else { break }
            entries.append(.init(handle: attribute.handle, value: value))
        }
        guard !entries.isEmpty else { throw RequestError(.attributeNotFound, request.startingHandle) }
        return ATT.ReadByTypeResponse(entries: entries)
    }

    /// Read By Group Type (§3.4.4.9): the service declarations of the given kind in the range with their group
    /// ends; only «Primary Service» and «Secondary Service» group (0x10 Unsupported Group Type otherwise). One
    /// response holds values of one length, truncated to min(ATT_MTU − 6, 251).
    func readByGroupType(
        _ request: ATT.ReadByGroupTypeRequest, _ connection: ConnectionID
    ) throws(RequestError) -> ATT.ReadByGroupTypeResponse {
        try Self.checkRange(request.startingHandle, request.endingHandle)
        guard [GATT.AttributeType.primaryService, GATT.AttributeType.secondaryService].contains(request.groupType)
        else { throw RequestError(.unsupportedGroupType, request.startingHandle) }
        let mtu = Int(mtu(of: connection))
        let limit = min(mtu - 6, ATT.ReadByGroupTypeResponse.maximumValueLength)
        var entries: [ATT.ReadByGroupTypeResponse.Entry] = []
        for attribute in database.attributes(from: request.startingHandle, to: request.endingHandle)
        where attribute.type == request.groupType {
            guard case .stored(let stored) = attribute.stored else { continue }
            let value = Array(stored.prefix(limit))
            guard entries.isEmpty || value.count == entries[0].value.count,
                2 + (entries.count + 1) * (4 + value.count) <= mtu
            else { break }
            entries.append(.init(handle: attribute.handle, endGroupHandle: attribute.groupEnd, value: value))
        }
        guard !entries.isEmpty else { throw RequestError(.attributeNotFound, request.startingHandle) }
        return ATT.ReadByGroupTypeResponse(entries: entries)
    }
}

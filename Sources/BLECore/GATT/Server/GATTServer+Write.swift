extension GATTServer {
    /// Throws the error a write of `value` to `attribute` deserves before anything is changed: 0x0D Invalid Attribute
    /// Value Length when the length rule (at most 512 bytes, exactly 2 for a CCCD) is broken, 0xFD CCCD Improperly
    /// Configured when a CCCD value enables notifications or indications the characteristic does not support.
    func validate(_ value: [UInt8], for attribute: Attribute) throws(RequestError) {
        guard attribute.length.allows(value.count), value.count <= ATT.maximumAttributeValueLength else {
            throw RequestError(.invalidAttributeValueLength, attribute.handle)
        }
        switch attribute.role {
        case .clientConfiguration(_, let supported):
            guard supported.isSuperset(of: Self.configuration(value)) else {
                throw RequestError(.cccdImproperlyConfigured, attribute.handle)
            }
        case .characteristicValue, .descriptor: break
        case .serviceDeclaration, .includeDeclaration, .characteristicDeclaration:
            throw RequestError(.writeNotPermitted, attribute.handle)
        }
    }

    /// The notification and indication bits of a CCCD value; the reserved bits are ignored (Vol 3 Part G
    /// §3.3.3.3).
    static func configuration(_ value: [UInt8]) -> GATT.ClientConfiguration {
        GATT.ClientConfiguration(rawValue: UInt16(value.first ?? 0) & 0x0003)
    }

    /// Performs a validated write: a CCCD changes this client's configuration (and the application hears of a
    /// change); any other value goes to the application, and replaces a stored value when accepted.
    mutating func apply<A: GATTServerApplication>(
        _ value: [UInt8], to attribute: Attribute, kind: WriteKind, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) {
        if case .clientConfiguration(let valueHandle, _) = attribute.role {
            let configuration = Self.configuration(value)
            let previous = clientConfiguration(valueHandle, for: connection)
            _ = state(connection)
            connections[connection]!.configurations[valueHandle] = configuration.isEmpty ? nil : configuration
            if configuration != previous {
                application.clientConfigurationChanged(configuration, access(attribute, connection))
            }
            return
        }
        if attribute.isClientSupportedFeatures { return try setClientFeatures(value, attribute, connection) }
        if let error = application.write(value, kind: kind, access(attribute, connection)) {
            throw RequestError(error, attribute.handle)
        }
        if case .stored = attribute.stored { database.setStoredValue(value, at: attribute.handle) }
    }

    /// The attribute at `handle` if this client may write it, else 0x01 or the permission error.
    func writableAttribute(_ handle: UInt16, _ connection: ConnectionID) throws(RequestError) -> Attribute {
        let attribute = try attribute(handle)
        if let error = attribute.permissions.check(.write, security(of: connection)) {
            throw RequestError(error, handle)
        }
        return attribute
    }

    /// Write Request (§3.4.5.1).
    mutating func write<A: GATTServerApplication>(
        _ request: ATT.WriteRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.WriteResponse {
        let attribute = try writableAttribute(request.handle, connection)
        try validate(request.value, for: attribute)
        try apply(request.value, to: attribute, kind: .request, connection, &application)
        return ATT.WriteResponse()
    }

    /// Write Command (§3.4.5.3): the same checks as a Write Request, but a failure only drops the value.
    mutating func writeCommand<A: GATTServerApplication>(
        _ command: ATT.WriteCommand, _ connection: ConnectionID, _ application: inout A
    ) {
        do throws(RequestError) {
            let attribute = try writableAttribute(command.handle, connection)
            try validate(command.value, for: attribute)
            try apply(command.value, to: attribute, kind: .command, connection, &application)
        } catch {
            return
        }
    }

    /// Prepare Write (§3.4.6.1): checks the handle and write permission now, queues the part, and echoes it.
    /// Offsets and lengths are checked at Execute Write, as the specification requires.
    mutating func prepareWrite(
        _ request: ATT.PrepareWriteRequest, _ connection: ConnectionID
    ) throws(RequestError) -> ATT.PrepareWriteResponse {
        _ = try writableAttribute(request.handle, connection)
        guard state(connection).prepareQueue.count < configuration.prepareQueueCapacity else {
            throw RequestError(.prepareQueueFull, request.handle)
        }
        connections[connection]!.prepareQueue.append(request)
        return ATT.PrepareWriteResponse(handle: request.handle, offset: request.offset, value: request.value)
    }

    /// Execute Write (§3.4.6.3). Cancel empties the queue. Write assembles each handle's value from its current
    /// value (empty for a dynamic one) and the parts in order — a part at offset n keeps the first n bytes and
    /// replaces the rest — then checks every assembled value (0x07 Invalid Offset when a part starts past the end,
    /// 0x0D, 0xFD) before writing any. The values are then written in the order their handles were first
    /// prepared; an application refusal stops there with its error. The queue is empty afterwards either way.
    mutating func executeWrite<A: GATTServerApplication>(
        _ request: ATT.ExecuteWriteRequest, _ connection: ConnectionID, _ application: inout A
    ) throws(RequestError) -> ATT.ExecuteWriteResponse {
        let queue = state(connection).prepareQueue
        connections[connection]!.prepareQueue = []
        guard request.flags == .write else { return ATT.ExecuteWriteResponse() }
        var order: [UInt16] = []
        var assembled: [UInt16: [UInt8]] = [:]
        for part in queue {
            let attribute = try attribute(part.handle)
            if assembled[part.handle] == nil {
                order.append(part.handle)
                assembled[part.handle] = try currentValue(attribute, connection)
            }
            let current = assembled[part.handle]!
            guard Int(part.offset) <= current.count else { throw RequestError(.invalidOffset, part.handle) }
            let value = current.prefix(Int(part.offset)) + part.value
            guard value.count <= ATT.maximumAttributeValueLength else {
                throw RequestError(.invalidAttributeValueLength, part.handle)
            }
            assembled[part.handle] = Array(value)
        }
        for handle in order { try validate(assembled[handle]!, for: try attribute(handle)) }
        for handle in order {
            try apply(assembled[handle]!, to: try attribute(handle), kind: .executeWrite, connection, &application)
        }
        return ATT.ExecuteWriteResponse()
    }

    /// The value queued parts are applied to: the stored value, the client's CCCD, or nothing for a dynamic value.
    private func currentValue(_ attribute: Attribute, _ connection: ConnectionID) throws(RequestError) -> [UInt8] {
        switch (attribute.role, attribute.stored) {
        case (.clientConfiguration(let valueHandle, _), _):
            let bits = clientConfiguration(valueHandle, for: connection).rawValue
            return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8)]
        case (_, .stored(let value)): return value
        case (_, .dynamic): return []
        }
    }
}

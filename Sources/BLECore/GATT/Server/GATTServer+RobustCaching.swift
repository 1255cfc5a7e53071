extension GATTServer {
    /// The value handle of the table's Service Changed characteristic, if it has one.
    var serviceChangedHandle: UInt16? {
        database.valueHandle(
            service: GATT.GenericAttribute.service, characteristic: GATT.GenericAttribute.serviceChanged)
    }

    /// What a client wrote to Client Supported Features on this connection (nothing until it writes).
    public func clientFeatures(of connection: ConnectionID) -> GATT.GenericAttribute.ClientFeatures {
        connections[connection]?.features ?? []
    }

    /// True unless the table changed while the client was connected and it has not caught up yet (Vol 3 Part G
    /// §2.5.2.1). Only a client that enabled robust caching is ever refused for being change-unaware.
    public func isChangeAware(_ connection: ConnectionID) -> Bool { connections[connection]?.isChangeAware ?? true }

    /// Replaces the attribute table (a firmware update, a service added or removed) and tells the clients, as
    /// robust caching requires (Vol 3 Part G §2.5.2.1 and §7.1):
    ///
    /// - every connected client becomes change-unaware; one that enabled robust caching then gets 0x12 Database
    ///   Out Of Sync for its requests and has its commands ignored until it catches up, which it does by
    ///   confirming the Service Changed indication, by reading the Database Hash (then with its next request), or
    ///   with the request after a 0x12;
    /// - clients subscribed to Service Changed get an indication of the whole range 0x0001–0xFFFF;
    /// - a subscription survives only where the new table has a characteristic of the same type at the same value
    ///   handle; prepared writes and queued indications of the old table are dropped.
    ///
    /// Service Changed must keep its handle across changes (put ``Service/genericAttribute()`` first).
    public mutating func replaceDatabase(_ new: Database) -> [Action] {
        let old = database
        database = new
        for id in connections.keys {
            connections[id]!.isChangeAware = false
            connections[id]!.awareAtNextRequest = false
            connections[id]!.prepareQueue = []
            connections[id]!.queuedIndications = []
            connections[id]!.configurations = connections[id]!.configurations.filter { handle, _ in
                guard let before = old.attribute(handle), let after = new.attribute(handle),
                    case .characteristicValue = after.role
                else { return false }
                return before.type == after.type
            }
        }
        guard let handle = serviceChangedHandle else { return [] }
        return indicate(handle, value: GATT.GenericAttribute.serviceChangedValue(0x0001...0xFFFF))
    }

    /// Robust caching's gate in front of every PDU from a change-unaware client that enabled it: commands are
    /// ignored, requests answered 0x12 — except a Read By Type of the Database Hash, which is served (the client
    /// becomes change-aware with its next request), the request after a 0x12, and confirmations. Nil: go on.
    mutating func robustCachingGate(_ pdu: ATT.PDU, isRequest: Bool, _ connection: ConnectionID) -> [Action]? {
        guard let state = connections[connection], !state.isChangeAware,
            state.features.contains(.robustCaching)
        else { return nil }
        if case .handleValueConfirmation = pdu { return nil }
        guard isRequest else { return [] }
        if case .readByTypeRequest(let request) = pdu, request.attributeType == GATT.GenericAttribute.databaseHash {
            connections[connection]!.awareAtNextRequest = true
            return nil
        }
        if state.awareAtNextRequest {
            connections[connection]!.isChangeAware = true
            connections[connection]!.awareAtNextRequest = false
            return nil
        }
        connections[connection]!.awareAtNextRequest = true
        return [errorResponse(pdu.opcode, RequestError(.databaseOutOfSync, 0), connection)]
    }

    /// The client confirmed Service Changed: it knows the table changed.
    mutating func serviceChangeConfirmed(_ connection: ConnectionID) {
        connections[connection]?.isChangeAware = true
        connections[connection]?.awareAtNextRequest = false
    }

    /// A write to Client Supported Features (§7.2): the defined bits are kept; clearing a bit set earlier fails
    /// with 0x13 Value Not Allowed.
    mutating func setClientFeatures(
        _ value: [UInt8], _ attribute: Attribute, _ connection: ConnectionID
    ) throws(RequestError) {
        let written = GATT.GenericAttribute.ClientFeatures(rawValue: value.first ?? 0)
        let current = clientFeatures(of: connection)
        guard written.isSuperset(of: current) else { throw RequestError(.valueNotAllowed, attribute.handle) }
        _ = state(connection)
        connections[connection]!.features = written.intersection(.defined)
    }
}

extension GATTServer.Attribute {
    /// The value of a Client Supported Features characteristic, which the server keeps per client itself.
    var isClientSupportedFeatures: Bool {
        guard type == GATT.GenericAttribute.clientSupportedFeatures, case .characteristicValue = role else {
            return false
        }
        return true
    }
}

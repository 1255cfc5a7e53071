extension GATTServer {
    /// Sends a Handle Value Notification (Vol 3 Part F §3.4.7.1) of `value`, truncated to ATT_MTU − 3, to every
    /// client subscribed to notifications of this characteristic — or only to `connection`, if it is subscribed.
    /// Precondition: `valueHandle` is the value handle of a characteristic with the notify property.
    public mutating func notify(_ valueHandle: UInt16, value: [UInt8], to connection: ConnectionID? = nil) -> [Action] {
        requireCharacteristicValue(valueHandle, supporting: .notifications)
        return targets(valueHandle, .notifications, connection).map { client in
            let mtu = Int(mtu(of: client))
            let pdu = ATT.HandleValueNotification(handle: valueHandle, value: Array(value.prefix(mtu - 3)))
            return .send(pdu.encoded, to: client)
        }
    }

    /// Sends a Handle Value Indication (Vol 3 Part F §3.4.7.2) of `value`, truncated to ATT_MTU − 3, to every client
    /// subscribed to indications of this characteristic — or only to `connection`. A client with an indication
    /// still unconfirmed gets this one queued, sent when it confirms (if it is still subscribed then).
    /// Precondition: `valueHandle` is the value handle of a characteristic with the indicate property.
    public mutating func indicate(_ valueHandle: UInt16, value: [UInt8], to connection: ConnectionID? = nil) -> [Action]
    {
        requireCharacteristicValue(valueHandle, supporting: .indications)
        var actions: [Action] = []
        for client in targets(valueHandle, .indications, connection) {
            let indication = ATT.HandleValueIndication(handle: valueHandle, value: value)
            if connections[client]!.outstandingIndication == nil {
                actions.append(send(indication, to: client))
            } else {
                connections[client]!.queuedIndications.append(indication)
            }
        }
        return actions
    }

    /// A Handle Value Confirmation (§3.4.7.3): releases the outstanding indication, tells the application, and sends
    /// the next queued indication the client is still subscribed to. A confirmation with no indication outstanding
    /// is a client error and is ignored.
    mutating func confirmIndication<A: GATTServerApplication>(
        _ connection: ConnectionID, _ application: inout A
    ) -> [Action] {
        guard let handle = connections[connection]?.outstandingIndication else { return [] }
        connections[connection]!.outstandingIndication = nil
        if handle == serviceChangedHandle { serviceChangeConfirmed(connection) }
        if let attribute = database.attribute(handle) { application.indicationConfirmed(access(attribute, connection)) }
        while connections[connection] != nil, !connections[connection]!.queuedIndications.isEmpty {
            let next = connections[connection]!.queuedIndications.removeFirst()
            if clientConfiguration(next.handle, for: connection).contains(.indications) {
                return [send(next, to: connection)]
            }
        }
        return []
    }

    /// Marks `indication` outstanding and returns the action sending it, truncated to the connection's MTU.
    private mutating func send(_ indication: ATT.HandleValueIndication, to connection: ConnectionID) -> Action {
        var truncated = indication
        truncated.value = Array(indication.value.prefix(Int(mtu(of: connection)) - 3))
        connections[connection]!.outstandingIndication = indication.handle
        return .send(truncated.encoded, to: connection)
    }

    private func targets(
        _ valueHandle: UInt16, _ kind: GATT.ClientConfiguration, _ connection: ConnectionID?
    ) -> [ConnectionID] {
        let subscribed = subscribers(valueHandle, for: kind)
        return connection.map { subscribed.contains($0) ? [$0] : [] } ?? subscribed
    }

    private func requireCharacteristicValue(_ handle: UInt16, supporting kind: GATT.ClientConfiguration) {
        guard let attribute = database.attribute(handle),
            case .characteristicValue(let properties, _) = attribute.role
        else { preconditionFailure("\(ATT.hex(handle)) is not a characteristic value handle") }
        let property: GATT.CharacteristicProperties = kind == .notifications ? .notify : .indicate
        precondition(properties.contains(property), "characteristic \(attribute.type) does not support \(kind)")
    }
}

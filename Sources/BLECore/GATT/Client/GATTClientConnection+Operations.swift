extension GATTClientConnection {
    public func exchangeMTU(preferred: UInt16) async throws(GATTError) -> UInt16 {
        guard case .mtu(let mtu) = try await perform(.exchangeMTU(preferred: preferred)) else { throw Self.mismatch }
        return mtu
    }

    public func discoverPrimaryServices(_ uuid: BluetoothUUID?) async throws(GATTError) -> [GATT.Service] {
        guard case .services(let services) = try await perform(.discoverPrimaryServices(uuid)) else {
            throw Self.mismatch
        }
        return services
    }

    public func discoverCharacteristics(of service: GATT.Service) async throws(GATTError) -> [GATT.Characteristic] {
        guard case .characteristics(let found) = try await perform(.discoverCharacteristics(service)) else {
            throw Self.mismatch
        }
        return found
    }

    public func discoverDescriptors(of characteristic: GATT.Characteristic) async throws(GATTError) -> [GATT.Descriptor]
    {
        guard case .descriptors(let found) = try await perform(.discoverDescriptors(characteristic)) else {
            throw Self.mismatch
        }
        return found
    }

    public func read(_ handle: UInt16) async throws(GATTError) -> [UInt8] {
        guard case .value(let value) = try await perform(.read(handle)) else { throw Self.mismatch }
        return value
    }

    /// Read Multiple (Vol 3 Part G §4.8.4): the values of two or more handles, concatenated; the caller knows their
    /// sizes. Cut at ATT_MTU − 1 bytes.
    public func readMultiple(_ handles: [UInt16]) async throws(GATTError) -> [UInt8] {
        guard case .value(let value) = try await perform(.readMultiple(handles)) else { throw Self.mismatch }
        return value
    }

    /// Read Multiple Variable (§4.8.5): one value per handle; the last may be cut at ATT_MTU − 1 bytes of response.
    public func readMultipleVariable(_ handles: [UInt16]) async throws(GATTError) -> [[UInt8]] {
        guard case .values(let values) = try await perform(.readMultipleVariable(handles)) else { throw Self.mismatch }
        return values
    }

    public func readByType(
        _ type: BluetoothUUID, in range: ClosedRange<UInt16>
    ) async throws(GATTError) -> [GATT.HandleValue] {
        guard case .handleValues(let found) = try await perform(.readByType(type, in: range)) else {
            throw Self.mismatch
        }
        return found
    }

    public func write(_ value: [UInt8], to handle: UInt16) async throws(GATTError) {
        _ = try await perform(.write(value, to: handle))
    }

    /// Reliable Writes (§4.9.5): all values are prepared and checked, then written together or not at all.
    public func reliableWrite(_ writes: [GATTClient.WriteItem]) async throws(GATTError) {
        _ = try await perform(.reliableWrite(writes))
    }

    /// Sends a Write Command at once (it takes no part in the one-request-at-a-time queue) and returns when the
    /// bearer accepted it. The value must fit ATT_MTU − 3 bytes.
    public func writeWithoutResponse(_ value: [UInt8], to handle: UInt16) async throws(GATTError) {
        let pdu = try state.withLock { state throws(GATTError) in try state.client.writeCommand(value, to: handle) }
        try await bearer.send(pdu)
    }

    // MARK: - Subscriptions

    /// Registers the stream, then writes the CCCD; values that arrive in between are kept. Every subscriber of a
    /// value handle gets every value; the stream finishes when the link goes down or on ``unsubscribe(from:cccd:)``.
    /// Dropping the stream unregisters it but leaves the CCCD as it is.
    public func subscribe(
        to characteristic: GATT.Characteristic, cccd: UInt16, indications: Bool
    ) async throws(GATTError) -> AsyncStream<GATT.ValueEvent> {
        try await subscribe(to: characteristic, cccd: cccd, indications: indications, acknowledged: true)
    }

    public func subscribeWithoutResponse(
        to characteristic: GATT.Characteristic, cccd: UInt16, indications: Bool
    ) async throws(GATTError) -> AsyncStream<GATT.ValueEvent> {
        try await subscribe(to: characteristic, cccd: cccd, indications: indications, acknowledged: false)
    }

    private func subscribe(
        to characteristic: GATT.Characteristic, cccd: UInt16, indications: Bool, acknowledged: Bool
    ) async throws(GATTError) -> AsyncStream<GATT.ValueEvent> {
        let property: GATT.CharacteristicProperties = indications ? .indicate : .notify
        guard characteristic.properties.contains(property) else {
            throw .unsupported(
                "\(characteristic) has no \(indications ? "indicate" : "notify") property (properties "
                    + "\(ATT.hex(characteristic.properties.rawValue)))")
        }
        let handle = characteristic.valueHandle
        let (stream, continuation) = AsyncStream.makeStream(of: GATT.ValueEvent.self, bufferingPolicy: .unbounded)
        let key = state.withLock { state in
            state.nextKey &+= 1
            return state.nextKey
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscriptions[handle]?.removeValue(forKey: key) }
        }
        let down = state.withLock { state -> HCIErrorCode? in
            if let reason = state.downReason { return reason }
            state.subscriptions[handle, default: [:]][key] = continuation
            return nil
        }
        if let down {
            continuation.finish()
            throw .disconnected(down)
        }
        let configuration: GATT.ClientConfiguration = indications ? .indications : .notifications
        do {
            if acknowledged {
                _ = try await perform(.configure(cccd: cccd, configuration))
            } else {
                let bits = configuration.rawValue
                try await writeWithoutResponse(
                    [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8)], to: cccd)
            }
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    /// Writes 0x0000 to the CCCD, then finishes every stream subscribed to the characteristic's value handle.
    public func unsubscribe(from characteristic: GATT.Characteristic, cccd: UInt16) async throws(GATTError) {
        _ = try await perform(.configure(cccd: cccd, []))
        let streams = state.withLock { state in
            state.subscriptions.removeValue(forKey: characteristic.valueHandle).map { Array($0.values) } ?? []
        }
        for stream in streams { stream.finish() }
    }

    /// A procedure completed with an outcome of another kind: a bug in the client, reported rather than trapped.
    private static var mismatch: GATTError {
        .invalidResponse("internal: the procedure produced an outcome of another kind")
    }
}

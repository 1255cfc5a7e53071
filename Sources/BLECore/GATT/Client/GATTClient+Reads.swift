extension GATTClient {
    // MARK: - Read and Read Long (Vol 3 Part G §4.8.1, §4.8.3)

    /// A Read Response or Read Blob Response arrived. A part that fills ATT_MTU − 1 bytes may be followed by more:
    /// ask for the rest with a Read Blob at the length so far, until a short part, Attribute Not Long, or the
    /// 512-byte maximum of an attribute value.
    mutating func readPart(_ handle: UInt16, _ value: [UInt8], _ pdu: ATT.PDU, _ context: ResponseContext) -> Step {
        let part: [UInt8]
        switch (context.request, pdu) {
        case (.readRequest, let .readResponse(response)): part = response.value
        case (.readBlobRequest, let .readBlobResponse(response)): part = response.value
        case (.readBlobRequest, let .errorResponse(error)) where error.error == .attributeNotLong:
            return .done(.value(value))
        case (_, let .errorResponse(error)): return context.failed(error)
        default: return context.unexpected(pdu)
        }
        let full = Int(mtu) - 1
        guard part.count <= full else {
            return context.invalid("\(part.count)-byte part exceeds ATT_MTU − 1 = \(full)")
        }
        let value = value + part
        guard value.count <= ATT.maximumAttributeValueLength else {
            return context.invalid(
                "value grew to \(value.count) bytes, beyond the \(ATT.maximumAttributeValueLength)-byte maximum")
        }
        guard part.count == full, value.count < ATT.maximumAttributeValueLength else { return .done(.value(value)) }
        let offset = UInt16(value.count)
        return .send(
            ATT.ReadBlobRequest(handle: handle, offset: offset), handle: handle,
            then: .read(handle: handle, value: value))
    }

    // MARK: - Read Multiple (§4.8.4, §4.8.5)

    static func beginReadMultiple(_ handles: [UInt16], variable: Bool) -> Step {
        guard handles.count >= 2 else {
            return .fail(.unsupported("Read Multiple needs at least two handles, got \(handles.count); use read"))
        }
        let progress = Progress.readMultiple(handles: handles, variable: variable)
        return variable
            ? .send(ATT.ReadMultipleVariableRequest(handles: handles), handle: handles[0], then: progress)
            : .send(ATT.ReadMultipleRequest(handles: handles), handle: handles[0], then: progress)
    }

    func readMultiple(_ handles: [UInt16], _ variable: Bool, _ pdu: ATT.PDU, _ context: ResponseContext) -> Step {
        switch (variable, pdu) {
        case (false, let .readMultipleResponse(response)):
            guard response.values.count <= Int(mtu) - 1 else {
                return context.invalid("\(response.values.count) bytes of values exceed ATT_MTU − 1 = \(Int(mtu) - 1)")
            }
            return .done(.value(response.values))
        case (true, let .readMultipleVariableResponse(response)):
            guard response.values.count <= handles.count else {
                return context.invalid("\(response.values.count) values for \(handles.count) handles")
            }
            return .done(.values(response.values))
        case (_, let .errorResponse(error)):
            return context.failed(error)
        default:
            return context.unexpected(pdu)
        }
    }

    // MARK: - Read Using Characteristic UUID (§4.8.2)

    static func beginReadByType(_ type: BluetoothUUID, _ range: ClosedRange<UInt16>) -> Step {
        guard range.lowerBound != 0 else { return .fail(.unsupported("a handle range starts at 0x0001, not 0x0000")) }
        let request = ATT.ReadByTypeRequest(
            startingHandle: range.lowerBound, endingHandle: range.upperBound, attributeType: type)
        return .send(request, handle: range.lowerBound, then: .readByType(range: range))
    }

    func readByType(_ range: ClosedRange<UInt16>, _ pdu: ATT.PDU, _ context: ResponseContext) -> Step {
        switch pdu {
        case .readByTypeResponse(let response):
            var previous: UInt16?
            for entry in response.entries {
                guard range.contains(entry.handle), previous.map({ entry.handle > $0 }) ?? true else {
                    return context.invalid("handle \(ATT.hex(entry.handle)) is outside the range or out of order")
                }
                previous = entry.handle
            }
            return .done(.handleValues(response.entries.map { GATT.HandleValue(handle: $0.handle, value: $0.value) }))
        case .errorResponse(let error) where error.error == .attributeNotFound:
            return .done(.handleValues([]))
        case .errorResponse(let error):
            return context.failed(error)
        default:
            return context.unexpected(pdu)
        }
    }
}

extension GATTClient {
    // MARK: - Primary services (Vol 3 Part G §4.4.1, §4.4.2)

    /// Read By Group Type «Primary Service» from `start` to 0xFFFF, or Find By Type Value with the service UUID.
    static func requestServices(_ uuid: BluetoothUUID?, from start: UInt16, found: [GATT.Service]) -> Step {
        let progress = Progress.primaryServices(uuid: uuid, start: start, found: found)
        guard let uuid else {
            let request = ATT.ReadByGroupTypeRequest(
                startingHandle: start, endingHandle: 0xFFFF, groupType: GATT.AttributeType.primaryService)
            return .send(request, handle: start, then: progress)
        }
        let request = ATT.FindByTypeValueRequest(
            startingHandle: start, endingHandle: 0xFFFF, attributeType: GATT.AttributeType.primaryService,
            value: uuid.attBytes)
        return .send(request, handle: start, then: progress)
    }

    static func discoveredServices(
        _ uuid: BluetoothUUID?, _ start: UInt16, _ found: [GATT.Service], _ pdu: ATT.PDU, _ context: ResponseContext
    ) -> Step {
        var groups: [(handle: UInt16, end: UInt16, uuid: BluetoothUUID)] = []
        switch (uuid, pdu) {
        case (nil, let .readByGroupTypeResponse(response)):
            for entry in response.entries {
                guard entry.value.count == 2 || entry.value.count == 16,
                    let service = try? BluetoothUUID(littleEndian: entry.value)
                else {
                    return context.invalid(
                        "service at \(ATT.hex(entry.handle)) has a \(entry.value.count)-byte UUID; expected 2 or 16")
                }
                groups.append((entry.handle, entry.endGroupHandle, service))
            }
        case (let uuid?, let .findByTypeValueResponse(response)):
            groups = response.handles.map { ($0.foundHandle, $0.groupEndHandle, uuid) }
        case (_, let .errorResponse(error)) where error.error == .attributeNotFound:
            return .done(.services(found))
        case (_, let .errorResponse(error)):
            return context.failed(error)
        default:
            return context.unexpected(pdu)
        }
        var found = found
        for group in groups {
            if let previous = found.last,
                previous.handles.upperBound == 0xFFFF || group.handle <= previous.handles.upperBound
            {
                return context.invalid(
                    "service at \(ATT.hex(group.handle)) does not follow the previous one, which ends at "
                        + "\(ATT.hex(previous.handles.upperBound))")
            }
            guard group.handle >= start else {
                return context.invalid(
                    "service at \(ATT.hex(group.handle)) lies before the requested start \(ATT.hex(start))")
            }
            guard group.end >= group.handle else {
                return context.invalid(
                    "service at \(ATT.hex(group.handle)) ends at \(ATT.hex(group.end)), before it starts")
            }
            found.append(GATT.Service(uuid: group.uuid, handles: group.handle...group.end))
        }
        let last = found[found.count - 1].handles.upperBound
        return last == 0xFFFF ? .done(.services(found)) : requestServices(uuid, from: last + 1, found: found)
    }

    // MARK: - Characteristics (§4.6.1)

    /// Read By Type «Characteristic» from `start` to the end of the service.
    static func requestCharacteristics(
        of service: GATT.Service, from start: UInt16, found: [GATT.Characteristic]
    ) -> Step {
        let request = ATT.ReadByTypeRequest(
            startingHandle: start, endingHandle: service.handles.upperBound,
            attributeType: GATT.AttributeType.characteristic)
        return .send(request, handle: start, then: .characteristics(service: service, start: start, found: found))
    }

    static func discoveredCharacteristics(
        _ service: GATT.Service, _ start: UInt16, _ found: [GATT.Characteristic], _ pdu: ATT.PDU,
        _ context: ResponseContext
    ) -> Step {
        let entries: [ATT.ReadByTypeResponse.Entry]
        switch pdu {
        case .readByTypeResponse(let response): entries = response.entries
        case .errorResponse(let error) where error.error == .attributeNotFound: return .done(.characteristics(found))
        case .errorResponse(let error): return context.failed(error)
        default: return context.unexpected(pdu)
        }
        let end = service.handles.upperBound
        var found = found
        for entry in entries {
            // Messages are built only on failure: this runs for every characteristic of every discovery.
            var at: String { ATT.hex(entry.handle) }
            guard entry.value.count == 5 || entry.value.count == 19 else {
                return context.invalid(
                    "characteristic declaration at \(at) holds \(entry.value.count) byte(s); expected 5 or 19")
            }
            // The next declaration must come after the previous characteristic's value, and inside the range asked.
            let floor = found.last.map { Int($0.valueHandle) + 1 } ?? Int(start)
            guard Int(entry.handle) >= floor, entry.handle <= end else {
                let range = "\(ATT.hex(UInt16(clamping: floor)))...\(ATT.hex(end))"
                return context.invalid("characteristic declaration at \(at) lies outside \(range)")
            }
            let valueHandle = UInt16(entry.value[1]) | UInt16(entry.value[2]) << 8
            guard valueHandle > entry.handle, valueHandle <= end else {
                return context.invalid(
                    "characteristic declaration at \(at) names value handle \(ATT.hex(valueHandle)), outside "
                        + "\(ATT.hex(entry.handle))+1...\(ATT.hex(end))")
            }
            guard let uuid = try? BluetoothUUID(littleEndian: entry.value[3...]) else {
                return context.invalid("characteristic declaration at \(at) has an unreadable UUID")
            }
            if !found.isEmpty { found[found.count - 1].endHandle = entry.handle - 1 }
            found.append(
                GATT.Characteristic(
                    uuid: uuid, properties: GATT.CharacteristicProperties(rawValue: entry.value[0]),
                    declarationHandle: entry.handle, valueHandle: valueHandle, endHandle: end))
        }
        // Nothing can follow a value at the service's last handle: stop without the round trip that would only
        // fetch Attribute Not Found.
        let last = found[found.count - 1].valueHandle
        return last == end
            ? .done(.characteristics(found)) : requestCharacteristics(of: service, from: last + 1, found: found)
    }

    // MARK: - Descriptors (§4.7.1)

    /// Find Information from `start` to the end of the characteristic.
    static func requestDescriptors(in range: ClosedRange<UInt16>, from start: UInt16, found: [GATT.Descriptor]) -> Step
    {
        let request = ATT.FindInformationRequest(startingHandle: start, endingHandle: range.upperBound)
        return .send(request, handle: start, then: .descriptors(range: range, start: start, found: found))
    }

    static func discoveredDescriptors(
        _ range: ClosedRange<UInt16>, _ start: UInt16, _ found: [GATT.Descriptor], _ pdu: ATT.PDU,
        _ context: ResponseContext
    ) -> Step {
        let entries: [ATT.FindInformationResponse.Entry]
        switch pdu {
        case .findInformationResponse(let response): entries = response.entries
        case .errorResponse(let error) where error.error == .attributeNotFound: return .done(.descriptors(found))
        case .errorResponse(let error): return context.failed(error)
        default: return context.unexpected(pdu)
        }
        var found = found
        for entry in entries {
            let floor = found.last.map { Int($0.handle) + 1 } ?? Int(start)
            guard Int(entry.handle) >= floor, entry.handle <= range.upperBound else {
                return context.invalid(
                    "descriptor at \(ATT.hex(entry.handle)) lies outside "
                        + "\(ATT.hex(UInt16(clamping: floor)))...\(ATT.hex(range.upperBound)); handles must increase")
            }
            found.append(GATT.Descriptor(uuid: entry.type, handle: entry.handle))
        }
        let last = found[found.count - 1].handle
        return last == range.upperBound
            ? .done(.descriptors(found)) : requestDescriptors(in: range, from: last + 1, found: found)
    }
}

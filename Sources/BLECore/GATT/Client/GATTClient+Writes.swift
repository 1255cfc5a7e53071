extension GATTClient {
    // MARK: - Write (Vol 3 Part G §4.9.3)

    /// A Write Request when the value fits ATT_MTU − 3 bytes, else a long write (§4.9.4).
    func beginWrite(_ value: [UInt8], to handle: UInt16) -> Step {
        guard value.count <= Int(mtu) - 3 else { return beginReliableWrite([WriteItem(handle: handle, value: value)]) }
        return .send(ATT.WriteRequest(handle: handle, value: value), handle: handle, then: .write(handle: handle))
    }

    static func wrote(_ pdu: ATT.PDU, _ context: ResponseContext) -> Step {
        switch pdu {
        case .writeResponse: .done(.written)
        case .errorResponse(let error): context.failed(error)
        default: context.unexpected(pdu)
        }
    }

    // MARK: - Long and reliable writes (§4.9.4, §4.9.5)

    /// Splits every value into Prepare Write Requests of at most ATT_MTU − 5 bytes and sends the first.
    func beginReliableWrite(_ items: [WriteItem]) -> Step {
        if let long = items.first(where: { $0.value.count > ATT.maximumAttributeValueLength }) {
            return .fail(
                .unsupported(
                    "a \(long.value.count)-byte value for handle \(ATT.hex(long.handle)) exceeds the "
                        + "\(ATT.maximumAttributeValueLength)-byte maximum of an attribute"))
        }
        let chunk = Int(mtu) - 5
        var parts: [ATT.PrepareWriteRequest] = []
        for item in items {
            for offset in stride(from: 0, to: max(item.value.count, 1), by: chunk) {
                let part = Array(item.value[offset..<min(offset + chunk, item.value.count)])
                parts.append(ATT.PrepareWriteRequest(handle: item.handle, offset: UInt16(offset), value: part))
            }
        }
        guard let first = parts.first else { return .done(.written) }
        return .send(first, handle: first.handle, then: .queuedWrite(parts: parts, next: 0))
    }

    /// A Prepare Write Response must echo the part exactly; then the next part, or the Execute Write.
    static func prepared(
        _ parts: [ATT.PrepareWriteRequest], _ next: Int, _ pdu: ATT.PDU, _ context: ResponseContext
    ) -> Step {
        let sent = parts[next]
        switch pdu {
        case .prepareWriteResponse(let echo):
            guard echo.handle == sent.handle, echo.offset == sent.offset, echo.value == sent.value else {
                let differ =
                    echo.value.count == sent.value.count && echo.value != sent.value ? " (the bytes differ)" : ""
                return cancelPreparedWrites(
                    context.invalidError(
                        "Prepare Write Response echoed handle \(ATT.hex(echo.handle)) offset \(echo.offset) with "
                            + "\(echo.value.count) byte(s), but the request was for handle \(ATT.hex(sent.handle)) "
                            + "offset \(sent.offset) with \(sent.value.count) byte(s)\(differ)"))
            }
            guard next + 1 < parts.count else {
                return .send(ATT.ExecuteWriteRequest(flags: .write), handle: parts[0].handle, then: .executingWrite)
            }
            let part = parts[next + 1]
            return .send(part, handle: part.handle, then: .queuedWrite(parts: parts, next: next + 1))
        case .errorResponse(let error) where next == 0:
            return context.failed(error)
        case .errorResponse(let error):
            return cancelPreparedWrites(.att(error.error, request: error.requestOpcode, handle: error.handle))
        default:
            return cancelPreparedWrites(context.invalidError("got \(pdu.opcode) (\(ATT.hex(pdu.opcode.rawValue)))"))
        }
    }

    static func executed(_ pdu: ATT.PDU, _ context: ResponseContext) -> Step {
        switch pdu {
        case .executeWriteResponse: .done(.written)
        case .errorResponse(let error): context.failed(error)
        default: context.unexpected(pdu)
        }
    }

    /// An Execute Write that discards what the server holds; the procedure then fails with `failure`.
    static func cancelPreparedWrites(_ failure: GATTError) -> Step {
        .send(ATT.ExecuteWriteRequest(flags: .cancel), handle: 0x0000, then: .cancellingQueuedWrite(failure: failure))
    }
}

extension GATTClient.Progress {
    /// True while the server may hold prepared writes of this procedure.
    var mayHoldPreparedWrites: Bool {
        if case .queuedWrite = self { return true }
        return false
    }
}

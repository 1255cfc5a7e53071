import BLECore
import FuzzSupport

/// HCI packets and events (Core 5.4 Vol 4 Part A §2, Part E §5.4, §7.7) and H4 framing.
///
/// The whole input is one H4 packet and, separately, one event packet without its indicator: each throws a
/// `DecodingError` inside the input or re-encodes to exactly the input. A decoded event (`HCI.Event`) re-encodes to a
/// packet that decodes to the same event. The same input fed to `H4Parser` at once and in fuzzer-chosen chunks gives
/// the same packets, which re-encode to the start of the input, and the same error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCI(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    checkH4Packet(bytes)
    do {
        let packet = try HCI.EventPacket(decoding: bytes)
        invariant(packet.encoded == bytes, "\(hex(bytes)) decoded to \(packet), which encodes differently")
        checkEvent(packet)
    } catch {
        checkDecodingError(error, inputCount: bytes.count)
    }
    checkParser(bytes)
    return 0
}

private func checkH4Packet(_ bytes: [UInt8]) {
    let packet: HCI.H4Packet
    do {
        packet = try HCI.H4Packet(decoding: bytes)
    } catch {
        checkDecodingError(error, inputCount: bytes.count)
        return
    }
    invariant(packet.encoded == bytes, "\(hex(bytes)) decoded to \(packet), which encodes to \(hex(packet.encoded))")
    switch packet.type {
    case .event:
        do {
            checkEvent(try packet.eventPacket())
        } catch {
            invariant(false, "\(packet) framed as an event but does not decode as one: \(error)")
        }
    case .aclData:
        do {
            let acl = try packet.aclDataPacket()
            invariant(acl.encoded == packet.body, "\(packet) decoded to \(acl), which encodes differently")
        } catch {
            invariant(false, "\(packet) framed as ACL data but does not decode as it: \(error)")
        }
    case .command:
        do {
            let command = try HCI.CommandPacket(decoding: packet.body)
            invariant(command.encoded == packet.body, "\(packet) decoded to \(command), which encodes differently")
        } catch {
            invariant(false, "\(packet) framed as a command but does not decode as one: \(error)")
        }
    default:
        break
    }
}

/// Decodes the event; a decoded event's packet decodes to an event with that same packet.
private func checkEvent(_ packet: HCI.EventPacket) {
    let event: HCI.Event
    do {
        event = try HCI.Event(decoding: packet)
    } catch {
        checkDecodingError(error, inputCount: packet.parameters.count)
        return
    }
    let again = event.packet
    do {
        let redecoded = try HCI.Event(decoding: again)
        invariant(redecoded.packet == again, "\(packet) → \(again) → \(redecoded.packet)")
    } catch {
        invariant(false, "\(packet) decoded to \(event), whose packet \(again) does not decode: \(error)")
    }
}

/// `H4Parser` fed everything at once and fed in chunks agree, and the packets are the input's start.
private func checkParser(_ bytes: [UInt8]) {
    var whole = HCI.H4Parser()
    var wholePackets: [HCI.H4Packet] = []
    var wholeError: DecodingError?
    do { try whole.feed(bytes, into: &wholePackets) } catch { wholeError = error }

    var pieces = HCI.H4Parser()
    var piecePackets: [HCI.H4Packet] = []
    var pieceError: DecodingError?
    for chunk in chunks(of: bytes, sizes: bytes.reversed()) {
        do { try pieces.feed(chunk, into: &piecePackets) } catch {
            pieceError = error
            break
        }
    }
    invariant(wholePackets == piecePackets, "\(hex(bytes)): at once \(wholePackets), in chunks \(piecePackets)")
    invariant(wholeError == pieceError, "\(hex(bytes)): at once \(String(describing: wholeError)), in chunks "
        + "\(String(describing: pieceError))")
    let framed = wholePackets.flatMap(\.encoded)
    invariant(Array(bytes.prefix(framed.count)) == framed, "\(hex(bytes)) framed as \(wholePackets)")
    if let wholeError {
        checkDecodingError(wholeError, inputCount: bytes.count)
        invariant(wholeError.offset == framed.count, "\(wholeError) after \(framed.count) framed bytes")
    } else {
        invariant(framed.count + whole.bufferedCount == bytes.count, "\(hex(bytes)): bytes lost in framing")
    }
}

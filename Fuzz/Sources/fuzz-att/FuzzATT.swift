import BLECore
import FuzzSupport

/// The ATT PDU decoder (`ATT.PDU(decoding:)`, Core 5.4 Vol 3 Part F §3.4): any bytes either throw a
/// `DecodingError` that points inside the input, or decode to a PDU that encodes back to exactly those bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let pdu: ATT.PDU
    do {
        pdu = try ATT.PDU(decoding: bytes)
    } catch {
        checkDecodingError(error, inputCount: bytes.count)
        return 0
    }
    invariant(pdu.encoded == bytes, "\(hex(bytes)) decoded to \(pdu), which encodes to \(hex(pdu.encoded))")
    return 0
}

import BLECore
import DeviceProfiles
import FuzzSupport

/// The esp-point OTA codec (docs/board-contract.md, esp-point "OTA"): the same bytes as an OTA Control request, an
/// OTA Control notification and an OTA Data frame. Each decoder throws a typed error (a `DecodingError` inside the
/// input; for a frame, a `FrameError`) or gives a value that encodes back to exactly the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOTA(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    do {
        let request = try EspPoint.OTA.Request(decoding: bytes)
        invariant(request.encoded == bytes, "\(hex(bytes)) decoded to \(request), which encodes differently")
    } catch {
        checkDecodingError(error, inputCount: bytes.count)
    }
    do {
        let notification = try EspPoint.OTA.Notification(decoding: bytes)
        invariant(
            notification.encoded == bytes, "\(hex(bytes)) decoded to \(notification), which encodes differently")
    } catch {
        checkDecodingError(error, inputCount: bytes.count)
    }
    do {
        let frame = try EspPoint.OTA.Frame(decoding: bytes)
        invariant(frame.encoded == bytes, "\(hex(bytes)) decoded to \(frame), which encodes differently")
        invariant(
            frame.payload.count == bytes.count - EspPoint.OTA.frameOverhead,
            "\(hex(bytes)) decoded to a payload of \(frame.payload.count) bytes")
    } catch {
        switch error {
        case let .malformed(decoding):
            checkDecodingError(decoding, inputCount: bytes.count)
            invariant(bytes.count < EspPoint.OTA.frameOverhead, "\(hex(bytes)) is long enough, yet \(decoding)")
        case let .crcMismatch(expected, received):
            invariant(expected != received, "\(hex(bytes)): a CRC mismatch between equal CRCs")
            invariant(
                CRC32.checksum(bytes.dropLast(4)) == expected, "\(hex(bytes)): \(error) does not name the CRC computed")
        }
        invariant(!error.description.isEmpty, "an empty description for \(error)")
    }
    return 0
}

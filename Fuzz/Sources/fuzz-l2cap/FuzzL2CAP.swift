import BLECore
import FuzzSupport

/// L2CAP basic frames and reassembly (Core 5.4 Vol 3 Part A §3.1, §7.2).
///
/// The whole input is one B-frame: it throws a `DecodingError` inside the input or re-encodes to exactly the input.
/// The same input is also a stream of fragments for the reassembler: each fragment is a header byte (bit 7 set for a
/// start fragment, bits 0-5 its length) and that many bytes. A fragment that breaks the rules throws a
/// `ReassemblyError`; a frame that comes out must be one a fresh reassembler rebuilds from its own fragments.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzL2CAP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    do {
        let frame = try L2CAP.BasicFrame(decoding: bytes)
        invariant(frame.encoded == bytes, "\(hex(bytes)) decoded to \(frame), which encodes to \(hex(frame.encoded))")
    } catch {
        checkDecodingError(error, inputCount: bytes.count)
    }

    var reassembler = L2CAP.Reassembler()
    // A description is a function of the error's value: each distinct error is described once per input. A stream
    // of short fragments throws the same few errors thousands of times, and describing each was most of the cost.
    var described: Set<L2CAP.ReassemblyError> = []
    var index = 0
    while index < bytes.count {
        let header = bytes[index]
        let end = min(bytes.count, index + 1 + Int(header & 0x3F))
        let fragment = L2CAP.Fragment(header & 0x80 != 0 ? .start : .continuation, Array(bytes[(index + 1)..<end]))
        index = end
        do {
            guard let frame = try reassembler.push(fragment) else { continue }
            invariant(!reassembler.hasPartialFrame, "the reassembler holds a partial frame after completing \(frame)")
            checkRebuilds(frame)
        } catch {
            if described.insert(error).inserted {
                invariant(!error.description.isEmpty, "an empty description for \(error)")
            }
            invariant(!reassembler.hasPartialFrame, "\(error) left a partial frame behind")
        }
    }
    return 0
}

/// A completed frame cut into fragments of 1, 2, 5, 27 (an LE controller's ACL buffer) and 251 bytes comes back whole.
private func checkRebuilds(_ frame: L2CAP.BasicFrame) {
    for size in [1, 2, 5, 27, 251] {
        var fresh = L2CAP.Reassembler()
        var rebuilt: [L2CAP.BasicFrame] = []
        for fragment in frame.fragments(maximumSize: size) {
            do {
                if let done = try fresh.push(fragment) { rebuilt.append(done) }
            } catch {
                invariant(false, "\(frame) in \(size)-byte fragments: \(error)")
            }
        }
        invariant(rebuilt == [frame], "\(frame) in \(size)-byte fragments came back as \(rebuilt)")
    }
}

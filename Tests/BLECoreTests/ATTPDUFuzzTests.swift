import Testing

@testable import BLECore

@Suite("ATT PDU fuzzing")
struct ATTPDUFuzzTests {
    static let knownOpcodes: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12,
        0x13, 0x16, 0x17, 0x18, 0x19, 0x1B, 0x1D, 0x1E, 0x20, 0x21, 0x23, 0x52, 0xD2,
    ]

    /// Decodes `bytes`; when that succeeds, the PDU must re-encode to exactly `bytes`. Returns whether it decoded.
    @discardableResult
    static func checkDecodeOrThrow(_ bytes: [UInt8]) -> Bool {
        guard let pdu = try? ATT.PDU(decoding: bytes) else { return false }
        #expect(pdu.encoded == bytes, "\(bytes.hexString) decoded to \(pdu)")
        return true
    }

    @Test("random byte strings decode and re-encode exactly, or throw")
    func randomInputsNeverTrap() {
        var rng = SplitMix64(seed: 0xA77_F022)
        var decoded = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...48, using: &rng)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !bytes.isEmpty, Bool.random(using: &rng) {
                bytes[0] = Self.knownOpcodes.randomElement(using: &rng)!
            }
            if Self.checkDecodeOrThrow(bytes) { decoded += 1 }
        }
        // Not an assertion about the decoder: proof that the generator reaches the decoders' success paths.
        #expect(decoded > 1_000)
    }

    @Test("every prefix and every single-byte mutation of the vectors decodes and re-encodes exactly, or throws")
    func truncatedAndMutatedVectorsNeverTrap() throws {
        var rng = SplitMix64(seed: 0x5EED)
        for (hex, _) in attVectors {
            let bytes = try #require([UInt8](hex: hex))
            for count in 0...bytes.count { Self.checkDecodeOrThrow(Array(bytes.prefix(count))) }
            for _ in 0..<200 {
                var mutated = bytes
                let index = Int.random(in: 0..<mutated.count, using: &rng)
                mutated[index] = UInt8.random(in: 0...255, using: &rng)
                if Bool.random(using: &rng) { mutated.append(UInt8.random(in: 0...255, using: &rng)) }
                Self.checkDecodeOrThrow(mutated)
            }
        }
    }

    @Test("list PDUs with random lengths decode and re-encode exactly, or throw")
    func randomListLengthsNeverTrap() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            let opcode: UInt8 = [0x05, 0x07, 0x09, 0x0E, 0x11, 0x20, 0x21, 0x23].randomElement(using: &rng)!
            let lengthByte = UInt8.random(in: 0...8, using: &rng)
            let rest = (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...3, using: &rng) }
            Self.checkDecodeOrThrow([opcode, lengthByte] + rest)
        }
    }
}

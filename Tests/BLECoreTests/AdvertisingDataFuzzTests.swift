import Testing

@testable import BLECore

/// Random input never traps the decoder; whatever decodes re-encodes to the same significant bytes.
@Suite("AdvertisingData fuzz")
struct AdvertisingDataFuzzTests {
    static let interestingTypes: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x16, 0x19, 0x20, 0x21, 0xFF, 0x1A, 0x3D,
    ]

    /// Mostly well-framed structures of the typed AD types with random (often wrong) sizes and contents.
    static func structuredInput(_ random: inout SplitMix64) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            let dataLength = Int.random(in: 0...18, using: &random)
            var length = dataLength + 1
            if Int.random(in: 0..<8, using: &random) == 0 { length += Int.random(in: -2...2, using: &random) }
            bytes.append(UInt8(clamping: max(0, length)))
            bytes.append(interestingTypes.randomElement(using: &random)!)
            for _ in 0..<dataLength {
                // Mostly ASCII so that names often decode; sometimes any byte.
                bytes.append(
                    Bool.random(using: &random)
                        ? UInt8.random(in: 0x20...0x7E, using: &random) : UInt8.random(in: 0...255, using: &random))
            }
        }
        if Int.random(in: 0..<4, using: &random) == 0 {
            bytes += [UInt8](repeating: 0, count: Int.random(in: 1...4, using: &random))
        }
        return bytes
    }

    static func randomInput(_ random: inout SplitMix64) -> [UInt8] {
        (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomBytesDecodeOrThrowAndDecodedDataReencodesIdentically(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var decodedCount = 0
        for round in 0..<3_000 {
            let bytes = round.isMultiple(of: 2) ? Self.structuredInput(&random) : Self.randomInput(&random)
            let data: AdvertisingData
            do {
                data = try AdvertisingData(decoding: bytes)
            } catch {
                continue
            }
            decodedCount += 1
            let encoded = try data.encoded(maximumLength: .max)
            #expect(Array(bytes.prefix(encoded.count)) == encoded, "seed \(seed) round \(round): \(bytes.hexString)")
            #expect(bytes.dropFirst(encoded.count).allSatisfy { $0 == 0 }, "only zero padding may be dropped")
            #expect(try AdvertisingData(decoding: encoded) == data)
        }
        #expect(decodedCount > 300, "the generator should produce plenty of decodable input")
    }

    @Test func everyTruncationOfValidDataThrowsOrDecodesAPrefix() throws {
        let bytes = [UInt8](
            hex: "02 01 06 11 07 20 9b 7f 3e 1c 5a 2b 9d 0e 4f 3a 7c 00 01 b1 e5 08 ff ff ff 01 04 02 00 05")!
        for cut in 0..<bytes.count {
            let prefix = Array(bytes.prefix(cut))
            if let data = try? AdvertisingData(decoding: prefix) {
                #expect(try data.encoded() == prefix, "cut at \(cut)")
            }
        }
    }
}

import Testing

@testable import BLECore

/// AES-128 and AES-CMAC against vectors nobody here wrote: FIPS-197 Appendix C.1 and B, RFC 4493 §4, and the
/// Database Hash example of Core Vol 3 Part G Appendix B (as BlueKitchen's BTstack checks it in
/// `tool/db_hash_test.py`: message and expected tag).
@Suite("AES-128 and AES-CMAC vectors")
struct AESCMACVectorTests {
    @Test(
        "FIPS-197 AES-128 vectors",
        arguments: [
            // Appendix C.1.
            (
                "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
                "69c4e0d86a7b0430d8cdb78070b4c55a"
            ),
            // Appendix B (the cipher example).
            (
                "2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734",
                "3925841d02dc09fbdc118597196a0b32"
            ),
        ])
    func fips197(key: String, plaintext: String, ciphertext: String) throws {
        let cipher = AES128(key: try #require([UInt8](hex: key)))
        #expect(cipher.encrypt(try #require([UInt8](hex: plaintext))).hexString == ciphertext)
    }

    static let rfcKey = "2b7e151628aed2a6abf7158809cf4f3c"
    static let rfcMessage =
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"

    @Test("RFC 4493 §4 subkeys K1 and K2")
    func subkeys() throws {
        let (k1, k2) = AESCMAC.subkeys(AES128(key: try #require([UInt8](hex: Self.rfcKey))))
        #expect(k1.hexString == "fbeed618357133667c85e08f7236a8de")
        #expect(k2.hexString == "f7ddac306ae266ccf90bc11ee46d513b")
    }

    @Test(
        "RFC 4493 §4 examples 1–4: empty, one block, 40 bytes, four blocks",
        arguments: [
            (0, "bb1d6929e95937287fa37d129b756746"),
            (16, "070a16b46b4d4144f79bdd9dd04a287c"),
            (40, "dfa66747de9ae63030ca32611497c827"),
            (64, "51f0bebf7e3b9d92fc49741779363cfe"),
        ])
    func rfc4493(length: Int, tag: String) throws {
        let message = Array(try #require([UInt8](hex: Self.rfcMessage)).prefix(length))
        #expect(AESCMAC.tag(key: try #require([UInt8](hex: Self.rfcKey)), message: message).hexString == tag)
    }

    /// Core Vol 3 Part G Appendix B: the example database's hash message and its hash.
    static let specHashMessage =
        "010000280018020003280a0300002a04000328020500012a06000028011807000328200800052a090002290a0003280a0b00292b"
        + "0c000328020d002a2b0e00002808180f000228140016000f1810000328a21100182a12000229130000290000140001280f1815"
        + "000328021600192a"
    static let specHash = "f1ca2d48ecf58bac8a8830bbb9fba990"

    @Test("the Core specification's Database Hash example, as a bare AES-CMAC")
    func specificationExampleTag() throws {
        let message = try #require([UInt8](hex: Self.specHashMessage))
        #expect(AESCMAC.tag(key: [UInt8](repeating: 0, count: 16), message: message).hexString == Self.specHash)
    }
}

import Testing

@testable import BLECore

@Suite("DeviceAddress")
struct IdentifiersDeviceAddressTests {
    @Test func printsMostSignificantByteFirst() {
        let address = DeviceAddress(0x240A_C412_1A2B)
        #expect(address.description == "24:0A:C4:12:1A:2B")
        #expect(address.bytes == [0x24, 0x0A, 0xC4, 0x12, 0x1A, 0x2B])
        #expect(address.kind == .public)
    }

    @Test func randomAddressPrintsItsKind() {
        #expect(DeviceAddress(0xC000_0000_0001, kind: .random).description == "C0:00:00:00:00:01 (random)")
    }

    @Test func travelsLeastSignificantByteFirst() throws {
        let address = DeviceAddress(0x240A_C412_1A2B)
        #expect(address.littleEndianBytes == [0x2B, 0x1A, 0x12, 0xC4, 0x0A, 0x24])
        #expect(try DeviceAddress(littleEndian: [0x2B, 0x1A, 0x12, 0xC4, 0x0A, 0x24]) == address)
        #expect(try DeviceAddress(littleEndian: address.littleEndianBytes, kind: .random).kind == .random)
    }

    @Test(arguments: [0, 5, 7])
    func rejectsWireBytesOfAnyOtherLength(count: Int) {
        #expect(throws: DecodingError.self) { try DeviceAddress(littleEndian: [UInt8](repeating: 0, count: count)) }
    }

    @Test(arguments: [
        ("24:0A:C4:12:1A:2B", DeviceAddress(0x240A_C412_1A2B)),
        ("24:0a:c4:12:1a:2b", DeviceAddress(0x240A_C412_1A2B)),
        ("24-0A-C4-12-1A-2B", DeviceAddress(0x240A_C412_1A2B)),
        ("24:0A:C4:12:1A:2B (public)", DeviceAddress(0x240A_C412_1A2B)),
        ("24:0A:C4:12:1A:2B/public", DeviceAddress(0x240A_C412_1A2B)),
        ("C0:00:00:00:00:01 (random)", DeviceAddress(0xC000_0000_0001, kind: .random)),
        ("C0:00:00:00:00:01/random", DeviceAddress(0xC000_0000_0001, kind: .random)),
        ("FF:FF:FF:FF:FF:FF", DeviceAddress(0xFFFF_FFFF_FFFF)),
    ])
    func parsesEveryAcceptedSpelling(text: String, expected: DeviceAddress) {
        #expect(DeviceAddress(text) == expected)
    }

    @Test(arguments: [
        "", "24:0A:C4:12:1A", "24:0A:C4:12:1A:2B:3C", "24:0A:C4:12:1A:2G", "24:0A:C4:12:1A:+B", "240AC4121A2B",
        "24:0A:C4-12:1A:2B", "4:0A:C4:12:1A:2B0", "24::C4:12:1A:2B", "24:0A:C4:12:1A:2B (randm)",
        "２４:0A:C4:12:1A:2B",
    ])
    func rejectsJunk(text: String) {
        #expect(DeviceAddress(text) == nil)
    }

    @Test(arguments: [DeviceAddress(0x240A_C412_1A2B), DeviceAddress(0xC000_0000_0001, kind: .random)])
    func descriptionParsesBack(address: DeviceAddress) {
        #expect(DeviceAddress(address.description) == address)
    }

    @Test(arguments: [
        (0xC123_4567_89AB as UInt64, DeviceAddress.RandomSubtype.staticDevice),
        (0x4123_4567_89AB, .resolvablePrivate),
        (0x0123_4567_89AB, .nonResolvablePrivate),
        (0x8123_4567_89AB, .reserved),
    ])
    func randomSubtypeComesFromTheTwoTopBits(value: UInt64, subtype: DeviceAddress.RandomSubtype) {
        #expect(DeviceAddress(value, kind: .random).randomSubtype == subtype)
        #expect(DeviceAddress(value, kind: .public).randomSubtype == nil)
    }

    @Test func publicAndRandomAddressesWithTheSameBitsDiffer() {
        #expect(DeviceAddress(0x0102_0304_0506) != DeviceAddress(0x0102_0304_0506, kind: .random))
        #expect(DeviceAddress(0x0102_0304_0506) < DeviceAddress(0x0102_0304_0506, kind: .random))
    }
}

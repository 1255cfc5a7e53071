import BLECore
import DeviceProfiles
import Reports
import Testing

@testable import Orchestrator

/// The checks a described board gets can fail: advertising that does not match the file, values that do not decode
/// or leave their range.
@Suite("Described boards' checks")
struct DescribedChecksTests {
    static let address = DeviceAddress(0xA09E_1A00_1A2B)

    static let profile = DataProfile(
        name: "sensor",
        advertising: .init(
            name: DataProfile.NamePattern("HRS-{addr4}"), serviceUUIDs: [BluetoothUUID(0x180D)],
            manufacturerID: 0x0059, flags: 0x06),
        services: [],
        periodic: .init(
            characteristic: BluetoothUUID(0x2A6E), name: "Temperature", rateHz: 1,
            decoder: .number(.init(kind: .signed, width: 2, scale: 0.01, unit: "°C")), range: -10...40))

    @Test("advertising that matches the file has no problems; each difference is named")
    func advertisingProblems() {
        let good = AdvertisingData(
            flags: .generalDiscoverableLEOnly, localName: "HRS-1a2b", serviceUUIDs: [BluetoothUUID(0x180D)],
            manufacturerData: (CompanyIdentifier(rawValue: 0x0059), [1]))
        #expect(DiscoverySuite.problems(in: good, of: Self.profile, address: Self.address) == [])
        let bad = AdvertisingData(flags: AdvertisingFlags(rawValue: 0x02), localName: "HRS-ffff")
        let problems = DiscoverySuite.problems(in: bad, of: Self.profile, address: Self.address)
        #expect(problems.count == 4, "\(problems)")
        #expect(problems.first == "local name is 'HRS-ffff', expected 'HRS-1a2b'")
        #expect(problems.contains("service 180D is not advertised"))
    }

    @Test("values that do not decode, or decode outside the range, fail the notification check")
    func valuesHeldToDecoder() {
        let periodic = Self.profile.periodic!
        var span = NotificationsSuite.ValueSpan()
        span.add([0x34, 0x08], periodic)  // 21.00 °C
        span.add([0xF4, 0x01], periodic)  // 5.00 °C
        #expect(span.problem(periodic) == nil)
        #expect(span.lowest == 5 && span.highest == 21)
        span.add([0x10, 0x27], periodic)  // 100.00 °C
        #expect(span.problem(periodic)?.hasPrefix("1 Temperature value(s) outside -10.0 … 40.0 °C") == true)
        span.add([0x16], periodic)  // a Nano's one-byte temperature
        #expect(span.problem(periodic)?.contains("did not decode as i16") == true)
    }

    @Test("number formats read back what they encode, little-endian, signed and float")
    func numberFormatsRoundTrip() throws {
        let i16 = DataProfile.NumberFormat(kind: .signed, width: 2, scale: 0.01)
        #expect(i16.encode(-12.34) == [0x2E, 0xFB])
        #expect(try i16.decode([0x2E, 0xFB]) == -12.34)
        let u32 = DataProfile.NumberFormat(kind: .unsigned, width: 4)
        #expect(try u32.decode([1, 0, 0, 0x80]) == 2_147_483_649)
        let f32 = DataProfile.NumberFormat(kind: .float, width: 4)
        #expect(try f32.decode(f32.encode(1.5)) == 1.5)
        let i64 = DataProfile.NumberFormat(kind: .signed, width: 8)
        #expect(try i64.decode(i64.encode(-1e30)) == Double(Int64.min))
        #expect(throws: DecodingError.self) { try u32.decode([1, 2]) }
    }
}

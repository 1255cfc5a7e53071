import BLECore
import Testing

@testable import DeviceProfiles

@Suite("Device profile contract")
struct DeviceProfilesTests {
    @Test("custom UUIDs sit on the e5b1XXXX base")
    func customBase() {
        #expect(EspPoint.sensorService.description == "e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20")
        #expect(EspPoint.otaData.description == "e5b10302-7c3a-4f0e-9d2b-5a1c3e7f9b20")
        #expect(HeartRateMonitor.alertLevel.description == "e5b10401-7c3a-4f0e-9d2b-5a1c3e7f9b20")
    }

    @Test("a Reading is 14 little-endian bytes in contract order")
    func readingLayout() throws {
        let reading = EspPoint.Reading(
            sequence: 0x0102_0304, unixTime: 1_700_000_000, temperature: -1234, humidity: 4567, batteryMillivolts: 3700)
        let bytes = reading.encoded
        #expect(bytes == [0x04, 0x03, 0x02, 0x01, 0x00, 0xF1, 0x53, 0x65, 0x2E, 0xFB, 0xD7, 0x11, 0x74, 0x0E])
        #expect(try EspPoint.Reading(decoding: bytes) == reading)
        #expect(throws: DecodingError.self) { try EspPoint.Reading(decoding: Array(bytes.dropLast())) }
        #expect(throws: DecodingError.self) { try EspPoint.Reading(decoding: bytes + [0]) }
    }

    @Test("manufacturer data carries firmware and status flags")
    func manufacturerStatus() throws {
        let status = EspPoint.ManufacturerStatus(
            firmware: FirmwareVersion(1, 4, 2), flags: [.backlogPresent, .pairingMode])
        #expect(status.encoded == [1, 4, 2, 0, 0x03])
        #expect(try EspPoint.ManufacturerStatus(decoding: status.encoded) == status)
    }

    @Test(
        "Log Control requests encode as the contract says",
        arguments: [
            (EspPoint.LogRequest.status, [0x01] as [UInt8]),
            (.read(from: 0x10, maxCount: 300), [0x02, 0x10, 0, 0, 0, 0x2C, 0x01]),
            (.acknowledge(upTo: 0xAABBCCDD), [0x03, 0xDD, 0xCC, 0xBB, 0xAA]),
        ])
    func logRequests(request: EspPoint.LogRequest, bytes: [UInt8]) throws {
        #expect(request.encoded == bytes)
        #expect(try EspPoint.LogRequest(decoding: bytes) == request)
    }

    @Test("Log Control results round-trip and junk is rejected")
    func logResults() throws {
        let results: [EspPoint.LogResult] = [
            .status(.init(oldest: 5, newest: 9, count: 5, capacity: 2048, dropped: 1)),
            .readDone(status: 0, lastSent: 9), .acknowledged(status: 0),
        ]
        for result in results { #expect(try EspPoint.LogResult(decoding: result.encoded) == result) }
        #expect(results[0].encoded.count == 21)
        #expect(throws: DecodingError.self) { try EspPoint.LogResult(decoding: [0x84]) }
        #expect(throws: DecodingError.self) { try EspPoint.LogResult(decoding: [0x81, 1, 2]) }
    }

    @Test("Log Data carries up to 17 records at MTU 247")
    func logDataCapacity() throws {
        #expect(EspPoint.LogData.capacity(mtu: 247) == 17)
        #expect(EspPoint.LogData.capacity(mtu: 23) == 1)
        let data = EspPoint.LogData(
            readings: (0..<17).map {
                EspPoint.Reading(sequence: $0, unixTime: 0, temperature: 0, humidity: 0, batteryMillivolts: 0)
            })
        #expect(data.encoded.count == 1 + 17 * 14)
        #expect(try EspPoint.LogData(decoding: data.encoded) == data)
        #expect(throws: DecodingError.self) { try EspPoint.LogData(decoding: [2] + data.readings[0].encoded) }
    }

    @Test(
        "commands decode, and bad ones map to the status the board answers",
        arguments: [
            (
                [0x01, 0x01] as [UInt8],
                Result<EspPoint.Command, EspPoint.CommandStatus.Code>.success(.setLED(on: true))
            ),
            ([0x01, 0x02], .failure(.badArguments)),
            ([0x02, 0x00, 0x00, 0x00, 0x00], .failure(.badArguments)),
            ([0x02, 0x3C, 0x00, 0x00, 0x00], .success(.setInterval(seconds: 60))),
            ([0x04], .success(.identify)),
            ([0x04, 0x00], .failure(.badArguments)),
            ([0x09], .failure(.unknownOpcode)),
            ([], .failure(.badArguments)),
        ])
    func commandDecoding(bytes: [UInt8], expected: Result<EspPoint.Command, EspPoint.CommandStatus.Code>) {
        #expect(EspPoint.Command.decode(bytes) == expected)
        if case let .success(command) = expected { #expect(command.encoded == bytes) }
    }

    @Test(
        "console lines parse and print back",
        arguments: [
            "BOOT fw=1.4.2 bank=A reset=POWERON boot_id=5f3a9c01",
            "BOOT fw=1.0.0 reset=SW boot_id=0000002a",
            "READY name=ESP-Point-1a2b addr=24:0A:C4:12:1A:2B",
            "[10234] I/OTA: batch 41 ok next_seq=420",
            "OTA committed bank=B fw=1.5.0",
            "OTA rollback bank=A reason=selftest",
        ])
    func consoleRoundTrip(line: String) {
        let parsed = ConsoleLine(parsing: line)
        if case .other = parsed { Issue.record("\(line) was not recognised") }
        #expect(parsed.description == line)
    }

    @Test("unknown console lines are kept verbatim", arguments: ["garbage", "BOOT fw=x", "[12 I/x: y", ""])
    func consoleUnknown(line: String) {
        #expect(ConsoleLine(parsing: line) == .other(line))
    }

    /// The keyword is the first word after any spaces (the line is split only when it is BOOT, READY or OTA); a log
    /// line's `[` must be the very first character; OTA needs a second word.
    @Test(
        "console keywords after leading spaces, log lines only from the first character",
        arguments: [
            ("  BOOT  fw=1.0.0 reset=SW  boot_id=2a", ConsoleLine.boot(
                firmware: FirmwareVersion(1, 0, 0), bank: nil, reset: .software, bootID: 0x2a)),
            (" READY name=n addr=24:0A:C4:12:1A:2B", .ready(name: "n", address: DeviceAddress("24:0A:C4:12:1A:2B")!)),
            ("OTA  rollback reason=x bank=B", .otaRollback(bank: "B", reason: "x")),
            ("OTA", .other("OTA")),
            ("OTA [1] I/x: y", .other("OTA [1] I/x: y")),
            ("BOOTS fw=1.0.0 reset=SW boot_id=2a", .other("BOOTS fw=1.0.0 reset=SW boot_id=2a")),
            (" [1] I/x: y", .other(" [1] I/x: y")),
            ("[1]   W/tag: a: b", .log(uptimeMilliseconds: 1, level: "W", tag: "tag", message: "a: b")),
            ("[1] READY name=n", .other("[1] READY name=n")),
        ])
    func consoleKeywords(line: String, expected: ConsoleLine) {
        #expect(ConsoleLine(parsing: line) == expected)
    }

    @Test("advertised names use the last two address bytes")
    func names() {
        let address = DeviceAddress("24:0A:C4:12:1A:2B")!
        #expect(EspPoint.advertisedName(for: address) == "ESP-Point-1a2b")
        #expect(HeartRateMonitor.advertisedName(for: address) == "HRM-1a2b")
    }
}

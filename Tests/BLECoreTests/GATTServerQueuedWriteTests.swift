import Testing

@testable import BLECore

@Suite("GATT server queued writes")
struct GATTServerQueuedWriteTests {
    typealias Profile = GATTServerTestProfile

    static let first = Array(repeating: UInt8(0xA1), count: 18)
    static let second = Array(repeating: UInt8(0xB2), count: 5)

    @Test("Write Long Characteristic Values: prepared parts are echoed, then Execute Write assembles them")
    func writeLongValue() throws {
        var harness = try GATTServerHarness()
        #expect(
            harness.receive("16 1600 0000 " + Self.first.hexString) == [sendPDU("17 1600 0000 " + Self.first.hexString)]
        )
        #expect(
            harness.receive("16 1600 1200 " + Self.second.hexString) == [
                sendPDU("17 1600 1200 " + Self.second.hexString)
            ])
        #expect(harness.server.value(of: 0x16) == Profile.longValue)
        #expect(harness.app.events.isEmpty)
        #expect(harness.receive("18 01") == [sendPDU("19")])
        #expect(harness.server.value(of: 0x16) == Self.first + Self.second)
        #expect(harness.app.events == [.write(Self.first + Self.second, .executeWrite, 0x16, 1)])
    }

    @Test("a part at offset n keeps the first n bytes of the current value and replaces the rest")
    func partialOverwrite() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("16 1600 0300 FFFF") == [sendPDU("17 1600 0300 FFFF")])
        #expect(harness.receive("18 01") == [sendPDU("19")])
        #expect(harness.server.value(of: 0x16) == [0, 1, 2, 0xFF, 0xFF])
    }

    @Test("Reliable Writes to several handles are applied in the order first prepared")
    func reliableWrites() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("16 1D00 0000 0102")
        _ = harness.receive("16 1600 0000 07")
        _ = harness.receive("16 0900 0000 0100")
        #expect(harness.receive("18 01") == [sendPDU("19")])
        #expect(harness.server.value(of: 0x1D) == [1, 2])
        #expect(harness.server.value(of: 0x16) == [7])
        #expect(harness.server.clientConfiguration(8, for: 1) == .notifications)
        #expect(
            harness.app.events == [
                .write([1, 2], .executeWrite, 0x1D, 1), .write([7], .executeWrite, 0x16, 1),
                .configuration(.notifications, cccd: 9, value: 8, 1),
            ])
    }

    @Test("Execute Write with the cancel flag drops the queue")
    func cancel() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("16 1600 0000 01")
        #expect(harness.receive("18 00") == [sendPDU("19")])
        #expect(harness.receive("18 01") == [sendPDU("19")])
        #expect(harness.server.value(of: 0x16) == Profile.longValue)
        #expect(harness.app.events.isEmpty)
    }

    @Test("the prepare queue is bounded: 0x09 Prepare Queue Full")
    func queueFull() throws {
        var harness = try GATTServerHarness(configuration: .init(prepareQueueCapacity: 2))
        #expect(harness.receive("16 1600 0000 01") == [sendPDU("17 1600 0000 01")])
        #expect(harness.receive("16 1600 0100 02") == [sendPDU("17 1600 0100 02")])
        #expect(harness.receive("16 1600 0200 03") == [sendPDU("01 16 1600 09")])
        // Queues are per connection.
        #expect(harness.receive("16 1600 0000 04", from: 2) == [sendPDU("17 1600 0000 04", to: 2)])
        #expect(harness.receive("18 01") == [sendPDU("19")])
        #expect(harness.server.value(of: 0x16) == [1, 2])
    }

    @Test(
        "Prepare Write checks the handle and write permission at once",
        arguments: [
            ("16 0000 0000 01", "01 16 0000 01"), ("16 4000 0000 01", "01 16 4000 01"),
            ("16 0300 0000 01", "01 16 0300 03"), ("16 1400 0000 01", "01 16 1400 05"),
        ])
    func prepareErrors(request: String, response: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU(response)])
        #expect(harness.receive("18 01") == [sendPDU("19")])
    }

    @Test(
        "Execute Write checks offsets and lengths of every value before writing any, and reports the first error",
        arguments: [
            (["16 1D00 0000 01", "16 1600 6500 01"], "01 18 1600 07"),  // past the current 100 bytes
            (["16 1D00 0000 01", "16 1D00 0300 01"], "01 18 1D00 07"),  // past the 1 byte just assembled
            (["16 1D00 0000 01", "16 1800 0000 0102"], "01 18 1800 0D"),  // Auth is 16 bytes
            (["16 1600 6400 " + String(repeating: "AA", count: 413)], "01 18 1600 0D"),  // 513 bytes
            (["16 1D00 0000 01", "16 0900 0000 0200"], "01 18 0900 FD"),
            (["16 1D00 0000 01", "16 0900 0000 01"], "01 18 0900 0D"),
        ])
    func executeErrors(prepares: [String], response: String) throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("02 0502")
        for prepare in prepares { #expect(harness.receive(prepare).count == 1) }
        #expect(harness.receive("18 01") == [sendPDU(response)])
        #expect(harness.server.value(of: 0x1D) == [])
        #expect(harness.server.value(of: 0x16) == Profile.longValue)
        #expect(harness.app.events.isEmpty)
        // The queue is empty afterwards.
        #expect(harness.receive("18 01") == [sendPDU("19")])
    }

    @Test("an application refusal at Execute Write stops there; values written before it stay")
    func executeRefusedByApplication() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("16 1D00 0000 01")
        _ = harness.receive("16 1100 0000 01")
        _ = harness.receive("16 1600 0000 02")
        #expect(harness.receive("18 01") == [sendPDU("01 18 1100 05")])
        #expect(harness.server.value(of: 0x1D) == [1])
        #expect(harness.server.value(of: 0x16) == Profile.longValue)
        #expect(harness.app.events == [.write([1], .executeWrite, 0x1D, 1), .write([1], .executeWrite, 0x11, 1)])
    }
}

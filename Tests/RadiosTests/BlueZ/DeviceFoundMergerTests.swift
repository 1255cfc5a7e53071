import BLECore
import Testing

@testable import Radios

private let board = DeviceAddress(0xE4_0A_C4_12_1A_2B, kind: .random)
private let beacon = DeviceAddress(0x24_0A_C4_99_00_01, kind: .public)
/// The esp-point's advertisement as Linux 6.1 reported it from Bumble's controller: flags and manufacturer data
/// in one Device Found, the name alone in the next, flagged "scan response".
private let advertisement: [UInt8] = [2, 0x01, 0x06, 8, 0xFF, 0xFF, 0xFF, 0x01, 0x04, 0x02, 0x00, 0x02]
private let response: [UInt8] = [15, 0x09] + Array("ESP-Point-1a2b".utf8)

@Suite("BlueZ's Device Found events merged per advertiser")
struct DeviceFoundMergerTests {
    func found(_ eir: [UInt8], rssi: Int8 = -50, flags: Mgmt.DeviceFound.Flags = []) -> Mgmt.DeviceFound {
        Mgmt.DeviceFound(address: .init(board), rssi: rssi, flags: flags, eir: eir)
    }

    @Test("an advertisement waits for its scan response and is reported with it: name and manufacturer data")
    func mergesTheResponse() throws {
        var merger = DeviceFoundMerger()
        guard case .hold = merger.add(found(advertisement), from: board) else {
            Issue.record("the advertisement was not held for its response")
            return
        }
        let step = merger.add(found(response, rssi: -52, flags: .scanResponse), from: board)
        guard case let .deliver(report) = step else {
            Issue.record("\(step)")
            return
        }
        #expect(report.data.localName == "ESP-Point-1a2b")
        let manufacturerData = report.data.manufacturerData(for: CompanyIdentifier(rawValue: 0xFFFF))
        #expect(manufacturerData == [0x01, 0x04, 0x02, 0x00, 0x02])
        #expect(report.rssi == -52)
        #expect(report.connectable)
    }

    @Test("an advertiser that never answers is reported after the wait, then at once; a stale wait does nothing")
    func silentAdvertiser() throws {
        var merger = DeviceFoundMerger()
        let first = merger.add(found(advertisement), from: beacon)
        guard case let .hold(generation) = first else {
            Issue.record("\(first)")
            return
        }
        let expired = merger.expire(beacon, generation: generation)
        let report = try #require(expired)
        #expect(report.data.localName == nil)
        #expect(report.data.manufacturerData(for: CompanyIdentifier(rawValue: 0xFFFF)) != nil)
        #expect(merger.expire(beacon, generation: generation) == nil)
        let again = merger.add(found(advertisement), from: beacon)
        guard case .deliver = again else {
            Issue.record("a known silent advertiser was held: \(again)")
            return
        }
    }

    @Test("a lost response: the next advertisement goes out at once, with the last response the advertiser sent")
    func lostResponse() throws {
        var merger = DeviceFoundMerger()
        _ = merger.add(found(advertisement), from: board)
        _ = merger.add(found(response, flags: .scanResponse), from: board)
        let held = merger.add(found(advertisement, rssi: -70), from: board)
        guard case let .hold(generation) = held else {
            Issue.record("a responding advertiser's advertisement was not held: \(held)")
            return
        }
        let step = merger.add(found(advertisement, rssi: -71, flags: .notConnectable), from: board)
        guard case let .deliver(report) = step else {
            Issue.record("\(step)")
            return
        }
        #expect(report.rssi == -71)
        #expect(!report.connectable)
        #expect(report.data.localName == "ESP-Point-1a2b")
        #expect(merger.expire(board, generation: generation) == nil)
    }
}

import Testing

@testable import BLECore

@Suite("btsnoop capture")
struct CaptureBTSnoopTests {
    /// 2023-11-14 22:13:20 UTC.
    static let writer = BTSnoop.Writer(unixTimeAtOrigin: .seconds(1_700_000_000))
    static let peer = DeviceAddress(0x240A_C412_1A2B)

    @Test func headerBytesAreExact() {
        #expect(Self.writer.header == [UInt8](hex: "62 74 73 6e 6f 6f 70 00  00 00 00 01  00 00 03 ea"))
        #expect(BTSnoop.fileHeader(datalink: .hciUnencapsulated).suffix(4) == [0x00, 0x00, 0x03, 0xE9])
    }

    @Test func timestampsCountMicrosecondsFromYearZero() {
        #expect(BTSnoop.Writer(unixTimeAtOrigin: .zero).timestamp(at: .origin) == 0x00DC_DDB3_0F2F_8000)
        #expect(Self.writer.timestamp(at: RigInstant(sinceOrigin: .microseconds(1500))) == 0x00E2_E7D7_274D_C5DC)
        #expect(Self.writer.timestamp(at: RigInstant(sinceOrigin: .nanoseconds(999))) == 0x00E2_E7D7_274D_C000)
        #expect(BTSnoop.Writer(unixTimeAtOrigin: .seconds(Int64.max)).timestamp(at: .origin) == Int64.max)
    }

    @Test func disconnectionRecordBytesAreExact() {
        let bytes = Self.writer.disconnectionComplete(
            HCI.DisconnectionComplete(handle: 0x0040, reason: .remoteUserTerminated),
            at: RigInstant(sinceOrigin: .microseconds(1500)))
        let expected = [UInt8](
            hex: """
                00 00 00 07  00 00 00 07  00 00 00 03  00 00 00 00  00 e2 e7 d7 27 4d c5 dc
                04 05 04 00 40 00 13
                """)
        #expect(bytes == expected)
    }

    @Test func attRecordWrapsThePDUInL2CAPAndACL() {
        let bytes = Self.writer.attPDU(
            [0x02, 0xF7, 0x00], handle: 0x0040, direction: .hostToController, at: RigInstant(sinceOrigin: .zero))
        let expected = [UInt8](
            hex: """
                00 00 00 0c  00 00 00 0c  00 00 00 00  00 00 00 00  00 e2 e7 d7 27 4d c0 00
                02 40 00 07 00 03 00 04 00 02 f7 00
                """)
        #expect(bytes == expected)
    }

    @Test("a record appended to a buffer is the record's own encoding, after what the buffer held")
    func appendedRecordIsTheRecordEncoded() {
        var writer = Self.writer
        writer.noteDropped(3)
        var generator = SplitMix64(seed: 0xB7_5A00)
        for round in 0..<200 {
            let type = [HCI.PacketType.command, .aclData, .event, .synchronousData, .isoData][round % 5]
            let body = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let packet = HCI.H4Packet(type: type, body: body)
            let direction: HCI.Direction = round % 2 == 0 ? .hostToController : .controllerToHost
            let at = RigInstant(sinceOrigin: .microseconds(Int64(generator.next() % 1_000_000_000)))
            let held = (0..<round % 7).map { UInt8($0) }
            var buffer = held
            writer.appendRecord(packet, direction: direction, at: at, to: &buffer)
            let record = writer.record(packet, direction: direction, at: at)
            #expect(buffer == held + record.encoded, "round \(round)")
            #expect(writer.recordBytes(packet, direction: direction, at: at) == record.encoded)
        }
    }

    @Test func recordFlagsFollowDirectionAndKind() {
        #expect(BTSnoop.RecordFlags(direction: .hostToController, type: .aclData).rawValue == 0)
        #expect(BTSnoop.RecordFlags(direction: .controllerToHost, type: .aclData).rawValue == 1)
        #expect(BTSnoop.RecordFlags(direction: .hostToController, type: .command).rawValue == 2)
        #expect(BTSnoop.RecordFlags(direction: .controllerToHost, type: .event).rawValue == 3)
    }

    @Test func writeThenReadRoundTripsASmallATTExchange() throws {
        var writer = Self.writer
        let at = { (ms: Int64) in RigInstant(sinceOrigin: .milliseconds(ms)) }
        let connection = HCI.LEConnectionComplete(
            handle: 0x0040, peerAddress: Self.peer, connectionInterval: 12, supervisionTimeout: 400)
        var file = writer.header
        file += writer.connectionComplete(connection, at: at(0))
        file += writer.attPDU([0x02, 0xF7, 0x00], handle: 0x40, direction: .hostToController, at: at(15))
        file += writer.attPDU([0x03, 0xF7, 0x00], handle: 0x40, direction: .controllerToHost, at: at(30))
        let readRequest: [UInt8] = [0x0A, 0x03, 0x00]
        let readResponse: [UInt8] = [0x0B] + [UInt8](repeating: 0x42, count: 40)
        file += writer.attPDU(readRequest, handle: 0x40, direction: .hostToController, at: at(45))
        writer.noteDropped(2)
        file += writer.attPDU(
            readResponse, handle: 0x40, direction: .controllerToHost, at: at(60), maximumACLDataLength: 27)
        file += writer.disconnectionComplete(
            HCI.DisconnectionComplete(handle: 0x40, reason: .remoteUserTerminated), at: at(75))

        let capture = try BTSnoop.Capture(decoding: file)
        #expect(capture.datalink == .hciUART)
        #expect(capture.records.count == 7, "the 45-byte read response travels in two 27-byte ACL packets")
        #expect(capture.encoded == file)
        #expect(capture.records.map(\.cumulativeDrops) == [0, 0, 0, 0, 2, 2, 2])
        #expect(
            capture.records.map(\.unixTime)
                == [0, 15, 30, 45, 60, 60, 75].map { .seconds(1_700_000_000) + .milliseconds($0) })

        // Events come back as the events written.
        let first = try capture.records[0].h4Packet().eventPacket()
        #expect(try HCI.LEConnectionComplete(event: first) == connection)
        #expect(
            try HCI.DisconnectionComplete(event: capture.records[6].h4Packet().eventPacket()).reason
                == .remoteUserTerminated)

        // ACL records reassemble into the ATT PDUs, in order and with their directions.
        var reassembler = L2CAP.Reassembler()
        var pdus: [(HCI.Direction, [UInt8])] = []
        for record in capture.records[1...5] {
            let acl = try record.h4Packet().aclDataPacket()
            #expect(acl.handle == 0x40)
            if let frame = try reassembler.push(acl.fragment) {
                #expect(frame.channel == .att)
                pdus.append((record.direction, frame.payload))
            }
        }
        #expect(pdus.map(\.0) == [.hostToController, .controllerToHost, .hostToController, .controllerToHost])
        #expect(pdus.map(\.1) == [[0x02, 0xF7, 0x00], [0x03, 0xF7, 0x00], readRequest, readResponse])
    }

    @Test func readerKeepsTruncatedPacketsOriginalLength() throws {
        var record = BTSnoop.Record(flags: [.received], timestamp: 0, data: [0x02, 0x40, 0x00])
        record.originalLength = 12
        let capture = try BTSnoop.Capture(decoding: BTSnoop.fileHeader() + record.encoded)
        #expect(capture.records == [record])
        #expect(capture.records[0].isTruncated)
    }

    @Test(arguments: [
        ("", BTSnoop.FormatError.truncatedHeader(available: 0)),
        ("62 74 73 6e 6f 6f 70 00 00 00 00 01 00 00 03", .truncatedHeader(available: 15)),
        ("62 74 73 6e 6f 6f 70 21 00 00 00 01 00 00 03 ea", .badMagic([UInt8](hex: "62 74 73 6e 6f 6f 70 21")!)),
        ("d4 c3 b2 a1 02 00 04 00 00 00 00 00 00 00 00 00", .badMagic([UInt8](hex: "d4 c3 b2 a1 02 00 04 00")!)),
        ("62 74 73 6e 6f 6f 70 00 00 00 00 02 00 00 03 ea", .unsupportedVersion(2)),
        ("62 74 73 6e 6f 6f 70 00 00 00 00 01 00 00 07 d1", .unsupportedDatalink(.linuxMonitor)),
        ("62 74 73 6e 6f 6f 70 00 00 00 00 01 00 00 03 e9", .unsupportedDatalink(.hciUnencapsulated)),
    ])
    func readerRejectsABadHeader(hex: String, error: BTSnoop.FormatError) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(throws: error) { try BTSnoop.Capture(decoding: bytes) }
    }

    @Test func readerRejectsATruncatedRecord() throws {
        let record = Self.writer.disconnectionComplete(
            HCI.DisconnectionComplete(handle: 0x40, reason: .connectionTimeout), at: .origin)
        let file = Self.writer.header + record + record
        #expect(try BTSnoop.Capture(decoding: file).records.count == 2)
        #expect(throws: BTSnoop.FormatError.truncatedRecord(index: 1, at: 47, needed: 31, available: 30)) {
            try BTSnoop.Capture(decoding: file.dropLast())
        }
        #expect(throws: BTSnoop.FormatError.truncatedRecord(index: 1, at: 47, needed: 24, available: 10)) {
            try BTSnoop.Capture(decoding: file.prefix(57))
        }
    }

    @Test func readerRejectsARecordIncludingMoreThanThePacket() throws {
        var record = BTSnoop.Record(flags: [], timestamp: 0, data: [0x02, 0x40, 0x00])
        record.originalLength = 2
        #expect(throws: BTSnoop.FormatError.includedExceedsOriginal(index: 0, at: 16, included: 3, original: 2)) {
            try BTSnoop.Capture(decoding: BTSnoop.fileHeader() + record.encoded)
        }
    }

    @Test func formatErrorsSayWhatIsWrong() {
        #expect(
            BTSnoop.FormatError.unsupportedDatalink(.linuxMonitor).description
                == "btsnoop: datalink 2001 (Linux monitor) is not supported; expected 1002 (HCI UART (H4))")
        #expect(
            BTSnoop.FormatError.badMagic([UInt8](hex: "d4c3b2a102000400")!).description
                == "btsnoop: the file starts with d4c3b2a102000400, not the magic \"btsnoop\\0\" (not a btsnoop file)")
    }

    @Test func recordDescribesItself() {
        let record = BTSnoop.Record(
            flags: [.received, .commandOrEvent], timestamp: 0x00E2_E7D7_274D_C5DC, data: [0x04])
        #expect(record.description == "@1700000000.001500 controller→host 04")
    }
}

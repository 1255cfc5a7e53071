import Testing

@testable import BLECore

private typealias Harness = GATTClientTesting.Harness

/// Reads, writes, the request queue, the transaction timer and cancellation, with every action asserted.
@Suite("GATTClient: reads, writes and the request queue")
struct GATTClientReadWriteTests {
    private static func bytes(_ count: Int, from start: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: Int(start) + $0) }
    }

    @Test("A value shorter than ATT_MTU − 1 is read with one Read Request")
    func shortRead() {
        var h = Harness()
        let (id, started) = h.start(.read(0x0003))
        #expect(started == [.request(ATT.ReadRequest(handle: 3))])
        #expect(h.receive(ATT.ReadResponse(value: [1, 2, 3])) == [.done(id, .value([1, 2, 3]))])
    }

    @Test("A full part is followed by Read Blobs at the length so far until a short part")
    func longRead() {
        var h = Harness()
        let value = Self.bytes(49)
        let (id, _) = h.start(.read(0x0003))
        #expect(
            h.receive(ATT.ReadResponse(value: Array(value[0..<22]))) == [
                .request(ATT.ReadBlobRequest(handle: 3, offset: 22))
            ])
        #expect(
            h.receive(ATT.ReadBlobResponse(value: Array(value[22..<44]))) == [
                .request(ATT.ReadBlobRequest(handle: 3, offset: 44))
            ])
        #expect(h.receive(ATT.ReadBlobResponse(value: Array(value[44...]))) == [.done(id, .value(value))])
    }

    @Test("Attribute Not Long after a full first part ends the read with that part", arguments: [true, false])
    func attributeNotLong(emptyBlob: Bool) {
        var h = Harness()
        let value = Self.bytes(22)
        let (id, _) = h.start(.read(0x0003))
        _ = h.receive(ATT.ReadResponse(value: value))
        let end: [UInt8] =
            emptyBlob
            ? ATT.ReadBlobResponse(value: []).encoded
            : ATT.ErrorResponse(requestOpcode: .readBlobRequest, handle: 3, error: .attributeNotLong).encoded
        #expect(h.receive(bytes: end) == [.done(id, .value(value))])
    }

    @Test("A read stops at the 512-byte maximum without another Read Blob")
    func readStopsAt512() {
        var h = Harness()
        let (id, _) = h.start(.read(0x0003))
        var actions = h.receive(ATT.ReadResponse(value: Self.bytes(22)))
        var total = 22
        while case .send = actions.first {
            let part = min(22, 512 - total)
            actions = h.receive(ATT.ReadBlobResponse(value: Self.bytes(part)))
            total += part
        }
        #expect(total == 512)
        #expect(actions.count == 1)
        #expect(actions.first == .done(id, .value(Array((0..<24).flatMap { _ in Self.bytes(22) }.prefix(512)))))
    }

    @Test("Read Multiple returns the concatenated values; fewer than two handles is refused without a request")
    func readMultiple() {
        var h = Harness()
        let (id, started) = h.start(.readMultiple([3, 5]))
        #expect(started == [.request(ATT.ReadMultipleRequest(handles: [3, 5]))])
        #expect(h.receive(ATT.ReadMultipleResponse(values: [1, 2, 3])) == [.done(id, .value([1, 2, 3]))])
        let (single, refused) = h.start(.readMultiple([3]))
        #expect(refused.count == 1)
        #expect(refused.first?.failure?.description.contains("at least two handles") == true)
        _ = single
        let (variable, sent) = h.start(.readMultipleVariable([3, 5]))
        #expect(sent == [.request(ATT.ReadMultipleVariableRequest(handles: [3, 5]))])
        #expect(
            h.receive(ATT.ReadMultipleVariableResponse(values: [[1], [2, 3]])) == [
                .done(variable, .values([[1], [2, 3]]))
            ])
    }

    @Test("Read Using Characteristic UUID: one Read By Type Request; Attribute Not Found gives none; 0x12 fails")
    func readByType() {
        var h = Harness()
        let hash = BluetoothUUID(0x2B2A)
        let (id, started) = h.start(.readByType(hash, in: 0x0001...0xFFFF))
        #expect(
            started == [
                .request(ATT.ReadByTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, attributeType: hash))
            ])
        #expect(
            h.receive(ATT.ReadByTypeResponse(entries: [.init(handle: 8, value: Self.bytes(16))])) == [
                .done(id, .handleValues([GATT.HandleValue(handle: 8, value: Self.bytes(16))]))
            ])
        let (none, _) = h.start(.readByType(hash, in: 0x0001...0xFFFF))
        let notFound = ATT.ErrorResponse(requestOpcode: .readByTypeRequest, handle: 1, error: .attributeNotFound)
        #expect(h.receive(notFound) == [.done(none, .handleValues([]))])
        let (outside, _) = h.start(.readByType(hash, in: 0x0010...0x0020))
        let stray = h.receive(ATT.ReadByTypeResponse(entries: [.init(handle: 8, value: [1])]))
        #expect(stray.first?.failure?.description.contains("outside the range") == true)
        _ = outside
        let (outOfSync, _) = h.start(.readByType(BluetoothUUID(0x2A19), in: 0x0001...0xFFFF))
        let refused = h.receive(
            ATT.ErrorResponse(requestOpcode: .readByTypeRequest, handle: 0, error: .databaseOutOfSync))
        #expect(refused == [.failed(outOfSync, .att(.databaseOutOfSync, request: .readByTypeRequest, handle: 0))])
    }

    @Test("A value up to ATT_MTU − 3 bytes is written with one Write Request")
    func shortWrite() {
        var h = Harness()
        let (id, started) = h.start(.write(Self.bytes(20), to: 0x0005))
        #expect(started == [.request(ATT.WriteRequest(handle: 5, value: Self.bytes(20)))])
        #expect(h.receive(ATT.WriteResponse()) == [.done(id, .written)])
    }

    @Test("A longer value is prepared in ATT_MTU − 5 byte parts, each echo checked, then executed")
    func longWrite() {
        var h = Harness()
        let value = Self.bytes(40)
        let parts = [(0, 18), (18, 36), (36, 40)].map {
            ATT.PrepareWriteRequest(handle: 5, offset: UInt16($0.0), value: Array(value[$0.0..<$0.1]))
        }
        let (id, started) = h.start(.write(value, to: 0x0005))
        #expect(started == [.request(parts[0])])
        #expect(h.receive(Self.echo(parts[0])) == [.request(parts[1])])
        #expect(h.receive(Self.echo(parts[1])) == [.request(parts[2])])
        #expect(h.receive(Self.echo(parts[2])) == [.request(ATT.ExecuteWriteRequest(flags: .write))])
        #expect(h.receive(ATT.ExecuteWriteResponse()) == [.done(id, .written)])
    }

    @Test("A reliable write prepares every value, even short ones, and executes them together")
    func reliableWrite() {
        var h = Harness()
        let (id, started) = h.start(.reliableWrite([.init(handle: 5, value: [1, 2]), .init(handle: 9, value: [])]))
        let first = ATT.PrepareWriteRequest(handle: 5, offset: 0, value: [1, 2])
        let second = ATT.PrepareWriteRequest(handle: 9, offset: 0, value: [])
        #expect(started == [.request(first)])
        #expect(h.receive(Self.echo(first)) == [.request(second)])
        #expect(h.receive(Self.echo(second)) == [.request(ATT.ExecuteWriteRequest(flags: .write))])
        #expect(h.receive(ATT.ExecuteWriteResponse()) == [.done(id, .written)])
    }

    @Test("An Error Response to a later Prepare Write cancels the prepared parts before failing")
    func prepareErrorCancels() {
        var h = Harness()
        let value = Self.bytes(40)
        let (id, _) = h.start(.write(value, to: 0x0005))
        _ = h.receive(Self.echo(ATT.PrepareWriteRequest(handle: 5, offset: 0, value: Array(value[0..<18]))))
        let full = ATT.ErrorResponse(requestOpcode: .prepareWriteRequest, handle: 5, error: .prepareQueueFull)
        #expect(h.receive(full) == [.request(ATT.ExecuteWriteRequest(flags: .cancel))])
        #expect(
            h.receive(ATT.ExecuteWriteResponse())
                == [.failed(id, .att(.prepareQueueFull, request: .prepareWriteRequest, handle: 5))])
    }

    @Test("An Error Response to the first Prepare Write fails at once: nothing was queued")
    func firstPrepareError() {
        var h = Harness()
        let (id, _) = h.start(.write(Self.bytes(40), to: 0x0005))
        let refused = ATT.ErrorResponse(requestOpcode: .prepareWriteRequest, handle: 5, error: .writeNotPermitted)
        #expect(h.receive(refused) == [.failed(id, .att(.writeNotPermitted, request: .prepareWriteRequest, handle: 5))])
    }

    @Test("Values beyond 512 bytes are refused without a request")
    func writeTooLong() {
        var h = Harness()
        let (id, started) = h.start(.write(Self.bytes(513), to: 0x0005))
        #expect(started.count == 1)
        #expect(started.first?.failure?.description.contains("512") == true)
        _ = id
    }

    @Test("CCCD configuration writes 0x0001, 0x0002 or 0x0000 little-endian")
    func configure() {
        #expect(GATTClient.Procedure.configure(cccd: 4, .notifications) == .write([0x01, 0x00], to: 4))
        #expect(GATTClient.Procedure.configure(cccd: 4, .indications) == .write([0x02, 0x00], to: 4))
        #expect(GATTClient.Procedure.configure(cccd: 4, []) == .write([0x00, 0x00], to: 4))
    }

    @Test("A Write Command must fit ATT_MTU − 3 bytes and needs no request slot")
    func writeCommand() throws {
        var h = Harness()
        _ = h.start(.read(3))
        #expect(
            try h.client.writeCommand(Self.bytes(20), to: 7)
                == ATT.WriteCommand(handle: 7, value: Self.bytes(20)).encoded)
        #expect(throws: GATTError.self) { try h.client.writeCommand(Self.bytes(21), to: 7) }
        #expect(h.client.statistics.commandsSent == 1)
    }

    @Test("An ATT error ends the procedure with the code, the request and the handle")
    func attError() {
        var h = Harness()
        let (id, _) = h.start(.read(0x0003))
        let error = ATT.ErrorResponse(requestOpcode: .readRequest, handle: 3, error: .insufficientEncryption)
        #expect(h.receive(error) == [.failed(id, .att(.insufficientEncryption, request: .readRequest, handle: 3))])
    }

    @Test("Procedures queue behind the outstanding request and start when it completes")
    func queueing() {
        var h = Harness()
        let (read, started) = h.start(.read(3))
        let (write, queued) = h.start(.write([1], to: 5))
        #expect(started == [.request(ATT.ReadRequest(handle: 3))])
        #expect(queued == [])
        #expect(
            h.receive(ATT.ReadResponse(value: [9])) == [
                .done(read, .value([9])), .request(ATT.WriteRequest(handle: 5, value: [1])),
            ])
        #expect(h.receive(ATT.WriteResponse()) == [.done(write, .written)])
        #expect(h.client.isIdle)
    }

    @Test("After the transaction timeout everything fails with .timeout and the bearer takes nothing more")
    func transactionTimeout() {
        var h = Harness()
        let (read, _) = h.start(.read(3))
        let (write, _) = h.start(.write([1], to: 5))
        #expect(h.expire(after: .seconds(29)) == [])
        let timeout = GATTError.timeout(request: .readRequest)
        #expect(h.expire(after: .seconds(1)) == [.failed(read, timeout), .failed(write, timeout)])
        let (late, refused) = h.start(.read(3))
        #expect(refused == [.failed(late, timeout)])
        #expect(throws: timeout) { try h.client.writeCommand([1], to: 7) }
        #expect(h.receive(ATT.ReadResponse(value: [1])) == [])
        #expect(h.receive(ATT.HandleValueIndication(handle: 3, value: [1])).count == 1, "delivered, not confirmed")
    }

    @Test("Cancelling a queued procedure drops it; cancelling the running one waits out its response")
    func cancellation() {
        var h = Harness()
        let (read, _) = h.start(.read(3))
        let (queued, _) = h.start(.read(4))
        let (next, _) = h.start(.read(5))
        #expect(h.cancel(queued) == [.failed(queued, .cancelled("Read on handle 0x0004"))])
        #expect(h.cancel(read) == [.failed(read, .cancelled("Read on handle 0x0003"))])
        #expect(h.client.activeOperation == nil)
        #expect(h.receive(ATT.ReadResponse(value: [1])) == [.request(ATT.ReadRequest(handle: 5))])
        #expect(h.receive(ATT.ReadResponse(value: [2])) == [.done(next, .value([2]))])
    }

    @Test("Cancelling a long write mid-way discards the prepared parts before the next procedure starts")
    func cancelledLongWriteIsDiscarded() {
        var h = Harness()
        let value = Self.bytes(40)
        let (write, _) = h.start(.write(value, to: 5))
        let (read, _) = h.start(.read(3))
        #expect(h.cancel(write).count == 1)
        let first = ATT.PrepareWriteRequest(handle: 5, offset: 0, value: Array(value[0..<18]))
        #expect(h.receive(Self.echo(first)) == [.request(ATT.ExecuteWriteRequest(flags: .cancel))])
        #expect(h.receive(ATT.ExecuteWriteResponse()) == [.request(ATT.ReadRequest(handle: 3))])
        #expect(h.receive(ATT.ReadResponse(value: [7])) == [.done(read, .value([7]))])
    }

    @Test("A failed send fails the procedure and starts the next")
    func sendFailure() {
        var h = Harness()
        let (read, _) = h.start(.read(3))
        let (next, _) = h.start(.read(4))
        let error = GATTError.disconnected(.connectionTimeout)
        #expect(h.client.sendFailed(error) == [.failed(read, error), .request(ATT.ReadRequest(handle: 4))])
        _ = next
    }

    @Test("Link down fails the running and queued procedures, and every later one")
    func linkDown() {
        var h = Harness()
        let (read, _) = h.start(.read(3))
        let (write, _) = h.start(.write([1], to: 5))
        let down = GATTError.disconnected(.remoteUserTerminated)
        #expect(h.client.linkDown(.remoteUserTerminated) == [.failed(read, down), .failed(write, down)])
        let (late, refused) = h.start(.read(3))
        #expect(refused == [.failed(late, down)])
        #expect(h.receive(ATT.HandleValueNotification(handle: 3, value: [1])) == [])
    }

    static func echo(_ request: ATT.PrepareWriteRequest) -> ATT.PrepareWriteResponse {
        ATT.PrepareWriteResponse(handle: request.handle, offset: request.offset, value: request.value)
    }
}

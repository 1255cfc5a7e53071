import Testing

@testable import BLECore

private typealias Clock = GATTClientTesting.ManualClock
private typealias Bearer = GATTClientTesting.RecordingBearer
private typealias Link = GATTClientTesting.RecordingLink

/// The async shell: waiting callers, the transaction timeout on an injected clock, link loss, subscriptions and
/// cancellation. The transport's side is played by the test, which pushes PDUs with `receive`.
@Suite("GATTClientConnection")
struct GATTClientConnectionTests {
    private struct Rig {
        let clock = Clock()
        let bearer = Bearer()
        let link = Link()
        let connection: GATTClientConnection

        init(timeout: Duration = ATT.transactionTimeout) {
            connection = GATTClientConnection(
                peer: GATTClientTesting.peer, bearer: bearer, link: link, clock: clock, transactionTimeout: timeout)
        }

        /// Waits until the connection has handed `count` PDUs to the bearer.
        func sent(_ count: Int) async {
            await GATTClientTesting.settle("\(count) PDU(s) sent") { bearer.sent.count >= count }
        }
    }

    private static let notifying = GATT.Characteristic(
        uuid: BluetoothUUID(0x2A37), properties: [.notify, .indicate], declarationHandle: 2, valueHandle: 3,
        endHandle: 4)
    private static let other = GATT.Characteristic(
        uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], declarationHandle: 6, valueHandle: 7, endHandle: 8)

    /// Subscribes, answering the CCCD write as the server would.
    private static func subscribe(
        _ rig: Rig, _ characteristic: GATT.Characteristic, indications: Bool = false
    ) async throws -> AsyncStream<GATT.ValueEvent> {
        let before = rig.bearer.sent.count
        async let stream = rig.connection.subscribe(
            to: characteristic, cccd: characteristic.valueHandle + 1, indications: indications)
        await rig.sent(before + 1)
        rig.connection.receive(ATT.WriteResponse().encoded)
        return try await stream
    }

    @Test("A read completes when the transport pushes the response; requests and responses are counted")
    func readRoundTrip() async throws {
        let rig = Rig()
        async let value = rig.connection.read(3)
        await rig.sent(1)
        #expect(rig.bearer.sent == [ATT.ReadRequest(handle: 3).encoded])
        rig.connection.receive(ATT.ReadResponse(value: [5, 6]).encoded)
        #expect(try await value == [5, 6])
        #expect(rig.connection.statistics.requestsSent == 1)
        #expect(rig.connection.statistics.responsesReceived == 1)
    }

    @Test("The MTU exchange updates the connection's MTU")
    func exchangeMTU() async throws {
        let rig = Rig()
        async let mtu = rig.connection.exchangeMTU(preferred: 247)
        await rig.sent(1)
        rig.connection.receive(ATT.ExchangeMTUResponse(serverRxMTU: 200).encoded)
        #expect(try await mtu == 200)
        #expect(rig.connection.mtu == 200)
    }

    @Test("A second request waits until the first one's response arrives")
    func oneRequestAtATime() async throws {
        let rig = Rig()
        async let first = rig.connection.read(3)
        await rig.sent(1)
        async let second = rig.connection.write([1], to: 4)
        for _ in 0..<200 { await Task.yield() }
        #expect(rig.bearer.sent.count == 1, "the write stays queued while the read is outstanding")
        rig.connection.receive(ATT.ReadResponse(value: [1]).encoded)
        await rig.sent(2)
        #expect(rig.bearer.sent.last == ATT.WriteRequest(handle: 4, value: [1]).encoded)
        rig.connection.receive(ATT.WriteResponse().encoded)
        #expect(try await first == [1])
        try await second
    }

    @Test("After 30 s on the clock without a response the request and the queued ones time out, for good")
    func transactionTimeout() async throws {
        let rig = Rig()
        let first = Task { try await rig.connection.read(3) }
        await rig.sent(1)
        let second = Task { try await rig.connection.read(4) }
        await GATTClientTesting.settle("both callers parked on the timer") { rig.clock.sleeperCount == 2 }
        rig.clock.advance(by: .seconds(29))
        for _ in 0..<50 { await Task.yield() }
        rig.clock.advance(by: .seconds(1))
        let timeout = GATTError.timeout(request: .readRequest)
        await #expect(throws: timeout) { try await first.value }
        await #expect(throws: timeout) { try await second.value }
        await #expect(throws: timeout) { try await rig.connection.write([1], to: 5) }
        #expect(rig.bearer.sent.count == 1, "nothing more goes out on a timed-out bearer")
        #expect(rig.clock.sleeperCount == 0, "no timer is left behind")
    }

    @Test("A response just before the deadline wins, and the next request gets a fresh 30 s")
    func timerRearmsPerRequest() async throws {
        let rig = Rig()
        async let value = rig.connection.read(3)
        await rig.sent(1)
        await GATTClientTesting.settle("caller parked on the timer") { rig.clock.sleeperCount == 1 }
        rig.clock.advance(by: .seconds(29))
        rig.connection.receive(ATT.ReadResponse(value: Array(repeating: 1, count: 22)).encoded)
        await rig.sent(2)
        #expect(rig.bearer.sent.last == ATT.ReadBlobRequest(handle: 3, offset: 22).encoded)
        await GATTClientTesting.settle("caller re-parked on a new timer") { rig.clock.sleeperCount == 1 }
        rig.clock.advance(by: .seconds(29))
        rig.connection.receive(ATT.ReadBlobResponse(value: [2]).encoded)
        #expect(try await value == Array(repeating: 1, count: 22) + [2])
    }

    @Test("With a link that keeps timers, one timer covers a run of requests and no task sleeps on the clock")
    func linkTimerCoversARun() async throws {
        let clock = Clock()
        let bearer = Bearer()
        let link = GATTClientTesting.TimerLink()
        let connection = GATTClientConnection(peer: GATTClientTesting.peer, bearer: bearer, link: link, clock: clock)
        for (index, handle) in [UInt16(3), 4, 5].enumerated() {
            async let value = connection.read(handle)
            await GATTClientTesting.settle("read \(index + 1) sent") { bearer.sent.count == index + 1 }
            for _ in 0..<50 { await Task.yield() }
            #expect(clock.sleeperCount == 0, "the caller parks without a timer of its own")
            clock.advance(by: .seconds(1))
            connection.receive(ATT.ReadResponse(value: [UInt8(handle)]).encoded)
            #expect(try await value == [UInt8(handle)])
        }
        #expect(link.deadlines == [RigInstant.origin.advanced(by: ATT.transactionTimeout)])
    }

    @Test("The link's timer re-arms for the outstanding request when it fires early, and times it out at its deadline")
    func linkTimerTimesOut() async throws {
        let clock = Clock()
        let bearer = Bearer()
        let link = GATTClientTesting.TimerLink()
        let connection = GATTClientConnection(peer: GATTClientTesting.peer, bearer: bearer, link: link, clock: clock)
        async let first = connection.read(3)
        await GATTClientTesting.settle("first read sent") { bearer.sent.count == 1 }
        clock.advance(by: .seconds(10))
        connection.receive(ATT.ReadResponse(value: [1]).encoded)
        #expect(try await first == [1])
        let second = Task { try await connection.read(4) }
        await GATTClientTesting.settle("second read sent") { bearer.sent.count == 2 }

        clock.advance(by: .seconds(20))
        link.fireNext()
        let secondDeadline = RigInstant.origin.advanced(by: .seconds(10) + ATT.transactionTimeout)
        #expect(link.deadlines == [secondDeadline], "fired at the first read's deadline, it re-arms for the second's")
        for _ in 0..<50 { await Task.yield() }

        clock.advance(by: .seconds(10))
        link.fireNext()
        await #expect(throws: GATTError.timeout(request: .readRequest)) { try await second.value }
        #expect(link.deadlines.isEmpty, "nothing is outstanding: no timer is re-armed")
        #expect(clock.sleeperCount == 0)
    }

    @Test("Link down fails pending and queued work, finishes the streams and answers disconnection()")
    func linkDown() async throws {
        let rig = Rig()
        let stream = try await Self.subscribe(rig, Self.notifying)
        let pending = Task { try await rig.connection.read(3) }
        await rig.sent(2)
        let queued = Task { try await rig.connection.read(4) }
        let reason = Task { await rig.connection.disconnection() }
        for _ in 0..<50 { await Task.yield() }
        rig.connection.linkDown(.connectionTimeout)
        let down = GATTError.disconnected(.connectionTimeout)
        await #expect(throws: down) { try await pending.value }
        await #expect(throws: down) { try await queued.value }
        #expect(await reason.value == .connectionTimeout)
        #expect(await GATTClientTesting.collect(stream) == [])
        await #expect(throws: down) { try await rig.connection.read(5) }
        await #expect(throws: down) { try await rig.connection.writeWithoutResponse([1], to: 5) }
        await #expect(throws: down) {
            _ = try await rig.connection.subscribe(to: Self.other, cccd: 8, indications: false)
        }
        #expect(await rig.connection.disconnection() == .connectionTimeout)
        rig.connection.linkDown(.remoteUserTerminated)
        #expect(rig.connection.disconnectReason == .connectionTimeout, "only the first report counts")
    }

    @Test("Notifications reach the subscribers of their handle, stamped with the clock; others are counted")
    func notificationsReachTheRightSubscriber() async throws {
        let rig = Rig()
        let first = try await Self.subscribe(rig, Self.notifying)
        let second = try await Self.subscribe(rig, Self.other)
        let alsoSecond = try await Self.subscribe(rig, Self.other)
        #expect(rig.bearer.sent.last == ATT.WriteRequest(handle: 8, value: [0x01, 0x00]).encoded)
        rig.clock.advance(by: .milliseconds(12))
        rig.connection.receive(ATT.HandleValueNotification(handle: 7, value: [0xAB]).encoded)
        rig.connection.receive(ATT.HandleValueNotification(handle: 0x0040, value: [0xCD]).encoded)
        rig.connection.linkDown(.remoteUserTerminated)
        let expected = GATT.ValueEvent(
            handle: 7, value: [0xAB], kind: .notification, received: RigInstant(sinceOrigin: .milliseconds(12)))
        #expect(await GATTClientTesting.collect(second) == [expected])
        #expect(await GATTClientTesting.collect(alsoSecond) == [expected])
        #expect(await GATTClientTesting.collect(first) == [])
        #expect(rig.connection.statistics.unsubscribedValuesDropped == 1)
    }

    @Test("An indication is delivered and confirmed at once through the link")
    func indicationsAreConfirmed() async throws {
        let rig = Rig()
        let stream = try await Self.subscribe(rig, Self.notifying, indications: true)
        #expect(rig.bearer.sent.last == ATT.WriteRequest(handle: 4, value: [0x02, 0x00]).encoded)
        rig.connection.receive(ATT.HandleValueIndication(handle: 3, value: [1]).encoded)
        #expect(rig.link.replies == [ATT.HandleValueConfirmation().encoded])
        rig.connection.linkDown(.remoteUserTerminated)
        #expect(await GATTClientTesting.collect(stream).map(\.kind) == [.indication])
    }

    @Test("Subscribing needs the matching property and sends nothing otherwise")
    func subscribeNeedsTheProperty() async {
        let rig = Rig()
        let readOnly = GATT.Characteristic(
            uuid: BluetoothUUID(0x2A00), properties: .read, declarationHandle: 2, valueHandle: 3, endHandle: 4)
        await #expect(throws: GATTError.self) {
            _ = try await rig.connection.subscribe(to: readOnly, cccd: 4, indications: false)
        }
        await #expect(throws: GATTError.self) {
            _ = try await rig.connection.subscribe(to: Self.other, cccd: 8, indications: true)
        }
        #expect(rig.bearer.sent.isEmpty)
    }

    @Test("A rejected CCCD write fails the subscription and unregisters the stream")
    func rejectedSubscription() async throws {
        let rig = Rig()
        let stream = Task { try await rig.connection.subscribe(to: Self.other, cccd: 8, indications: false) }
        await rig.sent(1)
        rig.connection.receive(
            ATT.ErrorResponse(requestOpcode: .writeRequest, handle: 8, error: .writeNotPermitted).encoded)
        await #expect(throws: GATTError.att(.writeNotPermitted, request: .writeRequest, handle: 8)) {
            _ = try await stream.value
        }
        rig.connection.receive(ATT.HandleValueNotification(handle: 7, value: [1]).encoded)
        #expect(rig.connection.statistics.unsubscribedValuesDropped == 1)
    }

    @Test("Cancelling the caller of the running request frees it at once and does not wedge the queue")
    func cancelRunning() async throws {
        let rig = Rig()
        let running = Task { try await rig.connection.read(3) }
        await rig.sent(1)
        async let next = rig.connection.read(4)
        await GATTClientTesting.settle("both callers parked") { rig.clock.sleeperCount == 2 }
        running.cancel()
        await #expect(throws: GATTError.self) { try await running.value }
        rig.connection.receive(ATT.ReadResponse(value: [3]).encoded)  // the abandoned request's answer
        await rig.sent(2)
        #expect(rig.bearer.sent.last == ATT.ReadRequest(handle: 4).encoded)
        rig.connection.receive(ATT.ReadResponse(value: [4]).encoded)
        #expect(try await next == [4])
    }

    @Test("Cancelling a queued caller drops its procedure; the running one is unaffected")
    func cancelQueued() async throws {
        let rig = Rig()
        async let running = rig.connection.read(3)
        await rig.sent(1)
        let queued = Task { try await rig.connection.read(4) }
        await GATTClientTesting.settle("both callers parked") { rig.clock.sleeperCount == 2 }
        queued.cancel()
        await #expect(throws: GATTError.self) { try await queued.value }
        rig.connection.receive(ATT.ReadResponse(value: [3]).encoded)
        #expect(try await running == [3])
        #expect(rig.bearer.sent.count == 1, "the cancelled read never went out")
    }

    @Test("An abandoned request that is never answered still times out for whoever waits next")
    func abandonedRequestStillTimesOut() async throws {
        let rig = Rig()
        let running = Task { try await rig.connection.read(3) }
        await rig.sent(1)
        await GATTClientTesting.settle("caller parked") { rig.clock.sleeperCount == 1 }
        running.cancel()
        _ = await running.result
        let next = Task { try await rig.connection.read(4) }
        await GATTClientTesting.settle("the next caller waits on the old deadline") { rig.clock.sleeperCount == 1 }
        rig.clock.advance(by: .seconds(30))
        await #expect(throws: GATTError.timeout(request: .readRequest)) { try await next.value }
    }

    @Test("A bearer send failure propagates as the GATTError")
    func sendFailure() async {
        let rig = Rig()
        rig.bearer.fail(with: .disconnected(.remoteUserTerminated))
        await #expect(throws: GATTError.disconnected(.remoteUserTerminated)) { try await rig.connection.read(3) }
        await #expect(throws: GATTError.disconnected(.remoteUserTerminated)) {
            try await rig.connection.writeWithoutResponse([1], to: 3)
        }
    }

    @Test("Write without response bypasses the queue but refuses values over ATT_MTU − 3")
    func writeWithoutResponse() async throws {
        let rig = Rig()
        async let pending = rig.connection.read(3)
        await rig.sent(1)
        try await rig.connection.writeWithoutResponse([1, 2], to: 9)
        #expect(rig.bearer.sent.last == ATT.WriteCommand(handle: 9, value: [1, 2]).encoded)
        await #expect(throws: GATTError.self) {
            try await rig.connection.writeWithoutResponse(Array(repeating: 0, count: 21), to: 9)
        }
        rig.connection.receive(ATT.ReadResponse(value: []).encoded)
        #expect(try await pending == [])
    }

    @Test("disconnection() returns at once for a cancelled caller while the link stays up")
    func cancelledDisconnectionWait() async {
        let rig = Rig()
        let waiter = Task { await rig.connection.disconnection() }
        waiter.cancel()
        #expect(await waiter.value == .unspecifiedError)
        #expect(rig.connection.disconnectReason == nil)
    }
}

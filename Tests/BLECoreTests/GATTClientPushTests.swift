import Testing

@testable import BLECore

private typealias Harness = GATTClientTesting.Harness

/// What the server sends unasked: notifications, indications, and requests in its own client role.
@Suite("GATTClient: notifications, indications and the peer's requests")
struct GATTClientPushTests {
    @Test("A notification is delivered with the time it arrived; nothing is sent back")
    func notification() {
        var h = Harness()
        h.now = RigInstant(sinceOrigin: .milliseconds(1500))
        let event = GATT.ValueEvent(handle: 3, value: [1, 2], kind: .notification, received: h.now)
        #expect(h.receive(ATT.HandleValueNotification(handle: 3, value: [1, 2])) == [.deliver(event)])
        #expect(h.client.statistics.notificationsReceived == 1)
    }

    @Test("An indication is delivered and answered with a Handle Value Confirmation")
    func indication() {
        var h = Harness()
        let event = GATT.ValueEvent(handle: 9, value: [7], kind: .indication, received: h.now)
        #expect(
            h.receive(ATT.HandleValueIndication(handle: 9, value: [7]))
                == [.deliver(event), .reply(ATT.HandleValueConfirmation().encoded)])
        #expect(h.client.statistics.indicationsReceived == 1)
        #expect(h.client.statistics.repliesSent == 1)
    }

    @Test("A Multiple Handle Value Notification delivers each value in order")
    func multipleNotification() {
        var h = Harness()
        let pdu = ATT.MultipleHandleValueNotification(entries: [
            .init(handle: 3, value: [1]), .init(handle: 7, value: [2, 3]),
        ])
        #expect(
            h.receive(pdu) == [
                .deliver(GATT.ValueEvent(handle: 3, value: [1], kind: .notification, received: h.now)),
                .deliver(GATT.ValueEvent(handle: 7, value: [2, 3], kind: .notification, received: h.now)),
            ])
        #expect(h.client.statistics.notificationsReceived == 2)
    }

    @Test("Pushes interleave with a running procedure without disturbing it")
    func pushDuringProcedure() {
        var h = Harness()
        let (id, _) = h.start(.read(3))
        #expect(h.receive(ATT.HandleValueNotification(handle: 5, value: [1])).count == 1)
        #expect(h.receive(ATT.ReadResponse(value: [4])) == [.done(id, .value([4]))])
    }

    @Test(
        "Malformed pushes are counted and dropped; a malformed indication is still confirmed",
        arguments: [([UInt8]([0x1B, 0x03]), false), ([0x1D], true), ([0x23, 0x03, 0x00, 0x05, 0x00, 0x01], false)])
    func malformedPush(pdu: [UInt8], confirmed: Bool) {
        var h = Harness()
        #expect(h.receive(bytes: pdu) == (confirmed ? [.reply(ATT.HandleValueConfirmation().encoded)] : []))
        #expect(h.client.statistics.ignoredPDUs == 1)
    }

    @Test("A response with no request outstanding, or a command, is counted and ignored")
    func unsolicitedResponse() {
        var h = Harness()
        #expect(h.receive(ATT.ReadResponse(value: [1])) == [])
        #expect(h.receive(ATT.WriteCommand(handle: 1, value: [1])) == [])
        #expect(h.client.statistics.ignoredPDUs == 2)
        #expect(h.client.statistics.responsesReceived == 0)
    }

    @Test("The peer's Exchange MTU Request is answered with the local MTU and sets the ATT_MTU")
    func peerExchangesMTU() {
        var h = Harness(GATTClient(localMTU: 247))
        #expect(
            h.receive(ATT.ExchangeMTURequest(clientRxMTU: 100)) == [
                .reply(ATT.ExchangeMTUResponse(serverRxMTU: 247).encoded)
            ])
        #expect(h.client.mtu == 100)
    }

    @Test(
        "The peer's other requests are answered as by a server without attributes",
        arguments: [
            (
                ATT.PDU.readRequest(.init(handle: 3)),
                ATT.ErrorResponse(requestOpcode: .readRequest, handle: 3, error: .invalidHandle).encoded
            ),
            (
                .readByGroupTypeRequest(
                    .init(startingHandle: 1, endingHandle: 0xFFFF, groupType: BluetoothUUID(0x2800))),
                ATT.ErrorResponse(requestOpcode: .readByGroupTypeRequest, handle: 1, error: .attributeNotFound).encoded
            ),
            (
                .writeRequest(.init(handle: 7, value: [1])),
                ATT.ErrorResponse(requestOpcode: .writeRequest, handle: 7, error: .invalidHandle).encoded
            ),
            (.executeWriteRequest(.init(flags: .write)), ATT.ExecuteWriteResponse().encoded),
        ])
    func peerRequests(request: ATT.PDU, answer: [UInt8]) {
        var h = Harness()
        let (id, _) = h.start(.read(3))
        #expect(h.receive(bytes: request.encoded) == [.reply(answer)])
        #expect(h.client.activeOperation == id, "the client's own request is still outstanding")
    }

    @Test("A malformed request from the peer gets Invalid PDU")
    func malformedPeerRequest() {
        var h = Harness()
        #expect(
            h.receive(bytes: [0x0A, 0x03])
                == [.reply(ATT.ErrorResponse(requestOpcode: .readRequest, handle: 0, error: .invalidPDU).encoded)])
    }
}

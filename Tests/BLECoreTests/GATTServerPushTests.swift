import Testing

@testable import BLECore

@Suite("GATT server notifications and indications")
struct GATTServerPushTests {
    @Test("notifications go only to subscribed clients, truncated to their ATT_MTU − 3")
    func notifySubscribers() throws {
        var harness = try GATTServerHarness()
        #expect(harness.server.notify(8, value: [0x37]).isEmpty)  // nobody subscribed yet
        _ = harness.receive("12 0900 0100", from: 1)
        _ = harness.receive("02 4000", from: 2)
        _ = harness.receive("12 0900 0100", from: 2)
        _ = harness.receive("12 0900 0100", from: 3)
        _ = harness.receive("12 0900 0000", from: 3)
        let value = Array(UInt8(0)..<70)
        #expect(
            harness.server.notify(8, value: value) == [
                sendPDU("1B 0800 " + bytesHex(value.prefix(20)), to: 1),
                sendPDU("1B 0800 " + bytesHex(value.prefix(61)), to: 2),
            ])
        #expect(harness.server.notify(8, value: [1], to: 2) == [sendPDU("1B 0800 01", to: 2)])
        #expect(harness.server.notify(8, value: [1], to: 3).isEmpty)
        #expect(harness.server.subscribers(8, for: .notifications) == [1, 2])
    }

    @Test("a notified value need not be stored: setValue is separate")
    func setValueDoesNotNotify() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("12 0900 0100")
        harness.server.setValue([42], for: 8)
        #expect(harness.receive("0A 0800") == [sendPDU("0B 2A")])
        #expect(harness.server.notify(8, value: [42]) == [sendPDU("1B 0800 2A")])
    }

    @Test("one indication at a time per client: later ones queue until the confirmation")
    func indicationsQueue() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("12 1200 0200", from: 1)
        _ = harness.receive("12 1200 0200", from: 2)
        #expect(
            harness.server.indicate(17, value: [0x81]) == [sendPDU("1D 1100 81", to: 1), sendPDU("1D 1100 81", to: 2)])
        #expect(harness.server.indicate(17, value: [0x82]).isEmpty)
        #expect(harness.server.indicate(17, value: [0x83], to: 1).isEmpty)
        #expect(harness.server.pendingIndicationCount(for: 1) == 3)
        #expect(harness.receive("1E", from: 1) == [sendPDU("1D 1100 82", to: 1)])
        #expect(harness.receive("1E", from: 1) == [sendPDU("1D 1100 83", to: 1)])
        #expect(harness.receive("1E", from: 1).isEmpty)
        #expect(harness.receive("1E", from: 1).isEmpty)  // nothing outstanding: ignored
        #expect(harness.server.pendingIndicationCount(for: 1) == 0)
        #expect(harness.server.pendingIndicationCount(for: 2) == 2)
        #expect(harness.app.events.suffix(3) == [.confirmed(17, 1), .confirmed(17, 1), .confirmed(17, 1)])
    }

    @Test("queued indications for a client that unsubscribed are dropped")
    func unsubscribedIndicationsDropped() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("12 1200 0200")
        #expect(harness.server.indicate(17, value: [1]) == [sendPDU("1D 1100 01")])
        #expect(harness.server.indicate(17, value: [2]).isEmpty)
        _ = harness.receive("12 1200 0000")
        #expect(harness.receive("1E").isEmpty)
        #expect(harness.server.pendingIndicationCount(for: 1) == 0)
    }

    @Test("an indication is truncated to ATT_MTU − 3 when it is sent")
    func indicationTruncated() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("12 1200 0200")
        let value = Array(UInt8(0)..<30)
        #expect(harness.server.indicate(17, value: value) == [sendPDU("1D 1100 " + bytesHex(value.prefix(20)))])
    }

    @Test("requests are still answered while an indication is outstanding")
    func requestsDuringIndication() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("12 1200 0200")
        _ = harness.server.indicate(17, value: [1])
        #expect(harness.receive("0A 0800") == [sendPDU("0B 64")])
    }

    @Test("disconnecting forgets subscriptions, MTU and queues; the connection starts afresh")
    func disconnectForgetsState() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("02 F700")
        _ = harness.receive("12 1200 0200")
        _ = harness.receive("12 0900 0100")
        _ = harness.server.indicate(17, value: [1])
        _ = harness.server.indicate(17, value: [2])
        harness.server.disconnect(1)
        #expect(harness.server.connectionIDs == [])
        #expect(harness.server.pendingIndicationCount(for: 1) == 0)
        #expect(harness.server.notify(8, value: [1]).isEmpty)
        #expect(harness.server.mtu(of: 1) == 23)
        harness.server.connect(1)
        #expect(harness.receive("0A 0900") == [sendPDU("0B 0000")])
        #expect(harness.receive("1E").isEmpty)
    }

    /// How a board model answers a control-point write with an indication: the application notes the request,
    /// and once `receive` returned (with the Write Response) the board pushes the result.
    @Test("a board model indicates the result of a write after the Write Response")
    func indicateAfterWrite() throws {
        var harness = try GATTServerHarness()
        harness.app.authenticated.insert(1)
        _ = harness.receive("12 1200 0200")
        var actions = harness.receive("12 1100 01")
        if case .write(let request, .request, 0x11, 1)? = harness.app.events.last, request == [0x01] {
            actions += harness.server.indicate(0x11, value: [0x81, 0x00])
        }
        #expect(actions == [sendPDU("13"), sendPDU("1D 1100 8100")])
    }
}

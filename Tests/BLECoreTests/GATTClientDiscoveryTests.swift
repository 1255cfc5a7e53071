import Testing

@testable import BLECore

private typealias Harness = GATTClientTesting.Harness

/// The MTU exchange and the discovery procedures, step by step, with every action the client emits asserted.
@Suite("GATTClient: MTU exchange and discovery")
struct GATTClientDiscoveryTests {
    private let custom = BluetoothUUID("e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20")!

    @Test("Exchange MTU takes min(client, server) and is sent only once per link")
    func exchangeMTUOnce() {
        var h = Harness()
        let (first, started) = h.start(.exchangeMTU(preferred: 247))
        #expect(started == [.request(ATT.ExchangeMTURequest(clientRxMTU: 247))])
        #expect(h.receive(ATT.ExchangeMTUResponse(serverRxMTU: 185)) == [.done(first, .mtu(185))])
        #expect(h.client.mtu == 185)
        let (second, again) = h.start(.exchangeMTU(preferred: 517))
        #expect(again == [.done(second, .mtu(185))])
        #expect(h.client.statistics.requestsSent == 1)
    }

    @Test(
        "Exchange MTU clamps the request to 23...517 and ignores a server MTU below 23",
        arguments: [(UInt16(10), UInt16(100), UInt16(23), UInt16(23)), (1000, 600, 517, 517), (100, 5, 100, 23)])
    func exchangeMTUClamps(preferred: UInt16, server: UInt16, requested: UInt16, effective: UInt16) {
        var h = Harness()
        let (id, started) = h.start(.exchangeMTU(preferred: preferred))
        #expect(started == [.request(ATT.ExchangeMTURequest(clientRxMTU: requested))])
        #expect(h.receive(ATT.ExchangeMTUResponse(serverRxMTU: server)) == [.done(id, .mtu(effective))])
    }

    @Test("Discover all primary services reads groups until Attribute Not Found, in 16- and 128-bit forms")
    func discoverAllPrimaryServices() {
        var h = Harness()
        let (id, started) = h.start(.discoverPrimaryServices(nil))
        #expect(started == [.request(Self.readGroups(from: 0x0001))])
        let first = ATT.ReadByGroupTypeResponse(entries: [
            .init(handle: 0x0001, endGroupHandle: 0x0005, value: [0x00, 0x18]),
            .init(handle: 0x0006, endGroupHandle: 0x0009, value: [0x0A, 0x18]),
        ])
        #expect(h.receive(first) == [.request(Self.readGroups(from: 0x000A))])
        let second = ATT.ReadByGroupTypeResponse(entries: [
            .init(handle: 0x0010, endGroupHandle: 0x0020, value: custom.attBytes)
        ])
        #expect(h.receive(second) == [.request(Self.readGroups(from: 0x0021))])
        let services = [
            GATT.Service(uuid: BluetoothUUID(0x1800), handles: 0x0001...0x0005),
            GATT.Service(uuid: BluetoothUUID(0x180A), handles: 0x0006...0x0009),
            GATT.Service(uuid: custom, handles: 0x0010...0x0020),
        ]
        let notFound = ATT.ErrorResponse(
            requestOpcode: .readByGroupTypeRequest, handle: 0x0021, error: .attributeNotFound)
        #expect(h.receive(notFound) == [.done(id, .services(services))])
        #expect(h.client.isIdle)
    }

    @Test("A service group ending at 0xFFFF ends the discovery without another request")
    func discoveryStopsAtTheLastHandle() {
        var h = Harness()
        let (id, _) = h.start(.discoverPrimaryServices(nil))
        let last = ATT.ReadByGroupTypeResponse(entries: [
            .init(handle: 0x0001, endGroupHandle: 0xFFFF, value: [0x0F, 0x18])
        ])
        #expect(
            h.receive(last) == [.done(id, .services([GATT.Service(uuid: BluetoothUUID(0x180F), handles: 1...0xFFFF)]))])
    }

    @Test("Discover primary service by UUID uses Find By Type Value and loops past each group")
    func discoverServiceByUUID() {
        var h = Harness()
        let (id, started) = h.start(.discoverPrimaryServices(custom))
        let find = { (start: UInt16) in
            ATT.FindByTypeValueRequest(
                startingHandle: start, endingHandle: 0xFFFF, attributeType: GATT.AttributeType.primaryService,
                value: self.custom.attBytes)
        }
        #expect(started == [.request(find(0x0001))])
        let found = ATT.FindByTypeValueResponse(handles: [.init(foundHandle: 0x0010, groupEndHandle: 0x0020)])
        #expect(h.receive(found) == [.request(find(0x0021))])
        let notFound = ATT.ErrorResponse(
            requestOpcode: .findByTypeValueRequest, handle: 0x0021, error: .attributeNotFound)
        #expect(h.receive(notFound) == [.done(id, .services([GATT.Service(uuid: custom, handles: 0x0010...0x0020)]))])
    }

    @Test("Discover characteristics reads declarations over the service range and derives each end handle")
    func discoverCharacteristics() {
        var h = Harness()
        let service = GATT.Service(uuid: custom, handles: 0x0001...0x000A)
        let (id, started) = h.start(.discoverCharacteristics(service))
        #expect(started == [.request(Self.readDeclarations(from: 0x0001, to: 0x000A))])
        let first = ATT.ReadByTypeResponse(entries: [
            .init(handle: 0x0002, value: [0x02, 0x03, 0x00, 0x00, 0x2A]),
            .init(handle: 0x0004, value: [0x1A, 0x05, 0x00, 0x01, 0x2A]),
        ])
        #expect(h.receive(first) == [.request(Self.readDeclarations(from: 0x0006, to: 0x000A))])
        let uuid = BluetoothUUID("e5b10101-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
        let second = ATT.ReadByTypeResponse(entries: [.init(handle: 0x0007, value: [0x30, 0x08, 0x00] + uuid.attBytes)])
        #expect(h.receive(second) == [.request(Self.readDeclarations(from: 0x0009, to: 0x000A))])
        let expected = [
            GATT.Characteristic(
                uuid: BluetoothUUID(0x2A00), properties: .read, declarationHandle: 2, valueHandle: 3, endHandle: 3),
            GATT.Characteristic(
                uuid: BluetoothUUID(0x2A01), properties: [.read, .write, .notify], declarationHandle: 4, valueHandle: 5,
                endHandle: 6),
            GATT.Characteristic(
                uuid: uuid, properties: [.notify, .indicate], declarationHandle: 7, valueHandle: 8, endHandle: 0x0A),
        ]
        let notFound = ATT.ErrorResponse(requestOpcode: .readByTypeRequest, handle: 0x0009, error: .attributeNotFound)
        #expect(h.receive(notFound) == [.done(id, .characteristics(expected))])
    }

    @Test("A value at the service's last handle ends characteristic discovery without another request")
    func characteristicDiscoveryStopsAtTheEnd() {
        var h = Harness()
        let (id, _) = h.start(.discoverCharacteristics(GATT.Service(uuid: custom, handles: 0x0001...0x0003)))
        let response = ATT.ReadByTypeResponse(entries: [.init(handle: 0x0002, value: [0x02, 0x03, 0x00, 0x00, 0x2A])])
        let only = GATT.Characteristic(
            uuid: BluetoothUUID(0x2A00), properties: .read, declarationHandle: 2, valueHandle: 3, endHandle: 3)
        #expect(h.receive(response) == [.done(id, .characteristics([only]))])
    }

    @Test("Discover descriptors uses Find Information over the handles after the value")
    func discoverDescriptors() {
        var h = Harness()
        let characteristic = GATT.Characteristic(
            uuid: BluetoothUUID(0x2A37), properties: .notify, declarationHandle: 2, valueHandle: 3, endHandle: 6)
        let (id, started) = h.start(.discoverDescriptors(characteristic))
        #expect(started == [.request(ATT.FindInformationRequest(startingHandle: 4, endingHandle: 6))])
        let first = ATT.FindInformationResponse(entries: [
            .init(handle: 4, type: GATT.AttributeType.clientCharacteristicConfiguration),
            .init(handle: 5, type: GATT.AttributeType.characteristicUserDescription),
        ])
        #expect(h.receive(first) == [.request(ATT.FindInformationRequest(startingHandle: 6, endingHandle: 6))])
        let second = ATT.FindInformationResponse(entries: [.init(handle: 6, type: custom)])
        let expected = [
            GATT.Descriptor(uuid: GATT.AttributeType.clientCharacteristicConfiguration, handle: 4),
            GATT.Descriptor(uuid: GATT.AttributeType.characteristicUserDescription, handle: 5),
            GATT.Descriptor(uuid: custom, handle: 6),
        ]
        #expect(h.receive(second) == [.done(id, .descriptors(expected))])
    }

    @Test("A characteristic with no handles after its value has no descriptors and needs no request")
    func noDescriptorHandles() {
        var h = Harness()
        let characteristic = GATT.Characteristic(
            uuid: BluetoothUUID(0x2A00), properties: .read, declarationHandle: 2, valueHandle: 3, endHandle: 3)
        let (id, started) = h.start(.discoverDescriptors(characteristic))
        #expect(started == [.done(id, .descriptors([]))])
        #expect(h.client.statistics.requestsSent == 0)
    }

    @Test("Attribute Not Found on the first request is an empty result, for every discovery")
    func emptyDiscoveries() {
        let service = GATT.Service(uuid: custom, handles: 0x0001...0x0001)
        let characteristic = GATT.Characteristic(
            uuid: custom, properties: .read, declarationHandle: 1, valueHandle: 2, endHandle: 4)
        let cases: [(GATTClient.Procedure, ATT.Opcode, GATTClient.Outcome)] = [
            (.discoverPrimaryServices(nil), .readByGroupTypeRequest, .services([])),
            (.discoverPrimaryServices(custom), .findByTypeValueRequest, .services([])),
            (.discoverCharacteristics(service), .readByTypeRequest, .characteristics([])),
            (.discoverDescriptors(characteristic), .findInformationRequest, .descriptors([])),
        ]
        for (procedure, request, outcome) in cases {
            var h = Harness()
            let (id, _) = h.start(procedure)
            let notFound = ATT.ErrorResponse(requestOpcode: request, handle: 1, error: .attributeNotFound)
            #expect(h.receive(notFound) == [.done(id, outcome)], "\(procedure.summary)")
        }
    }

    @Test("Any other Error Response ends a discovery with the ATT error")
    func discoveryError() {
        var h = Harness()
        let (id, _) = h.start(.discoverPrimaryServices(nil))
        let error = ATT.ErrorResponse(
            requestOpcode: .readByGroupTypeRequest, handle: 1, error: .insufficientAuthentication)
        #expect(
            h.receive(error)
                == [.failed(id, .att(.insufficientAuthentication, request: .readByGroupTypeRequest, handle: 1))])
    }

    static func readGroups(from start: UInt16) -> ATT.ReadByGroupTypeRequest {
        ATT.ReadByGroupTypeRequest(
            startingHandle: start, endingHandle: 0xFFFF, groupType: GATT.AttributeType.primaryService)
    }

    static func readDeclarations(from start: UInt16, to end: UInt16) -> ATT.ReadByTypeRequest {
        ATT.ReadByTypeRequest(
            startingHandle: start, endingHandle: end, attributeType: GATT.AttributeType.characteristic)
    }
}

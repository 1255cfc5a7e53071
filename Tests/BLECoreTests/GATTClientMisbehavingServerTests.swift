import Testing

@testable import BLECore

private typealias Harness = GATTClientTesting.Harness

/// A server that answers with junk, repeats handles or answers the wrong opcode: every case ends the procedure
/// with `.invalidResponse` saying what and where, and nothing traps or loops.
@Suite("GATTClient: a misbehaving server")
struct GATTClientMisbehavingServerTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var procedure: GATTClient.Procedure
        /// Valid answers first, then the bad one, as raw PDUs.
        var answers: [[UInt8]]
        /// Must appear in the error message.
        var says: String

        var testDescription: String { name }
    }

    private static let service = GATT.Service(uuid: BluetoothUUID(0x180F), handles: 0x0001...0x0010)
    private static let characteristic = GATT.Characteristic(
        uuid: BluetoothUUID(0x2A19), properties: .read, declarationHandle: 2, valueHandle: 3, endHandle: 8)

    private static func groups(_ entries: [(UInt16, UInt16)]) -> [UInt8] {
        ATT.ReadByGroupTypeResponse(
            entries: entries.map { .init(handle: $0.0, endGroupHandle: $0.1, value: [0x0F, 0x18]) }
        )
        .encoded
    }

    private static func declarations(_ entries: [(UInt16, UInt16)]) -> [UInt8] {
        ATT.ReadByTypeResponse(
            entries: entries.map {
                .init(handle: $0.0, value: [0x02, UInt8($0.1 & 0xFF), UInt8($0.1 >> 8), 0x19, 0x2A])
            }
        ).encoded
    }

    private static func information(_ handles: [UInt16]) -> [UInt8] {
        ATT.FindInformationResponse(entries: handles.map { .init(handle: $0, type: BluetoothUUID(0x2901)) }).encoded
    }

    static let cases: [Case] = [
        Case(
            name: "wrong response opcode", procedure: .read(3), answers: [ATT.WriteResponse().encoded],
            says: "got Write Response"),
        Case(
            name: "unexpected confirmation", procedure: .write([1], to: 3),
            answers: [ATT.HandleValueConfirmation().encoded], says: "got Handle Value Confirmation"),
        Case(name: "empty PDU", procedure: .read(3), answers: [[]], says: "truncated"),
        Case(name: "unknown opcode", procedure: .read(3), answers: [[0x3F, 0x01]], says: "not an ATT opcode"),
        Case(
            name: "undecodable response", procedure: .discoverPrimaryServices(nil),
            answers: [[0x11, 0x03, 0x01, 0x00, 0x05]], says: "length"),
        Case(
            name: "error response for another request", procedure: .read(3),
            answers: [ATT.ErrorResponse(requestOpcode: .writeRequest, handle: 3, error: .invalidHandle).encoded],
            says: "names Write Request as the failed request"),
        Case(
            name: "service handles repeat across responses", procedure: .discoverPrimaryServices(nil),
            answers: [groups([(1, 5)]), groups([(1, 5)])],
            says: "service at 0x0001 does not follow the previous one, which ends at 0x0005"),
        Case(
            name: "service handles go backwards in one response", procedure: .discoverPrimaryServices(nil),
            answers: [groups([(6, 9), (1, 5)])], says: "does not follow the previous one"),
        Case(
            name: "service ends before it starts", procedure: .discoverPrimaryServices(nil),
            answers: [groups([(5, 3)])], says: "ends at 0x0003, before it starts"),
        Case(
            name: "service UUID of 4 bytes", procedure: .discoverPrimaryServices(nil),
            answers: [
                ATT.ReadByGroupTypeResponse(entries: [.init(handle: 1, endGroupHandle: 2, value: [1, 2, 3, 4])]).encoded
            ],
            says: "4-byte UUID"),
        Case(
            name: "service after one ending at 0xFFFF", procedure: .discoverPrimaryServices(nil),
            answers: [groups([(1, 0xFFFF), (0x10, 0x20)])], says: "does not follow"),
        Case(
            name: "found service ends before it starts", procedure: .discoverPrimaryServices(BluetoothUUID(0x180F)),
            answers: [ATT.FindByTypeValueResponse(handles: [.init(foundHandle: 9, groupEndHandle: 2)]).encoded],
            says: "before it starts"),
        Case(
            name: "characteristic declarations repeat", procedure: .discoverCharacteristics(service),
            answers: [declarations([(2, 3)]), declarations([(2, 3)])], says: "lies outside 0x0004...0x0010"),
        Case(
            name: "characteristic value handle before its declaration", procedure: .discoverCharacteristics(service),
            answers: [declarations([(4, 4)])], says: "names value handle 0x0004"),
        Case(
            name: "characteristic value handle beyond the service", procedure: .discoverCharacteristics(service),
            answers: [declarations([(4, 0x0011)])], says: "outside 0x0004+1...0x0010"),
        Case(
            name: "characteristic declaration beyond the service", procedure: .discoverCharacteristics(service),
            answers: [declarations([(0x0020, 0x0021)])], says: "lies outside 0x0001...0x0010"),
        Case(
            name: "characteristic declaration of 6 bytes", procedure: .discoverCharacteristics(service),
            answers: [ATT.ReadByTypeResponse(entries: [.init(handle: 2, value: [2, 3, 0, 0x19, 0x2A, 0])]).encoded],
            says: "holds 6 byte(s)"),
        Case(
            name: "descriptor handles repeat", procedure: .discoverDescriptors(characteristic),
            answers: [information([4, 5]), information([5])], says: "handles must increase"),
        Case(
            name: "descriptor outside the characteristic", procedure: .discoverDescriptors(characteristic),
            answers: [information([9])], says: "lies outside 0x0004...0x0008"),
        Case(
            name: "read part longer than ATT_MTU − 1", procedure: .read(3),
            answers: [ATT.ReadResponse(value: Array(repeating: 0, count: 23)).encoded], says: "exceeds ATT_MTU − 1 = 22"
        ),
        Case(
            name: "read multiple longer than ATT_MTU − 1", procedure: .readMultiple([3, 4]),
            answers: [ATT.ReadMultipleResponse(values: Array(repeating: 0, count: 30)).encoded],
            says: "exceed ATT_MTU − 1"),
        Case(
            name: "more variable values than handles", procedure: .readMultipleVariable([3, 4]),
            answers: [ATT.ReadMultipleVariableResponse(values: [[1], [2], [3]]).encoded], says: "3 values for 2 handles"
        ),
        Case(
            name: "MTU response to a read", procedure: .read(3),
            answers: [ATT.ExchangeMTUResponse(serverRxMTU: 23).encoded],
            says: "got Exchange MTU Response"),
    ]

    @Test("A bad answer ends the procedure with .invalidResponse that says what and where", arguments: cases)
    func badAnswerEndsTheProcedure(_ bad: Case) throws {
        var h = Harness()
        let (id, started) = h.start(bad.procedure)
        #expect(started.count == 1)
        var actions: [GATTClient.Action] = []
        for answer in bad.answers { actions = h.receive(bytes: answer) }
        #expect(actions.count == 1, "one completion and no further request: \(actions)")
        let action = try #require(actions.first)
        guard case .complete(let completed, .failure(.invalidResponse(let message))) = action else {
            Issue.record("expected an invalid-response completion, got \(action)")
            return
        }
        #expect(completed == id)
        #expect(message.contains(bad.says), "\(message)")
        #expect(message.contains("answering"), "names the request it answered: \(message)")
        #expect(h.client.isIdle)
    }

    @Test("A Prepare Write echo that differs cancels the queue, then fails with what differed")
    func mismatchedEchoCancels() throws {
        var h = Harness()
        let (id, _) = h.start(.write(Array(repeating: 7, count: 30), to: 5))
        let bent = ATT.PrepareWriteResponse(handle: 5, offset: 0, value: Array(repeating: 8, count: 18))
        #expect(h.receive(bent) == [.request(ATT.ExecuteWriteRequest(flags: .cancel))])
        let actions = h.receive(ATT.ExecuteWriteResponse())
        let error = try #require(actions.first?.failure)
        #expect(actions.count == 1)
        #expect(error.description.contains("the bytes differ"))
        #expect(actions.first == .failed(id, error))
    }

    @Test(
        "Any bad answer to a Prepare Write still cancels the queue",
        arguments: [
            [0x17, 0x05],
            ATT.ErrorResponse(requestOpcode: .readRequest, handle: 5, error: .invalidHandle).encoded,
            ATT.WriteResponse().encoded,
        ])
    func badAnswerDuringLongWriteCancels(answer: [UInt8]) {
        var h = Harness()
        _ = h.start(.write(Array(repeating: 7, count: 30), to: 5))
        #expect(h.receive(bytes: answer) == [.request(ATT.ExecuteWriteRequest(flags: .cancel))])
    }

    @Test("A server that always sends full Read Blob parts is cut off at 512 bytes")
    func endlessBlobs() {
        var h = Harness()
        _ = h.start(.read(3))
        var actions = h.receive(ATT.ReadResponse(value: Array(repeating: 1, count: 22)))
        var rounds = 0
        while case .send = actions.first, rounds < 100 {
            actions = h.receive(ATT.ReadBlobResponse(value: Array(repeating: 1, count: 22)))
            rounds += 1
        }
        #expect(rounds < 30)
        #expect(h.client.isIdle)
    }

    @Test("Random answers from the server never trap and end every procedure within a bounded exchange")
    func randomAnswers() {
        var random = SplitMix64(seed: 0x6A77_C0DE)
        let responses: [ATT.Opcode] = [
            .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
            .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse, .readByGroupTypeResponse,
            .writeResponse, .prepareWriteResponse, .executeWriteResponse, .readMultipleVariableResponse,
        ]
        let procedures: [GATTClient.Procedure] = [
            .exchangeMTU(preferred: 247), .discoverPrimaryServices(nil),
            .discoverPrimaryServices(BluetoothUUID(0x180F)),
            .discoverCharacteristics(Self.service), .discoverDescriptors(Self.characteristic), .read(3),
            .readMultiple([3, 4]), .readMultipleVariable([3, 4]), .write([1, 2], to: 3),
            .write(Array(repeating: 1, count: 100), to: 3),
        ]
        for round in 0..<2_000 {
            var h = Harness()
            let (id, _) = h.start(procedures[round % procedures.count])
            var completed = false
            for _ in 0..<200 where !completed {
                var pdu = [responses[Int(random.next() % UInt64(responses.count))].rawValue]
                pdu += (0..<Int(random.next() % 24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                completed = h.receive(bytes: pdu).contains { if case .complete(id, _) = $0 { true } else { false } }
            }
            #expect(completed, "round \(round): \(procedures[round % procedures.count].summary) never ended")
        }
    }
}

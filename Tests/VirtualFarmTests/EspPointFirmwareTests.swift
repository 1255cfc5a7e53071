import BLECore
import CentralStack
import DeviceProfiles
import Testing

@testable import VirtualFarm

@Suite("EspPointFirmware: the esp-point test firmware against the central stack")
struct EspPointFirmwareTests {
    static let name = "ESP-Point-1a2b"
    static let v142 = FirmwareVersion(1, 4, 2)

    // MARK: Boot and advertising

    @Test("boot prints BOOT with bank A and reset=POWERON, then READY with the name and address at 350 ms")
    func consoleBootAndReady() async throws {
        let (lines, readyAt) = try await EspRig.run { rig in (rig.board.console, rig.board.readyAt) }
        guard case let .boot(firmware, bank, reset, _) = lines.first?.line else {
            Issue.record("the first line is not BOOT: \(lines.map(\.line))")
            return
        }
        #expect(firmware == Self.v142)
        #expect(bank == "A")
        #expect(reset == .powerOn)
        #expect(lines.last?.line == .ready(name: Self.name, address: EspRig.address))
        #expect(lines.last?.at == RigInstant(sinceOrigin: .milliseconds(350)))
        #expect(readyAt == RigInstant(sinceOrigin: .milliseconds(350)))
        #expect(lines.contains { $0.line.description.hasSuffix("I/PAIR: pairing mode") })
        for (_, line) in lines { #expect(ConsoleLine(parsing: line.description) == line) }
    }

    @Test("advertising: flags 0x06, Sensor service and manufacturer status in 31 bytes; the name in the scan response")
    func advertisingContents() async throws {
        try await EspRig.run { rig in
            let state = try #require(rig.board.advertising)
            #expect(state.data.flags?.rawValue == 0x06)
            #expect(
                state.data.structures(of: .completeServiceUUIDs128) == [
                    .serviceUUIDs([EspPoint.sensorService], width: .bits128, complete: true)
                ])
            #expect(state.data.localName == nil)
            #expect(try state.data.encoded().count == 30)
            #expect(state.scanResponse.localName == Self.name)
            let manufacturer = try #require(state.data.manufacturerData(for: EspPoint.companyIdentifier))
            #expect(manufacturer == [1, 4, 2, 0, 0x02])
            #expect(try EspPoint.ManufacturerStatus(decoding: manufacturer).flags == .pairingMode)

            // What an active scanner receives: the advertisement and the scan response together. (Scanning through
            // VirtualCentral is not used here: VirtualAir re-arms an advertising event at the instant it fires.)
            let seen = state.data.merged(with: state.scanResponse)
            #expect(
                ScanFilter(services: [EspPoint.sensorService], namePrefixes: ["ESP-Point-"]).accepts(
                    seen, from: rig.board.address))
            #expect(seen.localName == Self.name)
        }
    }

    @Test("the manufacturer flags follow the backlog and pairing mode")
    func advertisedFlagsStayCurrent() async throws {
        let flags = try await EspRig.run { rig in
            func current() throws -> EspPoint.ManufacturerStatus.Flags {
                let state = try #require(rig.board.advertising)
                return try EspPoint.ManufacturerStatus(
                    decoding: #require(state.data.manufacturerData(for: EspPoint.companyIdentifier))
                ).flags
            }
            var seen = [try current()]
            rig.board.type("log-fill 3")
            seen.append(try current())
            try await rig.pair()
            seen.append(try current())
            try await rig.withAuthenticatedClient { client in try await client.acknowledgeLog(upTo: 3) }
            seen.append(try current())
            rig.board.type("pair")
            seen.append(try current())
            return seen
        }
        #expect(flags == [.pairingMode, [.pairingMode, .backlogPresent], .backlogPresent, [], .pairingMode])
    }

    @Test("the stack's handshake finds the whole table with the contract's properties and identity")
    func fullTableDiscovered() async throws {
        try await EspRig.run { rig in
            try await rig.withClient { (client) async throws in
                let session = client.session
                #expect(session.mtu == 247)
                #expect(
                    Set(session.services.map(\.uuid)) == [
                        GATT.GenericAttribute.service, StandardUUID.deviceInformation, StandardUUID.battery,
                        EspPoint.sensorService,
                        EspPoint.commandService, EspPoint.otaService,
                    ])
                let expected: [(BluetoothUUID, GATT.CharacteristicProperties)] = [
                    (StandardUUID.manufacturerName, .read), (StandardUUID.modelNumber, .read),
                    (StandardUUID.serialNumber, .read), (StandardUUID.firmwareRevision, .read),
                    (StandardUUID.batteryLevel, [.read, .notify]), (EspPoint.reading, [.read, .notify]),
                    (EspPoint.logControl, [.write, .indicate]), (EspPoint.logData, .notify),
                    (EspPoint.command, .write), (EspPoint.commandStatus, [.read, .notify]),
                    (EspPoint.auth, [.read, .write]), (EspPoint.otaControl, [.write, .notify]),
                    (EspPoint.otaData, .writeWithoutResponse),
                ]
                #expect(session.characteristics.count == expected.count)
                for (uuid, properties) in expected {
                    #expect(session.characteristics[uuid]?.properties == properties, "\(uuid)")
                }
                #expect(
                    try await client.identity()
                        == BoardIdentity(
                            manufacturer: "Espressif Systems", model: "esp-point", serial: "240AC4121A2B",
                            firmware: "1.4.2"))
                #expect(try await client.batteryLevel().percent == 87)
                let reading = try await client.latestReading()
                #expect(reading.sequence == 0)
                #expect(reading.batteryMillivolts == 3300 + 783)
            }
        }
    }

    @Test("the MTU goes up to 517")
    func largestMTU() async throws {
        let mtu = try await EspRig.run { rig in try await rig.withClient(mtu: 517) { $0.session.mtu } }
        #expect(mtu == 517)
    }

    // MARK: Pairing and authentication

    @Test("pairing stores the key; a later connection authenticates with it and commands work")
    func pairThenAuthenticateLater() async throws {
        let (nonceLength, lines) = try await EspRig.run { rig in
            let nonce = try await rig.withClient { client in try await client.send(.pairBegin) }
            try await rig.withClient { (client) async throws in
                // PAIR_CONFIRM belongs to a PAIR_BEGIN on the same connection.
                await #expect(throws: SessionError.commandFailed(opcode: 0x07, status: .notInPairingMode)) {
                    try await client.send(.pairConfirm(key: EspRig.key))
                }
                try await client.pair(key: EspRig.key)
                #expect(rig.firmware.auth.key == EspRig.key)
                #expect(!rig.firmware.auth.pairingMode)
                // Pairing does not authenticate the connection.
                #expect(await attError { try await client.setLED(on: true) } == .insufficientAuthentication)
            }
            try await rig.withClient { (client) async throws in
                await #expect(throws: SessionError.commandFailed(opcode: 0x06, status: .notInPairingMode)) {
                    try await client.send(.pairBegin)
                }
                try await client.authenticate(key: EspRig.key)
                try await client.setLED(on: true)
            }
            #expect(rig.firmware.commands.ledOn)
            return (nonce.count, rig.consoleText)
        }
        #expect(nonceLength == 16)
        #expect(lines.contains { $0.hasSuffix("I/PAIR: paired: key stored") })
        #expect(lines.contains { $0.hasSuffix("I/AUTH: ok") })
    }

    @Test("ensureAuthenticated pairs an unpaired board and authenticates, then authenticates on the next connection")
    func ensureAuthenticatedRoundTrip() async throws {
        let paired = try await EspRig.run { rig in
            let keys = InMemoryKeyStore()
            let first = try await rig.withClient { try await $0.ensureAuthenticated(keys: keys) { EspRig.key } }
            let second = try await rig.withClient { (client) async throws in
                let paired = try await client.ensureAuthenticated(keys: keys) {
                    Issue.record("asked for a new key")
                    return []
                }
                try await client.setTime(unix: 1_800_000_000)
                return paired
            }
            return [first, second]
        }
        #expect(paired == [true, false])
    }

    @Test("a wrong answer fails with 0x0E and the next read gives a new challenge, which the right key answers")
    func wrongAnswer() async throws {
        try await EspRig.run { rig in
            try await rig.pair()
            try await rig.withClient { (client) async throws in
                let first = try await client.session.read(EspPoint.auth)
                #expect(first.count == 16)
                #expect(try await client.session.read(EspPoint.auth) == first)
                let wrong = ChallengeResponse.answer(challenge: first, key: [UInt8](repeating: 0, count: 32))
                #expect(await writeError(wrong, to: EspPoint.auth, on: client) == .unlikelyError)
                let second = try await client.session.read(EspPoint.auth)
                #expect(second.count == 16)
                #expect(second != first)
                // The right answer to the old challenge no longer counts.
                let stale = ChallengeResponse.answer(challenge: first, key: EspRig.key)
                #expect(await writeError(stale, to: EspPoint.auth, on: client) == .unlikelyError)
                let otherKey = Array(EspRig.key.reversed())
                await #expect(throws: SessionError.self) { try await client.authenticate(key: otherKey) }
                try await client.authenticate(key: EspRig.key)
                try await client.setLED(on: false)
            }
            #expect(rig.consoleText.filter { $0.hasSuffix("W/AUTH: wrong answer: new challenge") }.count == 3)
        }
    }

    @Test("each connection gets a fresh challenge and starts unauthenticated")
    func challengePerConnection() async throws {
        let challenges = try await EspRig.run { rig in
            try await rig.pair()
            var challenges: [[UInt8]] = []
            for _ in 0..<3 {
                try await rig.withClient { (client) async throws in
                    challenges.append(try await client.session.read(EspPoint.auth))
                    try await client.authenticate(key: EspRig.key)
                }
                try await rig.withClient { (client) async throws in
                    #expect(await attError { try await client.setLED(on: true) } == .insufficientAuthentication)
                }
            }
            return challenges
        }
        #expect(Set(challenges).count == 3)
    }

    @Test("before authentication Command (but PAIR_*), Log Control and OTA Control fail with 0x05")
    func unauthenticatedWritesFail() async throws {
        try await EspRig.run { rig in
            try await rig.pair()
            try await rig.withClient { (client) async throws in
                for command in [EspPoint.Command.setLED(on: true), .setInterval(seconds: 60), .reboot, .factoryReset] {
                    let error = await writeError(command.encoded, to: EspPoint.command, on: client)
                    #expect(error == .insufficientAuthentication)
                }
                #expect(await writeError([0x42], to: EspPoint.command, on: client) == .insufficientAuthentication)
                let status = EspPoint.LogRequest.status.encoded
                #expect(await writeError(status, to: EspPoint.logControl, on: client) == .insufficientAuthentication)
                #expect(await writeError([0x04], to: EspPoint.otaControl, on: client) == .insufficientAuthentication)
                // PAIR_BEGIN gets through and is answered with a status.
                await #expect(throws: SessionError.commandFailed(opcode: 0x06, status: .notInPairingMode)) {
                    try await client.send(.pairBegin)
                }
            }
            #expect(rig.firmware.auth.key == EspRig.key)
            #expect(!rig.firmware.commands.ledOn)
            #expect(rig.board.bootCount == 1)
        }
    }

    // MARK: Commands

    @Test("SET_LED answers 01 00 on Command Status, which a read also returns")
    func ledCommand() async throws {
        try await EspRig.run { rig in
            try await rig.pair()
            try await rig.withAuthenticatedClient { (client) async throws in
                try await client.session.write(EspPoint.Command.setLED(on: true).encoded, to: EspPoint.command)
                #expect(try await nextStatus(client).encoded == [0x01, 0x00])
                #expect(rig.firmware.commands.ledOn)
                #expect(try await client.session.read(EspPoint.commandStatus) == [0x01, 0x00])
                try await client.setLED(on: false)
                #expect(!rig.firmware.commands.ledOn)
            }
            #expect(rig.consoleText.suffix(4).contains { $0.hasSuffix("I/LED: off") })
        }
    }

    @Test(
        "SET_INTERVAL outside 1…86400 or of the wrong length answers bad arguments",
        arguments: [
            [0x02, 0, 0, 0, 0], [0x02, 0x81, 0x51, 0x01, 0x00], [0x02, 0xFF, 0xFF, 0xFF, 0xFF], [0x02, 60, 0, 0],
            [0x02, 60, 0, 0, 0, 0], [0x02],
        ] as [[UInt8]])
    func badInterval(bytes: [UInt8]) async throws {
        let (status, interval) = try await EspRig.run { rig in
            try await rig.pair()
            return try await rig.withAuthenticatedClient { (client) async throws in
                try await client.session.write(bytes, to: EspPoint.command)
                return (try await nextStatus(client), rig.firmware.sensor.interval)
            }
        }
        #expect(status == EspPoint.CommandStatus(opcode: 0x02, code: .badArguments))
        #expect(interval == 3600)
    }

    @Test("SET_INTERVAL accepts 1 and 86400")
    func intervalBounds() async throws {
        let intervals = try await EspRig.run { rig in
            try await rig.pair()
            return try await rig.withAuthenticatedClient { (client) async throws in
                var seen: [UInt32] = []
                for seconds: UInt32 in [1, 86_400] {
                    try await client.send(.setInterval(seconds: seconds))
                    seen.append(rig.firmware.sensor.interval)
                }
                return seen
            }
        }
        #expect(intervals == [1, 86_400])
    }

    @Test("IDENTIFY logs a blink; an unknown opcode answers status 1")
    func identifyAndUnknown() async throws {
        try await EspRig.run { rig in
            try await rig.pair()
            try await rig.withAuthenticatedClient { (client) async throws in
                try await client.send(.identify)
                #expect(rig.consoleText.last?.hasSuffix("I/CMD: identify: blinking the LED") == true)
                try await client.session.write([0x09], to: EspPoint.command)
                #expect(try await nextStatus(client) == EspPoint.CommandStatus(opcode: 0x09, code: .unknownOpcode))
            }
        }
    }

    @Test("malformed command bytes get a status or an ATT error, never a crash, and the board keeps working")
    func malformedCommands() async throws {
        let cases: [([UInt8], EspPoint.CommandStatus.Code)] = [
            ([0x01], .badArguments), ([0x01, 0x02], .badArguments), ([0x01, 0x01, 0x00], .badArguments),
            ([0x03, 1, 2], .badArguments), ([0x04, 0x00], .badArguments), ([0x05, 0x05], .badArguments),
            ([0x07] + [UInt8](repeating: 1, count: 31), .badArguments), ([0x08, 0x08], .badArguments),
            ([0x00], .unknownOpcode), ([0xFF, 1, 2, 3], .unknownOpcode),
            // Well formed, but the board is not in pairing mode.
            ([0x07] + [UInt8](repeating: 1, count: 32), .notInPairingMode),
        ]
        try await EspRig.run(seed: 5) { rig in
            try await rig.pair()
            try await rig.withAuthenticatedClient { (client) async throws in
                let session = client.session
                for (bytes, code) in cases {
                    try await session.write(bytes, to: EspPoint.command)
                    let expected = EspPoint.CommandStatus(opcode: bytes[0], code: code)
                    #expect(try await nextStatus(client) == expected, "\(bytes)")
                }
                #expect(await writeError([], to: EspPoint.command, on: client) == .invalidAttributeValueLength)
                let tooLong = [UInt8](repeating: 0x07, count: 34)
                #expect(await writeError(tooLong, to: EspPoint.command, on: client) == .invalidAttributeValueLength)
                #expect(await writeError([0x09], to: EspPoint.logControl, on: client) == .valueNotAllowed)
                #expect(await writeError([2, 1], to: EspPoint.logControl, on: client) == .invalidAttributeValueLength)
                #expect(await writeError([], to: EspPoint.logControl, on: client) == .invalidAttributeValueLength)

                // Seeded noise: every write is answered (a status or an ATT error) and nothing resets the board.
                var random = SeededRandom(seed: 99, stream: "fuzz")
                var answered = 0
                for _ in 0..<150 {
                    let length = Int(random.next() % 34) + 1
                    var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    bytes[0] = random.next() % 2 == 0 ? bytes[0] % 10 : bytes[0]
                    if bytes == [0x05] || bytes == [0x08] { bytes.append(0) }  // not a real REBOOT or FACTORY_RESET
                    if await attError({ try await session.write(bytes, to: EspPoint.command) }) == nil {
                        let status = try await nextStatus(client)
                        #expect(status.opcode == bytes[0])
                        if status.code == .ok { answered += 1 }
                    }
                }
                #expect(answered > 0)
                try await client.setLED(on: true)
            }
            #expect(rig.board.bootCount == 1)
            #expect(rig.firmware.auth.key == EspRig.key)
        }
    }

    // MARK: Readings and time

    @Test("readings are notified every interval with consecutive sequence numbers and the time SET_TIME gave")
    func readingsAtTheInterval() async throws {
        let settings = VirtualBoardSettings(sampleInterval: 10)
        let (readings, times) = try await EspRig.run(settings: settings) { rig in
            try await rig.pair()
            return try await rig.withAuthenticatedClient { (client) async throws in
                try await client.setTime(unix: 1_800_000_000)
                let inbox = try client.session.inbox(EspPoint.reading)
                var readings: [EspPoint.Reading] = []
                var times: [RigInstant] = []
                for _ in 0..<3 {
                    let event = try await inbox.next(within: .seconds(11), clock: rig.sim.clock, waitingFor: "Reading")
                    readings.append(try EspPoint.Reading(decoding: event.value))
                    times.append(event.received)
                }
                #expect(try await client.latestReading() == readings.last)
                return (readings, times)
            }
        }
        #expect(readings.map(\.sequence) == [1, 2, 3])
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($0.duration(to: $1).seconds - 10) < 0.05 })
        let first = try #require(readings.first)
        #expect((1_800_000_000...1_800_000_010).contains(first.unixTime))
        #expect(readings.map(\.unixTime) == [first.unixTime, first.unixTime + 10, first.unixTime + 20])
        #expect(readings.allSatisfy { (2_000...2_500).contains($0.temperature) })
        #expect(readings.allSatisfy { (3_000...6_000).contains($0.humidity) })
    }

    @Test("before SET_TIME the clock counts from 2026-01-01 at power-on")
    func clockBeforeSetTime() async throws {
        let reading = try await EspRig.run(settings: VirtualBoardSettings(sampleInterval: 60)) { rig in
            try await rig.sim.clock.sleep(for: .seconds(61))
            return rig.firmware.log.flash.records.first
        }
        #expect(reading?.unixTime == UInt32(1_767_225_660))
    }

    @Test("SET_INTERVAL re-arms the sampling timer")
    func setIntervalReschedules() async throws {
        let times = try await EspRig.run(settings: VirtualBoardSettings(sampleInterval: 3600)) { rig in
            try await rig.pair()
            return try await rig.withAuthenticatedClient { (client) async throws in
                try await client.send(.setInterval(seconds: 2))
                let set = rig.sim.now
                let inbox = try client.session.inbox(EspPoint.reading)
                var offsets: [Double] = []
                for _ in 0..<2 {
                    let event = try await inbox.next(within: .seconds(3), clock: rig.sim.clock, waitingFor: "Reading")
                    offsets.append(set.duration(to: event.received).seconds)
                }
                return offsets
            }
        }
        #expect(times.count == 2)
        #expect(abs(times[0] - 2) < 0.05 && abs(times[1] - 4) < 0.05)
    }

    @Test("Battery Level is notified when the whole percent changes")
    func batteryNotified() async throws {
        let (level, millivolts) = try await EspRig.run(settings: VirtualBoardSettings(batteryPercent: 50.55)) { rig in
            try await rig.pair()
            return try await rig.withAuthenticatedClient { (client) async throws in
                #expect(try await client.batteryLevel().percent == 51)
                let event = try await client.session.inbox(StandardUUID.batteryLevel)
                    .next(within: .seconds(3600), clock: rig.sim.clock, waitingFor: "Battery Level")
                return (event.value, rig.firmware.battery.cell.millivolts)
            }
        }
        #expect(level == [50])
        #expect((3_754...3_755).contains(millivolts))
    }

    // MARK: Flash log

    @Test(
        "READ streams the records in order, as many per notification as the MTU allows, then readDone",
        arguments: [
            (UInt16(23), 1), (100, 6), (247, 17), (517, 36),
        ])
    func logReadInOrder(mtu: UInt16, perNotification: Int) async throws {
        let (sizes, done, sequences) = try await EspRig.run { rig in
            rig.board.type("log-fill 80")
            try await rig.pair()
            return try await rig.withAuthenticatedClient(mtu: mtu) { (client) async throws in
                let data = try await client.session.ensureSubscribed(EspPoint.logData)
                let control = try await client.session.ensureSubscribed(EspPoint.logControl)
                let request = EspPoint.LogRequest.read(from: 3, maxCount: 40)
                try await client.session.write(request.encoded, to: EspPoint.logControl)
                let indication = try await control.next(
                    within: .seconds(5), clock: rig.sim.clock, waitingFor: "readDone")
                var sizes: [Int] = []
                var sequences: [UInt32] = []
                while true {
                    let event = try await data.next(within: .seconds(1), clock: rig.sim.clock, waitingFor: "Log Data")
                    let chunk = try EspPoint.LogData(decoding: event.value)
                    sizes.append(chunk.readings.count)
                    sequences += chunk.readings.map(\.sequence)
                    if chunk.readings.isEmpty { break }
                }
                #expect(data.pendingCount == 0)
                return (sizes, try EspPoint.LogResult(decoding: indication.value), sequences)
            }
        }
        #expect(sequences == Array(3...42))
        #expect(sizes.last == 0)
        #expect(sizes.dropLast().allSatisfy { $0 <= perNotification })
        #expect(sizes.first == perNotification)
        #expect(done == .readDone(status: 0, lastSent: 42))
    }

    @Test("the client's readLog and ACK: acknowledged records are freed, the rest stay")
    func readThenAcknowledge() async throws {
        try await EspRig.run { rig in
            rig.board.type("log-fill 25")
            try await rig.pair()
            try await rig.withAuthenticatedClient { (client) async throws in
                let all = try await client.readLog(from: 0, maxCount: 1000)
                #expect(all.map(\.sequence) == Array(1...25))
                #expect(zip(all, all.dropFirst()).allSatisfy { $0.unixTime < $1.unixTime })
                try await client.acknowledgeLog(upTo: 20)
                #expect(try await client.logStatus() == logStatus(oldest: 21, newest: 25, count: 5))
                #expect(try await client.readLog(from: 0, maxCount: 100).map(\.sequence) == Array(21...25))
                try await client.acknowledgeLog(upTo: 25)
                #expect(try await client.logStatus() == logStatus(oldest: 26, newest: 25, count: 0))
                #expect(try await client.readLog(from: 0, maxCount: 100).isEmpty)
            }
        }
    }

    @Test("a READ with nothing to send ends at once with last_sent_seq 0")
    func emptyRead() async throws {
        let done = try await EspRig.run { rig in
            try await rig.pair()
            return try await rig.withAuthenticatedClient { (client) async throws in
                let data = try await client.session.ensureSubscribed(EspPoint.logData)
                let control = try await client.session.ensureSubscribed(EspPoint.logControl)
                let request = EspPoint.LogRequest.read(from: 1, maxCount: 10)
                try await client.session.write(request.encoded, to: EspPoint.logControl)
                let indication = try await control.next(
                    within: .seconds(1), clock: rig.sim.clock, waitingFor: "readDone")
                let end = try await data.next(within: .seconds(1), clock: rig.sim.clock, waitingFor: "Log Data")
                #expect(end.value == [0])
                return try EspPoint.LogResult(decoding: indication.value)
            }
        }
        #expect(done == .readDone(status: 0, lastSent: 0))
    }

    @Test("a full ring overwrites the oldest records and counts each in dropped")
    func ringOverwriteCountsDropped() async throws {
        let settings = VirtualBoardSettings(logCapacity: 10)
        try await EspRig.run(settings: settings) { rig in
            rig.board.type("log-fill 25")
            #expect(rig.consoleText.last?.hasSuffix("I/LOG: filled 25 count=10 next_seq=26 dropped=15") == true)
            try await rig.pair()
            try await rig.withAuthenticatedClient { (client) async throws in
                let expected = logStatus(oldest: 16, newest: 25, count: 10, capacity: 10, dropped: 15)
                #expect(try await client.logStatus() == expected)
                #expect(try await client.readLog(from: 1, maxCount: 100).map(\.sequence) == Array(16...25))
            }
        }
    }

    @Test("a long READ on a slow, buffer-starved link is paced: nothing is dropped")
    func logReadIsPaced() async throws {
        let link = LinkParameters(connectionInterval: .milliseconds(30), packetsPerEvent: 2, dataLength: 27)
        let (count, dropped) = try await EspRig.run(link: link) { rig in
            rig.board.type("log-fill 300")
            try await rig.pair()
            let readings = try await rig.withAuthenticatedClient { (client) async throws in
                var copy = client
                copy.responseTimeout = .seconds(60)
                return try await copy.readLog(from: 0, maxCount: 300)
            }
            #expect(readings.map(\.sequence) == Array(1...300))
            return (readings.count, rig.board.notificationsDropped)
        }
        #expect(count == 300)
        #expect(dropped == 0)
    }

    // MARK: Reboot, factory reset, flash

    @Test("REBOOT answers ok, then the board boots again with reset=SW; key, log and sequence counter survive")
    func rebootKeepsFlash() async throws {
        try await EspRig.run { rig in
            rig.board.type("log-fill 5")
            try await rig.pair()
            _ = try await rig.withAuthenticatedClient { client in try await client.send(.reboot) }
            try await rig.sim.clock.sleep(for: .seconds(1))
            #expect(rig.board.bootCount == 2)
            let boots = rig.board.console.compactMap { entry -> ConsoleLine.ResetReason? in
                if case let .boot(_, bank, reset, _) = entry.line, bank == "A" { return reset }
                return nil
            }
            #expect(boots == [.powerOn, .software])
            #expect(rig.board.readyAt != nil)
            #expect(!rig.firmware.auth.pairingMode)
            try await rig.withAuthenticatedClient { (client) async throws in
                #expect(try await client.logStatus() == logStatus(oldest: 1, newest: 5, count: 5))
            }
            rig.board.type("log-fill 1")
            #expect(rig.firmware.log.flash.records.last?.sequence == 6)
        }
    }

    @Test("the console's reboot and a power cycle keep the flash too")
    func consoleRebootAndPowerCycle() async throws {
        try await EspRig.run { rig in
            rig.board.type("log-fill 2")
            try await rig.pair()
            rig.board.type("reboot")
            try await rig.sim.clock.sleep(for: .seconds(1))
            rig.board.powerOff()
            rig.board.powerOn()
            try await rig.sim.clock.sleep(for: .seconds(1))
            #expect(rig.board.bootCount == 3)
            try await rig.withAuthenticatedClient { (client) async throws in
                try await client.setLED(on: true)
                #expect(try await client.logStatus().newest == 2)
            }
        }
    }

    @Test("FACTORY_RESET clears key and log, keeps the sequence counter and enters pairing mode")
    func factoryReset() async throws {
        try await EspRig.run { rig in
            rig.board.type("log-fill 4")
            try await rig.pair()
            try await rig.withAuthenticatedClient { (client) async throws in
                try await client.send(.factoryReset)
                // The key the connection proved is gone.
                #expect(await attError { try await client.setLED(on: true) } == .insufficientAuthentication)
            }
            #expect(rig.firmware.auth.key == nil)
            #expect(rig.firmware.auth.pairingMode)
            let newKey = [UInt8](repeating: 0xA5, count: 32)
            try await rig.pair(key: newKey)
            await #expect(throws: SessionError.self) {
                try await rig.withAuthenticatedClient { _ in }
            }
            try await rig.withAuthenticatedClient(key: newKey) { (client) async throws in
                #expect(try await client.logStatus() == logStatus(oldest: 5, newest: 4, count: 0))
            }
            rig.board.type("factory-reset")
            #expect(rig.firmware.auth.pairingMode)
            #expect(rig.firmware.auth.key == nil)
            rig.board.type("log-fill 1")
            #expect(rig.firmware.log.flash.records.map(\.sequence) == [5])
        }
    }

    @Test("the console's pair enters pairing mode; the old key works until a central pairs anew")
    func consolePair() async throws {
        try await EspRig.run { rig in
            try await rig.pair()
            rig.board.type("pair")
            #expect(rig.firmware.auth.pairingMode)
            #expect(rig.consoleText.last?.hasSuffix("I/PAIR: pairing mode (button)") == true)
            try await rig.withAuthenticatedClient { client in try await client.setLED(on: true) }
            let other = [UInt8](repeating: 0x3C, count: 32)
            try await rig.pair(key: other)
            try await rig.withAuthenticatedClient(key: other) { client in try await client.setLED(on: false) }
            rig.board.type("log-fill x")
            #expect(rig.consoleText.last?.hasSuffix("W/CONSOLE: usage: log-fill N") == true)
        }
    }
}

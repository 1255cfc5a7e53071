import BLECore
import DeviceProfiles

/// The app's esp-point logic at the GATT level: identity, commands with their status notifications, pairing and
/// authentication, and the flash log protocol.
public struct EspPointClient: Sendable {
    public let session: ProfileSession
    /// How long to wait for a Command Status notification or a Log Control indication.
    public var responseTimeout: Duration = .seconds(5)

    public init(session: ProfileSession) { self.session = session }

    /// The Device Information strings.
    public func identity() async throws(SessionError) -> BoardIdentity {
        func text(_ uuid: BluetoothUUID) async throws(SessionError) -> String {
            String(decoding: try await session.read(uuid), as: UTF8.self)
        }
        return BoardIdentity(
            manufacturer: try await text(StandardUUID.manufacturerName),
            model: try await text(StandardUUID.modelNumber),
            serial: try await text(StandardUUID.serialNumber), firmware: try await text(StandardUUID.firmwareRevision))
    }

    public func batteryLevel() async throws(SessionError) -> BatteryLevel {
        let bytes = try await session.read(StandardUUID.batteryLevel)
        do { return try BatteryLevel(decoding: bytes) } catch { throw .protocolViolation("Battery Level: \(error)") }
    }

    public func latestReading() async throws(SessionError) -> EspPoint.Reading {
        let bytes = try await session.read(EspPoint.reading)
        do { return try EspPoint.Reading(decoding: bytes) } catch { throw .protocolViolation("\(error)") }
    }

    /// Writes a command and waits for its status; returns the status payload. A non-zero status throws.
    @discardableResult
    public func send(_ command: EspPoint.Command) async throws(SessionError) -> [UInt8] {
        let status = try await exchange(command).status
        guard status.code == .ok else { throw .commandFailed(opcode: command.opcode, status: status.code) }
        return status.payload
    }

    /// Writes a command and returns the status the board answered with, whatever it is, and the write's round trip
    /// (Write Request sent → Write Response received).
    public func exchange(
        _ command: EspPoint.Command
    ) async throws(SessionError) -> (status: EspPoint.CommandStatus, writeRoundTrip: Duration) {
        let inbox = try session.inbox(EspPoint.commandStatus)
        _ = inbox.drain()
        let start = session.clock.now
        try await session.write(command.encoded, to: EspPoint.command)
        let writeRoundTrip = start.duration(to: session.clock.now)
        let what = "Command Status for opcode 0x\(String(command.opcode, radix: 16))"
        while true {
            let event = try await inbox.next(within: responseTimeout, clock: session.clock, waitingFor: what)
            let status: EspPoint.CommandStatus
            do { status = try EspPoint.CommandStatus(decoding: event.value) } catch {
                throw .protocolViolation("\(error)")
            }
            if status.opcode == command.opcode { return (status, writeRoundTrip) }
        }
    }

    public func setLED(on: Bool) async throws(SessionError) { try await send(.setLED(on: on)) }

    public func setTime(unix: UInt32) async throws(SessionError) { try await send(.setTime(unix: unix)) }

    /// Pairs a board that is in pairing mode with `key` (32 bytes): PAIR_BEGIN, then PAIR_CONFIRM.
    public func pair(key: [UInt8]) async throws(SessionError) {
        precondition(key.count == EspPoint.keyLength, "an esp-point key has 32 bytes")
        let nonce = try await send(.pairBegin)
        guard nonce.count == 16 else {
            throw .protocolViolation("PAIR_BEGIN returned a \(nonce.count)-byte nonce; the contract says 16")
        }
        try await send(.pairConfirm(key: key))
    }

    /// Answers the board's challenge with `key`.
    public func authenticate(key: [UInt8]) async throws(SessionError) {
        let challenge = try await session.read(EspPoint.auth)
        guard challenge.count == EspPoint.challengeLength else {
            throw .protocolViolation("Auth challenge has \(challenge.count) bytes; the contract says 16")
        }
        let handle = try session.characteristic(EspPoint.auth).valueHandle
        let answer = ChallengeResponse.answer(challenge: challenge, key: key)
        do throws(GATTError) {
            try await session.connection.write(answer, to: handle)
        } catch {
            if case .att(.unlikelyError, _, _) = error {
                throw .authenticationFailed("the board rejected the answer to its challenge")
            }
            throw .gatt(error, during: "answering the Auth challenge")
        }
    }

    /// Authenticates with the stored key, or pairs with `newKey` when the store has none and the board is in
    /// pairing mode. Returns true when it paired.
    @discardableResult
    public func ensureAuthenticated(keys: any PairingKeyStore, newKey: () -> [UInt8]) async throws(SessionError) -> Bool
    {
        let address = session.connection.peer
        if let key = keys.key(for: address) {
            try await authenticate(key: key)
            return false
        }
        let key = newKey()
        do { try await pair(key: key) } catch {
            if case .commandFailed(_, .notInPairingMode) = error {
                throw .authenticationFailed(
                    "\(address) is paired with a key this rig does not hold; put it in pairing mode (console `pair`) or factory-reset it"
                )
            }
            throw error
        }
        keys.store(key, for: address)
        try await authenticate(key: key)
        return true
    }

    // MARK: Flash log

    /// Log Control's and Log Data's inboxes, subscribed on the log's first use in the session.
    private func logInboxes() async throws(SessionError) -> (control: Inbox, data: Inbox) {
        (try await session.ensureSubscribed(EspPoint.logControl), try await session.ensureSubscribed(EspPoint.logData))
    }

    private func logRequest(_ request: EspPoint.LogRequest) async throws(SessionError) -> EspPoint.LogResult {
        let inbox = try await logInboxes().control
        _ = inbox.drain()
        try await session.write(request.encoded, to: EspPoint.logControl)
        let event = try await inbox.next(
            within: responseTimeout, clock: session.clock, waitingFor: "Log Control indication")
        do { return try EspPoint.LogResult(decoding: event.value) } catch { throw .protocolViolation("\(error)") }
    }

    public func logStatus() async throws(SessionError) -> EspPoint.LogStatus {
        guard case let .status(status) = try await logRequest(.status) else {
            throw .protocolViolation("Log Control STATUS was not answered with 0x81")
        }
        return status
    }

    /// Reads up to `maxCount` records from `from` on; returns them in order.
    public func readLog(from: UInt32, maxCount: UInt16) async throws(SessionError) -> [EspPoint.Reading] {
        let data = try await logInboxes().data
        _ = data.drain()
        let result = try await logRequest(.read(from: from, maxCount: maxCount))
        var readings: [EspPoint.Reading] = []
        while true {
            let event = try await data.next(within: responseTimeout, clock: session.clock, waitingFor: "Log Data")
            let chunk: EspPoint.LogData
            do { chunk = try EspPoint.LogData(decoding: event.value) } catch { throw .protocolViolation("\(error)") }
            if chunk.readings.isEmpty { break }
            readings += chunk.readings
        }
        guard case let .readDone(status, lastSent) = result, status == 0 else {
            throw .protocolViolation("Log Control READ ended with \(result)")
        }
        if let last = readings.last, last.sequence != lastSent {
            throw .protocolViolation(
                "Log READ reported last_sent_seq \(lastSent) but the last record was \(last.sequence)")
        }
        return readings
    }

    public func acknowledgeLog(upTo sequence: UInt32) async throws(SessionError) {
        guard case let .acknowledged(status) = try await logRequest(.acknowledge(upTo: sequence)), status == 0 else {
            throw .protocolViolation("Log Control ACK was not acknowledged")
        }
    }
}

/// What a board says about itself.
public struct BoardIdentity: Sendable, Hashable {
    public var manufacturer: String
    public var model: String
    public var serial: String
    public var firmware: String

    public init(manufacturer: String, model: String, serial: String, firmware: String) {
        self.manufacturer = manufacturer
        self.model = model
        self.serial = serial
        self.firmware = firmware
    }
}

import BLECore
import Crypto
import DeviceProfiles

/// Command, Command Status and Auth (docs/board-contract.md, esp-point "Commands" and "Pairing and authentication").
extension EspPointFirmware {
    /// How long REBOOT waits before resetting, so its status notification leaves the radio first.
    static let rebootDelay: Duration = .milliseconds(300)

    func isAuthenticated(_ connection: GATTServer.ConnectionID) -> Bool {
        sessions[connection]?.authenticated == true
    }

    // MARK: Command

    /// A write to Command. Until the connection is authenticated only PAIR_BEGIN and PAIR_CONFIRM get through
    /// (0x05 otherwise); every command that gets through is answered on Command Status, malformed ones with
    /// status 1 or 2.
    func command(_ bytes: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard let opcode = bytes.first else { return .invalidAttributeValueLength }
        let pairing = opcode == 0x06 || opcode == 0x07  // PAIR_BEGIN, PAIR_CONFIRM
        guard pairing || isAuthenticated(connection) else {
            board?.log("W", "CMD", "opcode 0x\(hex(opcode)) refused: not authenticated")
            return .insufficientAuthentication
        }
        switch EspPoint.Command.decode(bytes) {
        case let .failure(code):
            board?.log("W", "CMD", "opcode 0x\(hex(opcode)) length=\(bytes.count): \(code)")
            reply(opcode, code)
        case let .success(command):
            execute(command, on: connection)
        }
        return nil
    }

    private func execute(_ command: EspPoint.Command, on connection: GATTServer.ConnectionID) {
        let opcode = command.opcode
        switch command {
        case let .setLED(on):
            setLED(on)
            reply(opcode, .ok)
        case let .setInterval(seconds):
            interval = seconds
            scheduleSample()
            board?.log("I", "CMD", "interval_s=\(seconds)")
            reply(opcode, .ok)
        case let .setTime(unix):
            setTime(unix: unix)
            board?.log("I", "CMD", "time set unix=\(unix)")
            reply(opcode, .ok)
        case .identify:
            board?.log("I", "CMD", "identify: blinking the LED")
            reply(opcode, .ok)
        case .reboot:
            board?.log("I", "CMD", "reboot requested")
            reply(opcode, .ok)
            board?.after(Self.rebootDelay) { [weak self] in self?.board?.reset(.software) }
        case .pairBegin:
            guard pairingMode else { return reply(opcode, .notInPairingMode) }
            let nonce = randomBytes(16)
            sessions[connection]?.pairingNonce = nonce
            board?.log("I", "PAIR", "begin")
            reply(opcode, .ok, nonce)
        case let .pairConfirm(newKey):
            // PAIR_CONFIRM belongs to a PAIR_BEGIN on the same connection; without one the board is, for this
            // central, not pairing.
            guard pairingMode, sessions[connection]?.pairingNonce != nil else {
                return reply(opcode, .notInPairingMode)
            }
            key = newKey
            pairingMode = false
            sessions[connection]?.pairingNonce = nil
            board?.log("I", "PAIR", "paired: key stored")
            reply(opcode, .ok)
            advertisedStateChanged()
        case .factoryReset:
            reply(opcode, .ok)
            factoryReset()
        }
    }

    /// Notifies `opcode status [payload]` on Command Status and keeps it as the value a read returns (in the
    /// firmware: the board's stored values cannot change while its GATT server handles the write).
    private func reply(_ opcode: UInt8, _ code: EspPoint.CommandStatus.Code, _ payload: [UInt8] = []) {
        let status = EspPoint.CommandStatus(opcode: opcode, code: code, payload: payload).encoded
        lastCommandStatus = status
        board?.notify(EspPoint.commandStatus, in: EspPoint.commandService, status)
    }

    // MARK: Pairing

    /// The `pair` button: the board accepts PAIR_BEGIN until a central pairs (the old key still authenticates
    /// until then).
    func enterPairingMode(because why: String) {
        pairingMode = true
        board?.log("I", "PAIR", "pairing mode (\(why))")
        advertisedStateChanged()
    }

    /// FACTORY_RESET and the console's `factory-reset`: the key and the log go (the sequence counter stays, so
    /// sequence numbers never repeat), and the board waits to be paired again. No connection is authenticated
    /// any more: the key it proved is gone.
    func factoryReset() {
        key = nil
        log.erase()
        latest = nil
        for connection in sessions.keys {
            sessions[connection]?.authenticated = false
            sessions[connection]?.pairingNonce = nil
        }
        board?.log("W", "SYS", "factory reset: key and log erased next_seq=\(log.nextSequence)")
        enterPairingMode(because: "factory reset")
    }

    // MARK: Auth

    /// A write to Auth: the first 16 bytes of HMAC-SHA256(key, challenge) authenticate the connection. Anything
    /// else — including any answer while the board holds no key — fails with 0x0E and a new challenge.
    func answer(_ value: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard let session = sessions[connection] else { return .unlikelyError }
        if let key, value == Self.expectedAnswer(challenge: session.challenge, key: key) {
            sessions[connection]?.authenticated = true
            board?.log("I", "AUTH", "ok")
            return nil
        }
        sessions[connection]?.authenticated = false
        sessions[connection]?.challenge = freshChallenge()
        board?.log("W", "AUTH", key == nil ? "answer refused: not paired" : "wrong answer: new challenge")
        return .unlikelyError
    }

    static func expectedAnswer(challenge: [UInt8], key: [UInt8]) -> [UInt8] {
        let code = HMAC<SHA256>.authenticationCode(for: challenge, using: SymmetricKey(data: key))
        return Array(Array(code).prefix(EspPoint.challengeLength))
    }
}

/// Two lowercase hex digits.
private func hex(_ byte: UInt8) -> String { (byte < 16 ? "0" : "") + String(byte, radix: 16) }

import BLECore
import DeviceProfiles

/// The Command service: Command, Command Status and the LED it drives (docs/board-contract.md, esp-point
/// "Commands"). Auth, on the same service, is ``EspPointAuthService``'s; the commands reach the services they act
/// on (the sampling interval, the RTC, pairing, the log).
final class EspPointCommandService {
    /// How long REBOOT waits before resetting, so its status notification leaves the radio first.
    static let rebootDelay: Duration = .milliseconds(300)

    weak var board: VirtualBoard?
    private let auth: EspPointAuthService
    private let sensor: EspPointSensorService
    private let log: EspPointLogService
    private let clock: EspPointClock

    // MARK: RAM

    private(set) var ledOn = false
    /// The last Command Status, which a read returns; empty until a command is answered.
    private(set) var lastStatus: [UInt8] = []

    init(auth: EspPointAuthService, sensor: EspPointSensorService, log: EspPointLogService, clock: EspPointClock) {
        self.auth = auth
        self.sensor = sensor
        self.log = log
        self.clock = clock
    }

    /// Boot: the LED is off and nothing has been answered.
    func rebooted() {
        ledOn = false
        lastStatus = []
    }

    // MARK: Command

    /// A write to Command. Until the connection is authenticated only PAIR_BEGIN and PAIR_CONFIRM get through
    /// (0x05 otherwise); every command that gets through is answered on Command Status, malformed ones with
    /// status 1 or 2.
    func write(_ bytes: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard let opcode = bytes.first else { return .invalidAttributeValueLength }
        let pairing = opcode == 0x06 || opcode == 0x07  // PAIR_BEGIN, PAIR_CONFIRM
        guard pairing || auth.isAuthenticated(connection) else {
            board?.log(.warning, "CMD", "opcode 0x\(hex(opcode)) refused: not authenticated")
            return .insufficientAuthentication
        }
        switch EspPoint.Command.decode(bytes) {
        case let .failure(code):
            board?.log(.warning, "CMD", "opcode 0x\(hex(opcode)) length=\(bytes.count): \(code)")
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
            sensor.setInterval(seconds)
            board?.log(.info, "CMD", "interval_s=\(seconds)")
            reply(opcode, .ok)
        case let .setTime(unix):
            clock.set(unix: unix)
            board?.log(.info, "CMD", "time set unix=\(unix)")
            reply(opcode, .ok)
        case .identify:
            board?.log(.info, "CMD", "identify: blinking the LED")
            reply(opcode, .ok)
        case .reboot:
            board?.log(.info, "CMD", "reboot requested")
            reply(opcode, .ok)
            board?.after(Self.rebootDelay) { [weak self] in self?.board?.reset(.software) }
        case .pairBegin:
            guard let nonce = auth.beginPairing(on: connection) else { return reply(opcode, .notInPairingMode) }
            reply(opcode, .ok, nonce)
        case let .pairConfirm(newKey):
            guard auth.confirmPairing(key: newKey, on: connection) else { return reply(opcode, .notInPairingMode) }
            reply(opcode, .ok)
            board?.refreshAdvertising()
        case .factoryReset:
            reply(opcode, .ok)
            factoryReset()
        }
    }

    /// Notifies `opcode status [payload]` on Command Status and keeps it as the value a read returns (in the
    /// firmware: the board's stored values cannot change while its GATT server handles the write).
    private func reply(_ opcode: UInt8, _ code: EspPoint.CommandStatus.Code, _ payload: [UInt8] = []) {
        let status = EspPoint.CommandStatus(opcode: opcode, code: code, payload: payload).encoded
        lastStatus = status
        board?.notify(EspPoint.commandStatus, in: EspPoint.commandService, status)
    }

    func setLED(_ on: Bool) {
        ledOn = on
        board?.log(.info, "LED", on ? "on" : "off")
    }

    /// FACTORY_RESET and the console's `factory-reset`: the key and the log go (the sequence counter stays, so
    /// sequence numbers never repeat), and the board waits to be paired again. No connection is authenticated
    /// any more: the key it proved is gone.
    func factoryReset() {
        auth.forgetKey()
        log.erase()
        sensor.forgetLatest()
        board?.log(.warning, "SYS", "factory reset: key and log erased next_seq=\(log.flash.nextSequence)")
        auth.enterPairingMode(because: "factory reset")
    }
}

/// Two lowercase hex digits.
private func hex(_ byte: UInt8) -> String { (byte < 16 ? "0" : "") + String(byte, radix: 16) }

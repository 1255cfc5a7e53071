import BLECore

extension EspPoint {
    /// Commands written to Command with response; results are notified on Command Status (docs/board-contract.md,
    /// esp-point "Commands").
    public enum Command: Hashable, Sendable {
        case setLED(on: Bool)
        /// 1 … 86400 seconds.
        case setInterval(seconds: UInt32)
        case setTime(unix: UInt32)
        case identify
        case reboot
        /// Allowed only in pairing mode; the status payload is a 16-byte nonce.
        case pairBegin
        /// Stores the 32-byte key and leaves pairing mode.
        case pairConfirm(key: [UInt8])
        /// Clears the key and the log, enters pairing mode.
        case factoryReset

        public var opcode: UInt8 {
            switch self {
            case .setLED: 0x01
            case .setInterval: 0x02
            case .setTime: 0x03
            case .identify: 0x04
            case .reboot: 0x05
            case .pairBegin: 0x06
            case .pairConfirm: 0x07
            case .factoryReset: 0x08
            }
        }

        public var encoded: [UInt8] {
            var w = ByteWriter(capacity: 33)
            w.write(opcode)
            switch self {
            case let .setLED(on): w.write(UInt8(on ? 1 : 0))
            case let .setInterval(seconds): w.write(seconds)
            case let .setTime(unix): w.write(unix)
            case let .pairConfirm(key): w.write(contentsOf: key)
            case .identify, .reboot, .pairBegin, .factoryReset: break
            }
            return w.bytes
        }

        /// Decodes a command. Unknown opcodes and bad arguments are reported as the status the board answers with.
        public static func decode(_ bytes: [UInt8]) -> Result<Command, CommandStatus.Code> {
            var r = ByteReader(bytes, context: "Command")
            guard let opcode = try? r.readUInt8("opcode") else { return .failure(.badArguments) }
            let command: Command?
            switch opcode {
            case 0x01:
                let state = try? r.readUInt8("state")
                command = state.flatMap { $0 <= 1 ? .setLED(on: $0 == 1) : nil }
            case 0x02:
                let seconds = try? r.readUInt32("seconds")
                command = seconds.flatMap { (1...86_400).contains($0) ? .setInterval(seconds: $0) : nil }
            case 0x03: command = (try? r.readUInt32("unix")).map { .setTime(unix: $0) }
            case 0x04: command = .identify
            case 0x05: command = .reboot
            case 0x06: command = .pairBegin
            case 0x07: command = (try? r.readBytes(32, "key")).map { .pairConfirm(key: $0) }
            case 0x08: command = .factoryReset
            default: return .failure(.unknownOpcode)
            }
            guard let command, r.isAtEnd else { return .failure(.badArguments) }
            return .success(command)
        }
    }

    /// `opcode u8 status u8 [payload]`, notified on Command Status.
    public struct CommandStatus: Hashable, Sendable {
        public var opcode: UInt8
        public var code: Code
        public var payload: [UInt8]

        public struct Code: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            public static let ok = Self(rawValue: 0)
            public static let unknownOpcode = Self(rawValue: 1)
            public static let badArguments = Self(rawValue: 2)
            public static let notInPairingMode = Self(rawValue: 3)
            public static let notAuthenticated = Self(rawValue: 4)
            public static let busy = Self(rawValue: 5)

            public var description: String {
                switch rawValue {
                case 0: "ok"
                case 1: "unknown opcode"
                case 2: "bad arguments"
                case 3: "not in pairing mode"
                case 4: "not authenticated"
                case 5: "busy (OTA)"
                default: "status \(rawValue)"
                }
            }
        }

        public init(opcode: UInt8, code: Code, payload: [UInt8] = []) {
            self.opcode = opcode
            self.code = code
            self.payload = payload
        }

        public var encoded: [UInt8] { [opcode, code.rawValue] + payload }

        public init(decoding bytes: [UInt8]) throws(DecodingError) {
            var r = ByteReader(bytes, context: "Command Status")
            opcode = try r.readUInt8("opcode")
            code = Code(rawValue: try r.readUInt8("status"))
            payload = r.readRemaining()
        }
    }

    /// Auth: the board's challenge is 16 bytes; the answer is the first 16 bytes of HMAC-SHA256(key, challenge).
    public static let challengeLength = 16
    public static let keyLength = 32
}

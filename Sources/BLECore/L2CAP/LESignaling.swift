extension L2CAP {
    /// A command on the LE signaling channel, CID 0x0005 (Core 5.4 Vol 3 Part A §4): code u8, identifier u8,
    /// length u16, data. One command per C-frame on LE.
    public enum LESignal: Hashable, Sendable, CustomStringConvertible {
        /// 0x01 (§4.1): reason u16 (0x0000 command not understood), then reason data.
        case commandReject(identifier: UInt8, reason: UInt16)
        /// 0x12 (§4.20): a peripheral asks the central for new parameters.
        case connectionParameterUpdateRequest(identifier: UInt8, HCI.ConnectionParameters)
        /// 0x13 (§4.21): 0x0000 accepted, 0x0001 rejected.
        case connectionParameterUpdateResponse(identifier: UInt8, accepted: Bool)
        /// Any other command, kept whole.
        case other(code: UInt8, identifier: UInt8, data: [UInt8])

        public var identifier: UInt8 {
            switch self {
            case let .commandReject(identifier, _), let .connectionParameterUpdateRequest(identifier, _),
                let .connectionParameterUpdateResponse(identifier, _), let .other(_, identifier, _):
                identifier
            }
        }

        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            var r = ByteReader(bytes, context: "L2CAP LE signaling command")
            let code = try r.readUInt8("code")
            let identifier = try r.readUInt8("identifier")
            let length = Int(try r.readUInt16("length"))
            let data = try r.readBytes(length, "data")
            try r.expectEnd()
            var d = ByteReader(data, context: "L2CAP LE signaling command 0x\([code].hexString)")
            switch code {
            case 0x01:
                self = .commandReject(identifier: identifier, reason: try d.readUInt16("reason"))
                _ = d.readRemaining()
            case 0x12:
                self = .connectionParameterUpdateRequest(
                    identifier: identifier, try HCI.ConnectionParameters.read(from: &d, eventLengths: false))
            case 0x13:
                self = .connectionParameterUpdateResponse(
                    identifier: identifier, accepted: try d.readUInt16("result") == 0)
            default:
                self = .other(code: code, identifier: identifier, data: data)
                return
            }
            try d.expectEnd()
        }

        public var encoded: [UInt8] {
            var d = ByteWriter(capacity: 8)
            let code: UInt8
            switch self {
            case let .commandReject(_, reason):
                code = 0x01
                d.write(reason)
            case let .connectionParameterUpdateRequest(_, parameters):
                code = 0x12
                parameters.write(to: &d, eventLengths: false)
            case let .connectionParameterUpdateResponse(_, accepted):
                code = 0x13
                d.write(UInt16(accepted ? 0 : 1))
            case let .other(c, _, data):
                code = c
                d.write(contentsOf: data)
            }
            var w = ByteWriter(capacity: 4 + d.bytes.count)
            w.write(code)
            w.write(identifier)
            w.write(UInt16(d.bytes.count))
            w.write(contentsOf: d.bytes)
            return w.bytes
        }

        public var description: String {
            switch self {
            case let .commandReject(id, reason): "Command Reject id \(id) reason 0x\(String(reason, radix: 16))"
            case let .connectionParameterUpdateRequest(id, p): "Connection Parameter Update Request id \(id) \(p)"
            case let .connectionParameterUpdateResponse(id, accepted):
                "Connection Parameter Update Response id \(id) \(accepted ? "accepted" : "rejected")"
            case let .other(code, id, data): "signaling code 0x\([code].hexString) id \(id) \(data.hexString)"
            }
        }
    }
}

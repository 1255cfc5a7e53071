/// rootcanal's test channel framing (rootcanal 1.10, `test_channel_transport.cc`). No I/O.
///
/// A command is a length byte and the command's name, an argument count byte, then for each argument a length
/// byte and its bytes (arguments are text: `set_timer_period 1` sends the argument "1"). Each reply is a u32
/// little-endian length and that many bytes of text. Right after a connection is accepted, rootcanal sends one
/// reply of its own, "RegisterSendResponse called", before any command: replies are off by one for a client
/// that does not read it. It serves one client at a time; a second one is greeted "The connection is broken"
/// and dropped. A command sent as a plain text line is answered "Unhandled command" and does nothing.
public enum RootcanalTestChannelCodec {
    /// The reply rootcanal sends unasked when a client connects.
    public static let greeting = "RegisterSendResponse called"
    /// What a second client gets instead, before rootcanal drops it: it serves one client at a time.
    public static let busy = "The connection is broken"

    /// One command: its name and text arguments.
    public struct Command: Sendable, Hashable, CustomStringConvertible {
        public var name: String
        public var arguments: [String]

        public init(_ name: String, _ arguments: [String] = []) {
            self.name = name
            self.arguments = arguments
        }

        public var description: String { ([name] + arguments).joined(separator: " ") }

        /// The command's bytes on the wire. Throws when the name, an argument or the argument count exceeds
        /// the 255 that a length byte can say.
        public func encoded() throws(RootcanalError) -> [UInt8] {
            guard arguments.count <= 255 else {
                throw RootcanalError(.invalidCommand, "'\(name)' has \(arguments.count) arguments; at most 255 fit")
            }
            var bytes: [UInt8] = []
            for (index, field) in ([name] + arguments).enumerated() {
                let utf8 = Array(field.utf8)
                guard utf8.count <= 255 else {
                    throw RootcanalError(
                        .invalidCommand,
                        "'\(name)': \(index == 0 ? "the name" : "argument \(index)") is "
                            + "\(utf8.count) bytes; at most 255 fit")
                }
                bytes.append(UInt8(utf8.count))
                bytes += utf8
                if index == 0 { bytes.append(UInt8(arguments.count)) }
            }
            return bytes
        }

        /// Reads one command from the front of `bytes` (what rootcanal's side does): the command and how many
        /// bytes it took, or nil when `bytes` does not yet hold a whole command.
        public static func decode(_ bytes: some Collection<UInt8>) -> (command: Command, consumed: Int)? {
            var reader = Array(bytes)[...]
            func field() -> String? {
                guard let length = reader.first, reader.count > Int(length) else { return nil }
                let text = String(decoding: reader.dropFirst().prefix(Int(length)), as: UTF8.self)
                reader = reader.dropFirst(1 + Int(length))
                return text
            }
            guard let name = field(), let count = reader.popFirst() else { return nil }
            var arguments: [String] = []
            for _ in 0..<count {
                guard let argument = field() else { return nil }
                arguments.append(argument)
            }
            return (Command(name, arguments), bytes.count - reader.count)
        }
    }

    /// One reply's bytes on the wire.
    public static func encodeReply(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        return withUnsafeBytes(of: UInt32(utf8.count).littleEndian, Array.init) + utf8
    }

    /// Splits the byte stream from rootcanal into replies, however the bytes arrive.
    public struct ReplyDecoder: Sendable {
        private var buffer: [UInt8] = []
        /// Replies longer than this are taken for lost framing.
        public static let maximumReply = 1 << 20

        public init() {}

        /// Takes the next bytes; returns the replies they complete, in order.
        public mutating func feed(_ bytes: some Sequence<UInt8>) throws(RootcanalError) -> [String] {
            buffer += bytes
            var replies: [String] = []
            while buffer.count >= 4 {
                let length = buffer[0..<4].reversed().reduce(0) { $0 << 8 | Int($1) }
                guard length <= Self.maximumReply else {
                    throw RootcanalError(
                        .unexpectedReply, "the test channel announced a \(length)-byte reply: framing is lost")
                }
                guard buffer.count >= 4 + length else { break }
                replies.append(String(decoding: buffer[4..<4 + length], as: UTF8.self))
                buffer.removeFirst(4 + length)
            }
            return replies
        }
    }
}

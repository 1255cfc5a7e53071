import Foundation

/// The listening TCP sockets of this host as the kernel lists them in `/proc/net/tcp` and `/proc/net/tcp6`, and
/// which of them are reachable from outside: anything not bound to a loopback address.
///
/// blerig checks the ports of every rootcanal it starts with this, so a listener on 0.0.0.0 is refused however it
/// came about (the preload library missing or bypassed), not trusted.
public struct LoopbackListeners: Sendable {
    /// One listening socket: its local address (dotted or IPv6 text) and port.
    public struct Listener: Sendable, Hashable, CustomStringConvertible {
        public var address: String
        public var port: UInt16
        public var isLoopback: Bool

        public var description: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }
    }

    public var listeners: [Listener]

    /// Reads the kernel's tables; a table that cannot be read (no IPv6) lists nothing.
    public static func current(tables: [String] = ["/proc/net/tcp", "/proc/net/tcp6"]) -> LoopbackListeners {
        LoopbackListeners(
            listeners: tables.flatMap { path in
                (try? String(contentsOfFile: path, encoding: .utf8)).map(parse) ?? []
            })
    }

    /// The listeners on `ports` that are not on a loopback address.
    public func exposed(on ports: [UInt16]) -> [Listener] {
        listeners.filter { ports.contains($0.port) && !$0.isLoopback }
    }

    /// The LISTEN rows (state `0A`) of one table: `sl local_address rem_address st ...`, where the local address
    /// is the network-order address printed as native 32-bit words in hex, then `:` and the port in hex.
    static func parse(_ table: String) -> [Listener] {
        table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 3, fields[3] == "0A" else { return nil }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, let port = UInt16(local[1], radix: 16), let bytes = addressBytes(local[0]) else {
                return nil
            }
            return listener(bytes, port: port)
        }
    }

    /// The address's bytes in network order, from 8 or 32 hex digits of native-endian 32-bit words.
    static func addressBytes(_ hex: Substring) -> [UInt8]? {
        guard hex.count == 8 || hex.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var rest = hex
        while !rest.isEmpty {
            guard let word = UInt32(rest.prefix(8), radix: 16) else { return nil }
            withUnsafeBytes(of: word) { bytes.append(contentsOf: $0) }
            rest = rest.dropFirst(8)
        }
        return bytes
    }

    static func listener(_ bytes: [UInt8], port: UInt16) -> Listener {
        if bytes.count == 4 {
            return Listener(address: bytes.map(String.init).joined(separator: "."), port: port, isLoopback: bytes[0] == 127)
        }
        let mappedV4 = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let words = stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return Listener(
            address: mappedV4 ? "::ffff:" + bytes[12...].map(String.init).joined(separator: ".") : words.joined(separator: ":"),
            port: port, isLoopback: loopback || (mappedV4 && bytes[12] == 127))
    }
}

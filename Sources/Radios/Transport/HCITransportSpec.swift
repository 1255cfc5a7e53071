/// Where an HCI controller is, as a rig file or the command line writes it:
///
/// - `tcp:HOST:PORT` — H4 over TCP (rootcanal: `tcp:127.0.0.1:6402`); an IPv6 host goes in brackets,
///   `tcp:[::1]:6402`.
///
/// ``description`` writes the canonical form, which ``parse(_:)`` reads back to the same spec.
public enum HCITransportSpec: Hashable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)

    private static let forms = "tcp:HOST:PORT"

    public static func parse(_ text: String) throws(HCITransportError) -> Self {
        guard let colon = text.firstIndex(of: ":") else {
            throw invalid("'\(text)' names no transport; write \(forms)")
        }
        let rest = text[text.index(after: colon)...]
        switch text[..<colon] {
        case "tcp": return try parseTCP(rest, text)
        case let scheme: throw invalid("'\(text)': '\(scheme)' is not a transport; write \(forms)")
        }
    }

    public var description: String {
        switch self {
        case let .tcp(host, port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        }
    }

    /// Opens the transport the spec names.
    public func open() throws(HCITransportError) -> any HCITransport {
        switch self {
        case let .tcp(host, port): try TCPTransport(host: host, port: port)
        }
    }

    /// Decimal digits only: `UInt16("+1")` would take a sign.
    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    private static func invalid(_ message: String) -> HCITransportError { HCITransportError(.invalidSpec, message) }

    private static func parseTCP(_ rest: Substring, _ text: String) throws(HCITransportError) -> Self {
        let host: Substring
        let port: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else {
                throw invalid("'\(text)': an IPv6 host is written [ADDRESS]:PORT, e.g. tcp:[::1]:6402")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            port = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else {
                throw invalid("'\(text)' has no port; write tcp:HOST:PORT, e.g. tcp:127.0.0.1:6402")
            }
            host = rest[..<colon]
            port = rest[rest.index(after: colon)...]
            guard !host.contains(":") else {
                throw invalid("'\(text)': write an IPv6 host in brackets, e.g. tcp:[::1]:6402")
            }
        }
        guard !host.isEmpty else {
            throw invalid("'\(text)' has no host; write tcp:HOST:PORT, e.g. tcp:127.0.0.1:6402")
        }
        guard isNumber(port), let number = UInt16(port), number > 0 else {
            throw invalid("'\(text)': '\(port)' is not a TCP port (1–65535)")
        }
        return .tcp(host: String(host), port: number)
    }
}

/// Where an HCI controller is, as a rig file or the command line writes it:
///
/// - `tcp:HOST:PORT` — H4 over TCP (rootcanal: `tcp:127.0.0.1:6402`); an IPv6 host goes in brackets,
///   `tcp:[::1]:6402`.
/// - `uart:PATH@BAUD[,flow=none]` — H4 over a serial port, RTS/CTS flow control unless `flow=none`
///   (`uart:/dev/ttyACM0@1000000`). Without `@BAUD` the rate is 1000000, the usual rate of Zephyr's and Nordic's
///   HCI UART firmware; ``description`` always writes it. The path may not contain a comma.
/// - `hci-user:N` or `hci-user:hciN` — adapter hciN through the BlueZ HCI user channel.
///
/// ``description`` writes the canonical form, which ``parse(_:)`` reads back to the same spec.
public enum HCITransportSpec: Hashable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)
    case uart(path: String, baud: Int, flowControl: FlowControl)
    case hciUser(adapter: UInt16)

    /// The UART rate when a spec names none.
    public static let defaultBaud = 1_000_000

    /// The rates a `uart:` spec may name: those a Linux serial port can be set to.
    public static let baudRates = [
        9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000, 576_000, 921_600, 1_000_000, 1_152_000,
        1_500_000, 2_000_000, 2_500_000, 3_000_000, 3_500_000, 4_000_000,
    ]

    public enum FlowControl: String, Hashable, Sendable {
        /// Hardware flow control on the RTS and CTS lines (CRTSCTS), the default.
        case rtsCts = "rtscts"
        /// No flow control (`,flow=none`): for controllers without the lines wired.
        case none
    }

    private static let forms = "tcp:HOST:PORT, uart:PATH@BAUD[,flow=none] or hci-user:N"

    public static func parse(_ text: String) throws(HCITransportError) -> Self {
        guard let colon = text.firstIndex(of: ":") else {
            throw invalid("'\(text)' names no transport; write \(forms)")
        }
        let rest = text[text.index(after: colon)...]
        switch text[..<colon] {
        case "tcp": return try parseTCP(rest, text)
        case "uart": return try parseUART(rest, text)
        case "hci-user": return try parseUserChannel(rest, text)
        case let scheme: throw invalid("'\(text)': '\(scheme)' is not a transport; write \(forms)")
        }
    }

    public var description: String {
        switch self {
        case let .tcp(host, port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case let .uart(path, baud, flowControl): "uart:\(path)@\(baud)" + (flowControl == .none ? ",flow=none" : "")
        case let .hciUser(adapter): "hci-user:\(adapter)"
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

    private static func parseUART(_ rest: Substring, _ text: String) throws(HCITransportError) -> Self {
        let parts = rest.split(separator: ",", omittingEmptySubsequences: false)
        var path = parts[0]
        var baud = defaultBaud
        if let at = path.lastIndex(of: "@") {
            let rate = path[path.index(after: at)...]
            guard isNumber(rate), let number = Int(rate), Self.baudRates.contains(number) else {
                let rates = Self.baudRates.map(String.init).joined(separator: ", ")
                throw invalid("'\(text)': '\(rate)' is not a baud rate a serial port can be set to (\(rates))")
            }
            baud = number
            path = path[..<at]
        }
        guard path.hasPrefix("/") else {
            throw invalid("'\(text)': '\(path)' is not the path of a serial port, such as /dev/ttyACM0")
        }
        var flowControl = FlowControl.rtsCts
        for option in parts.dropFirst() {
            switch option {
            case "flow=none": flowControl = .none
            case "flow=rtscts": flowControl = .rtsCts
            default:
                throw invalid(
                    "'\(text)': '\(option)' is not a UART option; the one option is flow=none (or flow=rtscts)")
            }
        }
        return .uart(path: String(path), baud: baud, flowControl: flowControl)
    }

    private static func parseUserChannel(_ rest: Substring, _ text: String) throws(HCITransportError) -> Self {
        let digits = rest.hasPrefix("hci") ? rest.dropFirst(3) : rest
        guard isNumber(digits), let adapter = UInt16(digits), adapter < 0xFFFF else {
            throw invalid("'\(text)': '\(rest)' is not an adapter; write hci-user:0 or hci-user:hci0")
        }
        return .hciUser(adapter: adapter)
    }
}

/// Why a transport could not be opened, or stopped working. `message` says what happened and where;
/// `fix` says what the user can do about it, when there is something to do.
public struct HCITransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The spec does not parse (`tcp:host` without a port, an unknown scheme).
        case invalidSpec
        /// The kernel has no Bluetooth (EAFNOSUPPORT), the adapter does not exist, or the serial port is missing.
        case unavailable
        /// The adapter or port is in use by someone else (bluetoothd, another blerig).
        case busy
        /// The process lacks a permission (CAP_NET_ADMIN for the user channel, the dialout group for a UART).
        case permission
        /// The controller closed the connection or the device vanished.
        case disconnected
        /// The byte stream is not H4: framing is lost.
        case framing
        /// Any other system-call failure, with its errno text.
        case io
    }

    public var code: Code
    public var message: String
    public var fix: String?

    public init(_ code: Code, _ message: String, fix: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
    }

    public var description: String { fix.map { "\(message) (\($0))" } ?? message }
}

/// A radio named on the command line (`blerig scan --radio SPEC`, `blerig probe --radio SPEC`), as opposed to one a
/// rig file describes:
///
/// - `virtual:rigs/virtual.yaml`: the first radio of a virtual rig, with the rig's boards powered on;
/// - `tcp:127.0.0.1:6402`, `uart:/dev/ttyACM0@1000000`: blerig's HCI host on an H4 transport;
/// - `hci-user:0` (or `user:hci0`, as rig files write it): blerig's HCI host on a BlueZ adapter's user channel.
public enum RadioSpec: Hashable, Sendable, CustomStringConvertible {
    case virtual(rigFile: String)
    case hci(RadioConfig.Transport)

    /// The forms, for help texts and errors.
    public static let forms = "virtual:RIG.yaml, tcp:HOST:PORT, uart:/dev/PATH[@BAUD] or hci-user:N"

    /// Parses a spec; the error says what is wrong and which forms there are.
    public static func parse(_ text: String) -> Result<RadioSpec, RadioOpenError> {
        guard let colon = text.firstIndex(of: ":") else {
            return .failure(.init(.invalidSpec, "radio \(RigWording.quoted(text)) has no kind (expected \(forms))"))
        }
        let scheme = text[..<colon]
        let rest = String(text[text.index(after: colon)...])
        switch scheme {
        case "virtual":
            guard !rest.isEmpty else {
                return .failure(
                    .init(.invalidSpec, "radio 'virtual:' needs a rig file, such as virtual:rigs/virtual.yaml"))
            }
            return .success(.virtual(rigFile: rest))
        case "hci-user":
            guard !rest.isEmpty, rest.allSatisfy(\.isASCII), let index = UInt(rest) else {
                return .failure(
                    .init(
                        .invalidSpec,
                        "radio \(RigWording.quoted(text)) needs an adapter number, such as hci-user:0 for hci0"))
            }
            return .success(.hci(.userChannel(adapter: "hci\(index)")))
        case "tcp", "uart", "user":
            switch RadioConfig.Transport.parse(text) {
            case let .success(transport): return .success(.hci(transport))
            case let .failure(error): return .failure(.init(.invalidSpec, "radio: \(error.message)"))
            }
        default:
            return .failure(
                .init(
                    .invalidSpec,
                    "unknown radio kind \(RigWording.quoted(String(scheme))) in \(RigWording.quoted(text)) "
                        + "(expected \(forms))"))
        }
    }

    public var description: String {
        switch self {
        case let .virtual(rigFile): "virtual:\(rigFile)"
        case let .hci(.userChannel(adapter)) where RadioConfig.isAdapterName(adapter):
            "hci-user:\(adapter.dropFirst(3))"
        case let .hci(transport): "\(transport)"
        }
    }
}

import BenchCore

/// A radio named on the command line (`blerig scan --radio SPEC`, `blerig probe --radio SPEC`), as opposed to one a
/// rig file describes:
///
/// - `virtual:rigs/virtual.yaml`: the first radio of a virtual rig, with the rig's boards powered on;
/// - `tcp:127.0.0.1:6402`, `uart:/dev/ttyACM0@1000000`, `hci-user:0`: blerig's HCI host on that controller, read
///   with the grammar rig files use for `transport:` (``HCITransportSpec``);
/// - `bluez:hci0` (or `bluez:0`): the kernel's own Bluetooth stack on adapter hci0, beside bluetoothd, as
///   `radio: {kind: bluez, adapter: hci0}` in a rig file.
public enum RadioSpec: Hashable, Sendable, CustomStringConvertible {
    case virtual(rigFile: String)
    case hci(HCITransportSpec)
    case bluez(adapter: UInt16)

    /// The forms, for help texts and errors.
    public static let forms =
        "virtual:RIG.yaml, tcp:HOST:PORT, uart:/dev/PATH[@BAUD][,flow=none], hci-user:N or bluez:hciN"

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
        case "bluez":
            let digits = rest.hasPrefix("hci") ? rest.dropFirst(3) : Substring(rest)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let adapter = UInt16(digits),
                adapter < 0xFFFF
            else {
                return .failure(
                    .init(
                        .invalidSpec,
                        "radio \(RigWording.quoted(text)): \(RigWording.quoted(rest)) is not an adapter; write bluez:hci0 "
                            + "or bluez:0"))
            }
            return .success(.bluez(adapter: adapter))
        case "tcp", "uart", "hci-user":
            do throws(HCITransportError) {
                return .success(.hci(try HCITransportSpec.parse(text)))
            } catch {
                return .failure(.init(.invalidSpec, "radio \(error.message)"))
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
        case let .hci(transport): "\(transport)"
        case let .bluez(adapter): "bluez:hci\(adapter)"
        }
    }
}

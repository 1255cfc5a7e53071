import BLECore

/// The device `blerig probe` looks for: an address or an advertised local name.
public enum ProbeTarget: Hashable, Sendable, CustomStringConvertible {
    /// A 48-bit address; `kind` nil matches a public or a random address with those bits (users rarely know which).
    case address(UInt64, kind: DeviceAddress.Kind?)
    /// The complete (or shortened) local name, exactly.
    case name(String)

    /// `24:0A:C4:12:1A:2B` (or with `/random`, `/public`) is an address; anything else is a name.
    public init(_ text: String) {
        guard let address = DeviceAddress(text) else {
            self = .name(text)
            return
        }
        let explicit =
            text.hasSuffix("random)") || text.hasSuffix("/random") || text.hasSuffix("public)")
            || text.hasSuffix("/public")
        self = .address(address.value, kind: explicit ? address.kind : nil)
    }

    /// True when `advertisement` comes from this device.
    public func matches(_ advertisement: Advertisement) -> Bool {
        switch self {
        case let .address(value, kind):
            advertisement.address.value == value && (kind == nil || kind == advertisement.address.kind)
        case let .name(name): advertisement.data.localName == name
        }
    }

    public var description: String {
        switch self {
        case let .address(value, kind):
            "\(DeviceAddress(value, kind: kind ?? .public))\(kind == .public ? " (public)" : "")"
        case let .name(name): "'\(name)'"
        }
    }
}

import BenchCore

/// One radio a rig runs its central on: `radio:` in the rig file, or an entry of `radios:`.
///
/// ```yaml
/// radio: virtual                                    # shorthand for {kind: virtual}; its id is `radio`
/// radio: {kind: bluez, adapter: hci0, max_links: 4} # BlueZ kernel sockets; adapter defaults to hci0
/// radio: {kind: hci, transport: "tcp:127.0.0.1:6402"}   # blerig's own HCI host over H4 (see HCITransportSpec)
/// radio: {kind: rootcanal}                          # rootcanal started by blerig; the board models are served
/// radios:                                           # several radios, each with an id boards can pin
///   - {id: r1, kind: bluez, adapter: hci0}
///   - {id: r2, kind: hci, transport: "uart:/dev/ttyACM0@1000000", max_links: 2}
/// ```
public struct RadioConfig: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The virtual farm's simulated radio.
        case virtual
        /// A BlueZ adapter through kernel sockets, `hci0`, `hci1`, ...
        case bluez(adapter: String)
        /// A controller driven by blerig's own HCI host over H4.
        case hci(HCITransportSpec)
        /// A controller of rootcanal, Google's virtual controller, driven by blerig's HCI host, with every board
        /// of the rig served from its model on a controller of its own. `transport` names a rootcanal already
        /// running (its HCI port); nil starts one on free ports for the run, with its tick set to `tickMilliseconds`.
        case rootcanal(HCITransportSpec?, tickMilliseconds: Int)
    }

    /// rootcanal's tick when blerig starts it: every packet waits for the next tick (its default is 5 ms).
    public static let defaultRootcanalTick = 1

    /// The id of the one radio `radio:` describes.
    public static let defaultID = "radio"
    /// What `max_links` may be.
    public static let maxLinksRange = 1...64

    /// The radio's id: `radio` for `radio:`, as written for an entry of `radios:` (the syntax of board ids, unique
    /// ignoring case). Boards pin themselves to a radio by this id.
    public var id: String
    public var kind: Kind
    /// `max_links`: the most simultaneous links the controller holds, 1…64; nil when not written, and the bench
    /// applies its own default (8 for the virtual radio).
    public var maxLinks: Int?
    /// Where `radio:`'s value, or the entry of `radios:`, is written.
    public var location: SourceLocation

    public init(id: String = RadioConfig.defaultID, _ kind: Kind, maxLinks: Int? = nil, at location: SourceLocation) {
        self.id = id
        self.kind = kind
        self.maxLinks = maxLinks
        self.location = location
    }

    public var isVirtual: Bool { kind == .virtual }

    /// True when the rig's boards are blerig's own board models (the virtual farm, or served over rootcanal)
    /// rather than hardware found on the air.
    public var servesBoardModels: Bool {
        switch kind {
        case .virtual, .rootcanal: true
        case .bluez, .hci: false
        }
    }

    /// `kind:` as written: `virtual`, `bluez` or `hci`.
    public var kindName: String {
        switch kind {
        case .virtual: "virtual"
        case .bluez: "bluez"
        case .hci: "hci"
        case .rootcanal: "rootcanal"
        }
    }

    public static let defaultBlueZAdapter = "hci0"

    /// The device the radio holds, for telling two radios of one rig apart: a BlueZ adapter (also through its HCI
    /// user channel), a TCP endpoint or a serial device (whatever its baud rate). Nil for the virtual radio.
    var device: String? {
        switch kind {
        // Every connection to rootcanal's HCI port is a controller of its own: radios may share it.
        case .virtual, .rootcanal: nil
        case .bluez(let adapter): "adapter \(adapter)"
        case .hci(.hciUser(let index)): "adapter hci\(index)"
        case .hci(.tcp(let host, let port)): "transport tcp:\(host.lowercased()):\(port)"
        case .hci(.uart(let path, _, _)): "serial device \(RigWording.quoted(path))"
        }
    }

    /// `hci0`, `hci12`.
    static func isAdapterName(_ text: String) -> Bool {
        let number = text.dropFirst(3)
        return text.hasPrefix("hci") && !number.isEmpty && number.allSatisfy(\.isASCII) && UInt(number) != nil
    }
}

extension RadioConfig {
    /// Radios of one rig share a family: the virtual farm's air, one rootcanal, or the real air.
    enum Family { case virtual, rootcanal, hardware }

    var family: Family {
        switch kind {
        case .virtual: .virtual
        case .rootcanal: .rootcanal
        case .bluez, .hci: .hardware
        }
    }
}

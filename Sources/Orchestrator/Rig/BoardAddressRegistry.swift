import BLECore
import DeviceProfiles

/// The addresses the board models of a virtual or rootcanal rig will take, checked before anything runs: two
/// boards at one address cannot both be on the air (the virtual farm refuses the second outright). An address is
/// written (`virtual.address`, or `match.address`, which the model then takes) or derived from the board id
/// (``Profile/modelAddress(forBoard:)``, a 24-bit hash per profile, so a rig of thousands of boards has collisions
/// of its own). A collision is reported at the second board, naming the first and where each address comes from.
struct BoardAddressRegistry {
    let diagnostics: RigDiagnostics
    /// On rootcanal a model's address goes on the air as a random static one (the top two bits set): addresses
    /// equal but for those bits collide there.
    let airForm: Bool
    private var claims: [DeviceAddress: (owner: String, source: String, location: SourceLocation)] = [:]

    init(diagnostics: RigDiagnostics, airForm: Bool) {
        self.diagnostics = diagnostics
        self.airForm = airForm
    }

    /// Where a board's model address comes from, and where that is written.
    enum Source {
        case virtualAddress(SourceLocation)
        case matchAddress(SourceLocation)
        case derived(id: SourceLocation)

        var words: String {
            switch self {
            case .virtualAddress: "written in virtual.address"
            case .matchAddress: "its match address"
            case .derived: "derived from its id"
            }
        }

        var location: SourceLocation {
            switch self {
            case .virtualAddress(let at), .matchAddress(let at), .derived(id: let at): at
            }
        }
    }

    /// Claims `address` for board `id`; records a conflict (false) when another board has it.
    @discardableResult
    mutating func claim(_ address: DeviceAddress, board id: String, from source: Source) -> Bool {
        let key = airForm ? DeviceAddress(address.value | 0xC000_0000_0000, kind: .random) : address
        let owner = "board \(RigWording.quoted(id))"
        guard let first = claims[key] else {
            claims[key] = (owner, source.words, source.location)
            return true
        }
        let air = airForm ? " (on the air as \(key))" : ""
        let fix =
            if case .derived = source { "give one of them a virtual.address of its own, or another id" } else {
                "give one of them another address"
            }
        diagnostics.record(
            .conflict,
            "\(owner) would be at \(address) (\(source.words))\(air), the address of \(first.owner) "
                + "(\(first.source), at \(first.location.lineAndColumn)); two boards cannot share an address: \(fix)",
            at: source.location)
        return false
    }
}

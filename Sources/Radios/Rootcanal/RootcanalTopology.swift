/// rootcanal's devices and phys, parsed from the test channel's `list` reply. No I/O.
///
/// rootcanal 1.10 answers `list` with lines such as
/// ```
///  Devices:
///   0:hci_device@da:4c:10:de:17:00
///  Phys:
///   0:BR_EDR: 0,
///   1:LOW_ENERGY: 0,
/// ```
/// (CRLF line ends, a space before each). Every HCI connection is a device; phy 0 is BR/EDR and phy 1 is LE.
public struct RootcanalTopology: Sendable, Hashable {
    public struct Device: Sendable, Hashable {
        /// The index that `add_device_to_phy` and `del_device_from_phy` take.
        public var index: Int
        /// rootcanal's name for it, e.g. `hci_device@da:4c:10:de:17:00`.
        public var description: String
        /// The controller's address, when the description carries one (after `@`).
        public var address: String? {
            description.split(separator: "@", maxSplits: 1).dropFirst().first.map(String.init)
        }
    }

    public struct Phy: Sendable, Hashable {
        public var index: Int
        /// `BR_EDR` or `LOW_ENERGY`.
        public var kind: String
        /// The indices of the devices on this phy.
        public var devices: [Int]
    }

    public var devices: [Device]
    public var phys: [Phy]

    public init(devices: [Device], phys: [Phy]) {
        self.devices = devices
        self.phys = phys
    }

    /// Parses a `list` reply; throws when it does not have rootcanal's shape.
    public init(listReply reply: String) throws(RootcanalError) {
        enum Section { case none, devices, phys }
        var section = Section.none
        var devices: [Device] = []
        var phys: [Phy] = []
        func malformed(_ line: Substring) -> RootcanalError {
            RootcanalError(.unexpectedReply, "the test channel's list reply has a line it cannot parse: '\(line)'")
        }
        for raw in reply.split(whereSeparator: \.isNewline) {
            let line = raw.trimmed(of: " \t")
            if line.isEmpty { continue }
            if line == "Devices:" {
                section = .devices
                continue
            }
            if line == "Phys:" {
                section = .phys
                continue
            }
            let fields = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2, let index = Int(fields[0]) else { throw malformed(raw) }
            switch section {
            case .none:
                throw malformed(raw)
            case .devices:
                devices.append(Device(index: index, description: String(fields[1])))
            case .phys:
                let rest = fields[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard rest.count == 2 else { throw malformed(raw) }
                var members: [Int] = []
                for member in rest[1].split(separator: ",") {
                    let trimmed = member.trimmed(of: " ")
                    if trimmed.isEmpty { continue }
                    guard let device = Int(trimmed) else { throw malformed(raw) }
                    members.append(device)
                }
                phys.append(Phy(index: index, kind: String(rest[0]), devices: members))
            }
        }
        guard section == .phys else {
            throw RootcanalError(.unexpectedReply, "the test channel's list reply has no Phys section: '\(reply)'")
        }
        self.init(devices: devices, phys: phys)
    }

    /// The LE phy (`LOW_ENERGY`), where BLE devices meet.
    public var lowEnergy: Phy? { phys.first { $0.kind == "LOW_ENERGY" } }
}

extension StringProtocol {
    fileprivate func trimmed(of characters: String) -> String {
        let set = Set(characters + "\r")
        guard let first = firstIndex(where: { !set.contains($0) }) else { return "" }
        let last = lastIndex { !set.contains($0) }!
        return String(self[first...last])
    }
}

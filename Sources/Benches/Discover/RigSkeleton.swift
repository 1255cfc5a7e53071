import BLECore
import BenchCore
import BoardControl
import DeviceProfiles

/// One board `blerig discover` found: its serial port, what its ids suggest, its hub port, and its air address
/// when switching that port off silenced one advertiser.
public struct DiscoveredBoard: Sendable, Hashable {
    public var port: SerialPortInfo
    public var guess: ProfileGuess?
    public var place: HubPlace?
    /// Whether the hub switches that port alone (nil: unknown).
    public var switchable: Bool?
    public var air: QuietAdvertiser.Outcome?

    public init(
        port: SerialPortInfo, guess: ProfileGuess?, place: HubPlace?, switchable: Bool?,
        air: QuietAdvertiser.Outcome? = nil
    ) {
        self.port = port
        self.guess = guess
        self.place = place
        self.switchable = switchable
        self.air = air
    }

    /// The name that survives re-enumeration: a `/dev/serial/by-id/` link, else the USB serial number when it
    /// names only this board, else the USB interface's location.
    func stablePortName(serialUnique: Bool) -> String {
        if let link = port.byID.first { return link }
        if let serial = port.serialNumber, serialUnique, !serial.isEmpty { return "serial:\(serial)" }
        if let interface = port.usbInterface { return "usb:\(interface)" }
        return port.devicePath
    }
}

/// Writes a rig file from what `blerig discover` found: every board with its profile guess, serial port, reset,
/// hub port and match; what it could not tell is marked `TODO` with how to find out. The result loads as a rig
/// (`blerig doctor` resolves it) once the TODOs are answered, and as it is when nothing is left to answer.
public enum RigSkeleton {
    public static func yaml(boards: [DiscoveredBoard], radio: String?, name: String = "bench") -> String {
        var lines = [
            "# Written by blerig discover: check each board's profile, and answer the TODOs.",
            "rig: \(name)",
            "",
        ]
        if let radio {
            lines.append("radio: {kind: hci, transport: \"\(radio)\"}")
        } else {
            lines.append("# TODO: the radio; kind bluez drives the kernel's adapter, hci-user:N takes it for blerig alone")
            lines.append("radio: {kind: bluez, adapter: hci0}")
        }
        lines += ["", "boards:"]
        let serials = boards.compactMap(\.port.serialNumber)
        var counts: [String: Int] = [:]
        for board in boards {
            let prefix = switch board.guess?.profile {
            case .espPoint: "esp"
            case .nano33BLESense: "nano"
            case .hrm: "hrm"
            case .described, nil: "board"
            }
            counts[prefix, default: 0] += 1
            let id = "\(prefix)-\(counts[prefix]! < 10 ? "0" : "")\(counts[prefix]!)"
            lines += entry(board, id: id, serialUnique: serials.filter { $0 == board.port.serialNumber }.count == 1)
        }
        if boards.isEmpty { lines.append("  []  # no USB serial port was found: plug the boards in and run it again") }
        lines += ["", "suites:", "  - discovery", "  - handshake", ""]
        return lines.joined(separator: "\n")
    }

    private static func entry(_ board: DiscoveredBoard, id: String, serialUnique: Bool) -> [String] {
        var lines = ["  - id: \(id)"]
        if let guess = board.guess {
            lines.append("    profile: \(guess.profile)  # \(guess.reason)")
        } else {
            let ids = board.port.vendorID.map { SerialPortName.hex($0) } ?? "?"
            let product = board.port.productID.map { SerialPortName.hex($0) } ?? "?"
            lines.append("    # TODO: a profile blerig cannot guess from \(ids):\(product) (esp-point, nano33-ble-sense, hrm)")
            lines.append("    profile: esp-point")
        }
        lines.append(match(board.air, id: id))
        let reset = board.guess?.reset.rawValue ?? "none"
        lines.append("    serial: {port: \"\(board.stablePortName(serialUnique: serialUnique))\", reset: \(reset)}"
            + "  # now \(board.port.devicePath)")
        if let place = board.place {
            let power = "    power: {hub: \"\(place.hub)\", port: \(place.port)}"
            switch board.switchable {
            case true?: lines.append(power)
            case false?: lines.append("    # \(place): the hub cannot switch this port alone, so no power: line")
            case nil: lines.append(power + "  # TODO: whether the hub switches per port is unknown (blerig doctor)")
            }
        }
        return lines
    }

    private static func match(_ air: QuietAdvertiser.Outcome?, id: String) -> String {
        switch air {
        case .found(let address, let name)?:
            let name = name.map { ", name: \"\($0)\"" } ?? ""
            return "    match: {address: \"\(address)\"\(name)}  # went quiet when its hub port was switched off"
        case .several(let addresses)?:
            return "    match: {name: \"TODO-\(id)\"}  # TODO: one of \(addresses.map(\.description).joined(separator: ", ")) "
                + "went quiet with it"
        case .noneWentQuiet?:
            return "    match: {name: \"TODO-\(id)\"}  # TODO: no advertiser went quiet when its port was off"
        case .nothingHeard?:
            return "    match: {name: \"TODO-\(id)\"}  # TODO: nothing was advertising during the scan"
        case nil:
            return "    match: {name: \"TODO-\(id)\"}  # TODO: its advertised name or address (blerig discover --radio ...)"
        }
    }
}

import BLECore
import BenchCore
import BoardControl
import Orchestrator

/// Real boards' capabilities from the rig: a board with `serial:` gets its console and reset lines from one open
/// port (``SerialBoardLink``), a board with `power:` its hub port (``HubPowerSwitch``). Every port is opened when
/// the bench opens, so a missing, busy or forbidden one stops the run before anything is measured.
struct HardwareBoards {
    let boards: [BenchBoard]
    let links: [SerialBoardLink]

    static func open(
        _ rig: RigConfig, clock: any RigClock, environment: SerialEnvironment = .host
    ) throws(BenchError) -> HardwareBoards {
        var boards: [BenchBoard] = []
        var links: [SerialBoardLink] = []
        do {
            for config in rig.boards {
                let link = try config.serial.map { serial throws(BenchError) in
                    try openLink(config, serial, clock: clock, environment: environment)
                }
                if let link { links.append(link) }
                let power = config.power.map {
                    HubPowerSwitch(location: $0.hub, port: $0.port, paths: environment.paths, clock: clock)
                }
                var identity: [(key: String, value: String)] = [("profile", config.profile.rawValue)]
                if let link { identity.append(("serial", link.description)) }
                if let power { identity.append(("power", power.description)) }
                boards.append(
                    BenchBoard(
                        id: config.id, match: BoardMatch(address: config.match?.address, name: config.match?.name),
                        power: power, reset: link.flatMap { $0.kinds.isEmpty ? nil : $0 }, console: link,
                        identity: identity))
            }
        } catch {
            for link in links { link.close() }
            throw error
        }
        return HardwareBoards(boards: boards, links: links)
    }

    static func openLink(
        _ config: BoardConfig, _ serial: BoardConfig.Serial, clock: any RigClock, environment: SerialEnvironment
    ) throws(BenchError) -> SerialBoardLink {
        let place = "board '\(config.id)' (\(serial.location))"
        let name: SerialPortName
        do { name = try SerialPortName(parsing: serial.port) } catch {
            throw BenchError(.missing, "\(place): \(error.message)")
        }
        do {
            return try SerialBoardLink(
                name: name, settings: SerialPort.Settings(baud: serial.baud), wiring: serial.reset, clock: clock,
                environment: environment)
        } catch {
            throw BenchError(error.code, "\(place): \(error.message)")
        }
    }

    func close() {
        for link in links { link.close() }
    }
}

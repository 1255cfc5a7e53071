import BLECore
import BenchCore
import BoardControl
import Orchestrator

/// The logic of `blerig power`, `blerig reset` and `blerig console`; the CLI only parses.
public struct BoardTool: Sendable {
    public let target: BoardTarget
    let environment: SerialEnvironment
    let clock: any RigClock

    public init(target: BoardTarget, environment: SerialEnvironment = .host, clock: any RigClock = WallClock()) {
        self.target = target
        self.environment = environment
        self.clock = clock
    }

    public enum PowerAction: String, Sendable, CaseIterable {
        case on, off, cycle, status
    }

    /// Switches the board's hub port and says what the hub reports afterwards.
    public func power(_ action: PowerAction, offFor: Duration, output: (String) -> Void) async throws(BoardToolError) {
        guard let power = target.power else {
            throw .usage("\(target.label) has no power switch: give it `power: {hub: \"1-1.4\", port: 2}` in the rig")
        }
        let hubPort = HubPowerSwitch(location: power.hub, port: power.port, paths: environment.paths, clock: clock)
        do {
            let started = clock.now
            switch action {
            case .on: try await hubPort.on()
            case .off: try await hubPort.off()
            case .cycle: try await hubPort.cycle(offFor: offFor, clock: clock)
            case .status: break
            }
            let switchedOn = clock.now
            let took = started.duration(to: switchedOn)
            if action != .status { output("\(target.label): \(hubPort) \(action) in \(took.millisecondsText)") }
            if action == .on || action == .cycle { output(try await deviceBack(hubPort, since: switchedOn)) }
            output("\(try hubPort.status())")
        } catch {
            throw .bench(BenchError(error.code, "\(target.prefix)\(error.message)"))
        }
    }

    /// How long `power on` watches the port for the board to enumerate behind it.
    static let enumerationTimeout: Duration = .seconds(5)

    /// After power on: when the device behind the port was on the bus again, or that none came within
    /// ``enumerationTimeout`` (nothing plugged in, or a board that does not start).
    func deviceBack(_ hubPort: HubPowerSwitch, since switchedOn: RigInstant) async throws(BenchError) -> String {
        let deadline = switchedOn.advanced(by: Self.enumerationTimeout)
        while true {
            let status = try hubPort.status()
            if status.deviceEnumerated {
                let after = switchedOn.duration(to: clock.now)
                return "device \(status.hub.childLocation(status.port)) on the bus \(after.millisecondsText) after power on"
            }
            guard clock.now < deadline else {
                return "no device on the bus behind \(hubPort) \(Self.enumerationTimeout.seconds) s after power on "
                    + "(nothing plugged in, or the board does not start)"
            }
            do { try await clock.sleep(for: .milliseconds(10), tolerance: .zero) } catch {
                throw BenchError(.cancelled, "waiting for the device behind \(hubPort) was cancelled")
            }
        }
    }

    /// Plays `sequence`, or the board's own reset of `kind`, on its serial port.
    public func reset(
        _ kind: ResetKind, sequence: ResetSequence?, output: (String) -> Void
    ) async throws(BoardToolError) {
        let serial = try target.requireSerial(for: "reset it")
        let plan: ResetPlan
        if let sequence {
            plan = .lines(sequence)
        } else if let own = serial.wiring.plan(for: kind) {
            plan = own
        } else {
            throw .usage(
                "\(target.label) is wired for \(serial.wiring) resets, which cannot do a \(kind) reset; give "
                    + "--sequence, or another reset in the rig")
        }
        do {
            let link = try SerialBoardLink(
                name: serial.name, settings: SerialPort.Settings(baud: serial.baud), wiring: serial.wiring,
                clock: clock, environment: environment)
            defer { link.close() }
            let port = link.description
            let started = clock.now
            let bootloader = try await link.perform(plan)
            output("\(target.label): \(plan) on \(port) in \(started.duration(to: clock.now).millisecondsText)")
            if case .touch1200 = plan {
                output(
                    bootloader.map { "bootloader port: \($0)" }
                        ?? "no new port within 10 s: the bootloader kept \(port)")
            }
        } catch {
            throw .bench(BenchError(error.code, "\(target.prefix)\(error.message)"))
        }
    }
}

extension Duration {
    /// `100.2 ms`.
    var millisecondsText: String { "\((milliseconds * 10).rounded() / 10) ms" }
}

import BLECore
import CentralStack
import Foundation

/// `blerig probe` without the argument parsing: open the radio, find the device, walk its GATT table, print it as
/// text or JSON, and say how the command ends.
public struct ProbeTool: Sendable {
    public var radio: RadioSpec
    public var target: ProbeTarget
    /// How long to look for the device, and then how long to wait for the link, each on the radio's clock.
    public var timeout: Duration
    public var json: Bool
    /// Where to write a starting profile file made from the board (``ProfileSkeleton``); nil: none.
    public var profileSkeleton: String?

    public static let defaultTimeout: Duration = .seconds(10)

    /// `device`: an address (`24:0A:C4:12:1A:2B`, `/random` or `/public` appended to insist on the type) or an
    /// advertised local name, matched exactly.
    public init(radio: RadioSpec, device: String, timeout: Duration = ProbeTool.defaultTimeout, json: Bool = false) {
        self.radio = radio
        self.target = ProbeTarget(device)
        self.timeout = timeout
        self.json = json
    }

    /// How `blerig probe` exits, for its `--help`.
    public static let exitStatuses = [
        (ExitStatus.passed, "the whole GATT table was read (refused reads are shown as results, not failures)"),
        (
            .checksFailed,
            "the device was not found within --timeout, the connection failed, or the link was lost "
                + "before the table was complete (what was read is printed)"
        ),
        (.usage, "the arguments, the --radio spec or its rig file are wrong; nothing ran"),
        (.infrastructure, "the radio could not be opened or failed (e.g. a kind this build cannot drive yet)"),
        (.interrupted, "SIGINT or SIGTERM; what was read so far is printed and the link is closed"),
    ].map { ExitStatus.line($0.0, $0.1) }.joined(separator: "\n")

    /// Runs the probe. The table goes to `output`, one line per call; problems to `errors`. `control` stops it
    /// early (SIGINT): the link is still closed from this side.
    public func run(
        radios: any RadioOpening, control: RunControl, output: (String) -> Void, errors: (String) -> Void
    ) async -> ExitStatus {
        let report: Probe.Report
        do {
            let (target, timeout) = (target, timeout)
            report = try await radios.withCentral(radio) { central, _ in
                try await Probe.run(central: central, target: target, timeout: timeout) {
                    _ = await control.interrupted()
                }
            }
        } catch let error as RadioOpenError {
            errors("blerig: \(error)")
            return error.exitStatus
        } catch let error as ProbeError {
            errors("blerig: \(error)")
            if case .interrupted = error { return .interrupted }
            return .checksFailed
        } catch {
            errors("blerig: the radio failed: \(error)")
            return .infrastructure
        }
        if let path = profileSkeleton {
            do { try ProfileSkeleton.yaml(from: report).write(toFile: path, atomically: true, encoding: .utf8) } catch {
                errors("blerig: could not write the profile skeleton \(path): \(error)")
                return .infrastructure
            }
        }
        if json {
            do { output(try ProbeDocument.json(report)) } catch {
                errors("blerig: could not write the JSON document: \(error)")
                return .infrastructure
            }
        } else {
            for line in ProbeText.lines(report) { output(line) }
        }
        guard let stopped = report.table.stopped else { return .passed }
        if stopped.error == nil {
            errors("blerig: interrupted while \(stopped.during); the table above is incomplete")
            return .interrupted
        }
        errors("blerig: the walk stopped early while \(stopped); the table above is incomplete")
        return .checksFailed
    }
}

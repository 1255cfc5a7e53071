import BLECore
import CentralStack

/// `blerig scan` without the argument parsing: open the radio, listen for `duration` (or until stopped), and print
/// every advertiser seen as a table or one JSON document.
public struct ScanTool: Sendable {
    public var radio: RadioSpec
    /// On the radio's clock: virtual time on the virtual farm.
    public var duration: Duration
    public var json: Bool

    public static let defaultDuration: Duration = .seconds(10)

    public init(radio: RadioSpec, duration: Duration = ScanTool.defaultDuration, json: Bool = false) {
        self.radio = radio
        self.duration = duration
        self.json = json
    }

    /// How `blerig scan` exits, for its `--help`.
    public static let exitStatuses = [
        (ExitStatus.passed, "the scan ran its --duration (whether or not anything advertised)"),
        (.usage, "the arguments, the --radio spec or its rig file are wrong; nothing ran"),
        (.infrastructure, "the radio could not be opened or failed (e.g. a kind this build cannot drive yet)"),
        (.interrupted, "SIGINT or SIGTERM ended the scan early; what was seen until then is printed"),
    ].map { ExitStatus.line($0.0, $0.1) }.joined(separator: "\n")

    public func run(
        radios: any RadioOpening, control: RunControl, output: (String) -> Void, errors: (String) -> Void
    ) async -> ExitStatus {
        let result: AdvertiserScan.Result
        do {
            let duration = duration
            result = try await radios.withCentral(radio) { central, _ in
                await AdvertiserScan.run(central: central, duration: duration) { _ = await control.interrupted() }
            }
        } catch let error as RadioOpenError {
            errors("blerig: \(error)")
            return error.exitStatus
        } catch {
            errors("blerig: the radio failed: \(error)")
            return .infrastructure
        }
        if json {
            do { output(try ScanDocument.json(result)) } catch {
                errors("blerig: could not write the JSON document: \(error)")
                return .infrastructure
            }
        } else {
            for line in ScanText.lines(result) { output(line) }
        }
        return result.interrupted ? .interrupted : .passed
    }
}

import BLECore
import CentralStack
import DeviceProfiles
import Foundation

/// `blerig central` (hidden, for the restoration tests) without the argument parsing: the connection state
/// machine run the way an app runs it, on one radio, for one board, saving its state to a file on every change and
/// restoring it at start (when younger than an hour). Prints one line per report, as it happens:
///
/// ```
/// restoration: restored pairedConnected with 24:0A:C4:12:1A:2B, connected to ..., saved 3 s ago
/// state unpairedScanning → pairedDisconnected: restored (was connected to ..., 0 pending)
/// state pairedDisconnected → pairedConnected: connected to ...
/// ```
///
/// It runs until SIGINT or SIGTERM — or SIGKILL, which is the point: nothing but the files carry the state to
/// the next process (the machine's state, and the pairing keys beside it, ``keysURL``).
public struct CentralTool: Sendable {
    public var radio: RadioSpec
    public var address: DeviceAddress
    public var profile: Profile
    public var statePath: String
    /// Updates the board's firmware through an ``AppCentral`` and exits, instead of keeping the link.
    public var update: Update?

    public init(
        radio: RadioSpec, address: DeviceAddress, profile: Profile, statePath: String, update: Update? = nil
    ) {
        self.radio = radio
        self.address = address
        self.profile = profile
        self.statePath = statePath
        self.update = update
    }

    /// Where the pairing keys are kept: `pairing-keys.json` beside the state file, so a restarted central still
    /// authenticates with the esp-points it paired (a new key is made when the board is paired).
    public var keysURL: URL {
        URL(fileURLWithPath: statePath).deletingLastPathComponent().appendingPathComponent("pairing-keys.json")
    }

    /// How `blerig central` exits.
    public static let exitStatuses = [
        (ExitStatus.passed, "--update: the board runs the new image"),
        (.checksFailed, "--update: the update failed or the board rolled back"),
        (.interrupted, "SIGINT or SIGTERM ended it (it runs until then, or until the update ends)"),
        (.usage, "the arguments or the --radio spec are wrong; nothing ran"),
        (.infrastructure, "the radio could not be opened or failed"),
    ].map { ExitStatus.line($0.0, $0.1) }.joined(separator: "\n")

    public func run(
        radios: any RadioOpening, control: RunControl, output: @escaping @Sendable (String) -> Void,
        errors: @escaping @Sendable (String) -> Void
    ) async -> ExitStatus {
        let stateURL = URL(fileURLWithPath: statePath)
        let keys: FileKeyStore
        do { keys = try FileKeyStore(url: keysURL) } catch {
            errors("blerig: \(error)")
            return .usage
        }
        let store = FileConnectionStateStore(url: stateURL)
        let restoration = ConnectionRestoration.load(from: store, now: Date())
        output("restoration: \(restoration)")
        let (address, profile) = (address, profile)
        do {
            if let update {
                return try await radios.withCentral(radio) { central, _ in
                    await runUpdate(
                        update, central: central, keys: keys, store: store, restoration: restoration, control: control,
                        output: output, errors: errors)
                }
            }
            try await radios.withCentral(radio) { central, _ in
                let shell = ConnectionShell(
                    central: central, radio: central as? any RadioPower,
                    configuration: .init(
                        spec: .standard(profile), policy: .keepConnected, scanFilter: ScanFilter(addresses: [address]),
                        backoff: ReconnectBackoff(random: SeededRandom(seed: UInt64.random(in: 0...UInt64.max)))),
                    keys: keys, newKey: { (0..<32).map { _ in UInt8.random(in: 0...255) } }, store: store,
                    report: { output(Self.line($0)) })
                _ = await runStoppable(until: { _ = await control.interrupted() }) {
                    await shell.run(restoring: restoration.snapshot)
                }
                shell.stop()
            }
        } catch let error as RadioOpenError {
            errors("blerig: \(error)")
            return error.exitStatus
        } catch {
            errors("blerig: the radio failed: \(error)")
            return .infrastructure
        }
        return .interrupted
    }

    /// One report as a line: `state FROM → TO: CAUSE`, `notice ...`, `problem ...`.
    static func line(_ report: ConnectionShell.Report) -> String {
        switch report {
        case .notice(.transition(let transition), _): "state \(transition)"
        case .notice(let notice, _): "notice \(notice)"
        case .attempt(let attempt, _): "attempt \(attempt)"
        case .problem(let message, _): "problem \(message)"
        }
    }
}

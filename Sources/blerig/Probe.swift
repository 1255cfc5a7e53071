import ArgumentParser
import Benches
import Orchestrator

extension Blerig {
    struct Probe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find one device, connect, and print its whole GATT table with every readable value.",
            discussion: """
                Scans until an advertisement from DEVICE arrives (its address, or its advertised local name exactly), \
                connects, exchanges MTUs (247 preferred) and walks every primary service, characteristic and \
                descriptor. Characteristic values are read only when the characteristic has the Read property; every \
                descriptor is read, and a refusal (Read Not Permitted, ...) is shown as its result. Long values are \
                read whole. The link is closed at the end, also after SIGINT.

                --radio: \(RadioSpec.forms). virtual:rigs/virtual.yaml probes the rig's simulated boards, powered \
                on, in virtual time (--timeout is then virtual time too).

                --json prints one JSON document with sorted keys: device, mtu, services (with characteristics, \
                descriptors and values as hex, length and text, or an ATT error), complete, stopped, \
                disconnect_reason.

                Exit status:
                \(ProbeTool.exitStatuses)
                """)

        @Option(help: ArgumentHelp("The radio to probe with.", valueName: "spec"), transform: parseRadio)
        var radio: RadioSpec

        @Argument(
            help: ArgumentHelp(
                "The device: an address (24:0A:C4:12:1A:2B, with /random or /public to insist on its type) or an "
                    + "advertised name.",
                valueName: "address|name"))
        var device: String

        @Flag(help: "Print one JSON document instead of the tree.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "Also write a starting profile file (docs/profiles.md) describing the device, to load with "
                    + "`profile: {file: FILE}` in a rig.", valueName: "FILE"))
        var profileSkeleton: String?

        @Option(
            help: ArgumentHelp(
                "How long to look for the device, and then to wait for the link (10, 10s, 1.5m).", valueName: "S"),
            transform: { try parseDuration($0, flag: "--timeout") })
        var timeout: Duration = ProbeTool.defaultTimeout

        func validate() throws {
            guard !device.isEmpty else { throw ValidationError("the device must be an address or a name, not ''") }
        }

        func run() async throws {
            var tool = ProbeTool(radio: radio, device: device, timeout: timeout, json: json)
            tool.profileSkeleton = profileSkeleton
            let status = await runInterruptibly(what: "the probe") { control, output, errors in
                await tool.run(radios: RadioOpener(), control: control, output: output, errors: errors)
            }
            if status != .passed { throw ExitCode(status.rawValue) }
        }
    }
}

/// `--radio`'s value as a spec; a spec that does not parse is a usage error.
func parseRadio(_ text: String) throws -> RadioSpec {
    switch RadioSpec.parse(text) {
    case let .success(spec): return spec
    case let .failure(error): throw ValidationError(error.message)
    }
}

/// A positive duration: `10`, `10s`, `1.5m`, `2h`, at most ``DurationArgument/limit``; anything else is a usage
/// error that says why.
func parseDuration(_ text: String, flag: String) throws -> Duration {
    do {
        return try DurationArgument.parse(text)
    } catch {
        throw ValidationError("\(flag): '\(text)' \(error)")
    }
}

/// Runs a one-radio tool with SIGINT and SIGTERM turned into its stop: the first one stops `what` (the tool still
/// prints what it has), a second exits at once.
func runInterruptibly(
    what: String,
    _ body: (RunControl, (String) -> Void, (String) -> Void) async -> ExitStatus
) async -> ExitStatus {
    let output = LineOutput.standardOutput
    let errors = LineOutput.standardError
    let control = RunControl()
    let signals = SignalWatcher(control: control) { _ in
        errors.print("blerig: interrupted: stopping \(what) (send the signal again to exit at once)")
    }
    defer { withExtendedLifetime(signals) {} }
    return await body(control, { output.print($0) }, { errors.print($0) })
}

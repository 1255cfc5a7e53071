import BLECore
import BenchCore
import DeviceProfiles
import Reports

/// `power` (boards with a power switch: a hub port on hardware, the supply on the virtual farm and rootcanal):
/// cuts the board's power `cycles` times and measures how long it takes from power on to advertising again
/// (`power.recover_s`), and checks that the console reports the boot as a power-on reset.
///
/// ```yaml
/// suites:
///   - power: {cycles: 3, off_s: 1, recover_timeout_s: 20}
/// ```
/// A cycle after which the board is not heard within `recover_timeout_s` is a board failure; a boot the console
/// reports with another reason than `POWERON` (the firmware misreads its reset cause) is a test failure.
///
/// The app's central watches every cycle, as a phone app holding the board would: work queued to its ``AppCentral``
/// holds a link when the power goes, and the cycle recovers only when the app's machine has noticed that link lost
/// (`central.pairedConnected → central.pairedDisconnected: link lost: …`, within `off_s` + `recover_timeout_s` of the
/// cut) and, after power on, connects again on demand for new work (`central.pairedDisconnected →
/// central.pairedConnected`, within `recover_timeout_s` + 10 s).
/// `power.recover_s` is timed by the app's own scan (``AppCentral/firstAdvertisement(within:)``) started at power on.
/// The work holding the link ends as soon as the machine has noticed the loss, so no work is queued while the board
/// boots: the machine's reconnection attempts would answer the board's first advertisement rather than let the scan
/// hear it.
struct PowerSuite: Suite {
    static let name = "power"
    static let recovers = "power cycles recover"
    static let resetReason = "console reports a power-on reset"
    var cycles = 3
    var off: Duration = .seconds(1)
    var recoverTimeout: Duration = .seconds(20)

    init(options: inout RigMappingReader) {
        if let count = options.integer("cycles", in: 1...1000) { cycles = count }
        if let seconds = options.number("off_s", in: 0.1...600, unit: "s") { off = .milliseconds(seconds * 1000) }
        if let seconds = options.number("recover_timeout_s", in: 1...600, unit: "s") {
            recoverTimeout = .milliseconds(seconds * 1000)
        }
    }

    /// Per cycle: the cut, the scan, the loss noticed and the reconnection, each bounded.
    var defaultCheckTimeout: Duration { (off + recoverTimeout * 2 + .seconds(15)) * cycles + .seconds(60) }

    func checkNames(for profile: Profile) -> [String] { [Self.recovers, Self.resetReason] }

    func run(on board: BoardUnderTest) async {
        guard let power = board.bench.power else {
            for name in checkNames(for: board.profile) {
                board.recorder.skip(Self.name, name, reason: "the board has no power switch in the rig")
            }
            return
        }
        let boots = Box<[(at: RigInstant, reset: ConsoleLine.ResetReason?)]>()
        let (cycles, off, recoverTimeout) = (cycles, off, recoverTimeout)
        await board.check(Self.name, Self.recovers) {
            let watch = ConnectionWatch()
            let cycle = PowerCycle(board: board, power: power, watch: watch, off: off, recoverTimeout: recoverTimeout)
            var recovery: [Double] = []
            var seen: [(at: RigInstant, reset: ConsoleLine.ResetReason?)] = []
            try await board.withAppCentral(purpose: "power", report: { watch.add($0) }) { app in
                for number in 1...cycles {
                    let (on, heard) = try await cycle.run(number, of: cycles, app: app)
                    let seconds = on.duration(to: heard.received).seconds
                    recovery.append(seconds)
                    CheckRecorder.record("power.recover_s", unit: .seconds, values: [seconds])
                    let boot = board.consoleLog.latest.flatMap { $0.started >= on ? $0 : nil }
                    seen.append((on, boot?.reset))
                    try await cycle.reconnect(after: number, app: app)
                }
            }
            boots.value = seen
            return Self.statistics(recovery)
        }
        if let data = board.profile.data, !data.console.bootTellsReset {
            return board.recorder.skip(
                Self.name, Self.resetReason,
                reason: "the \(data.name) profile's boot banner captures no reset reason (a 'reset' group)")
        }
        await board.check(Self.name, Self.resetReason) {
            guard board.bench.console != nil else {
                throw CheckFailure("\(board.place): the board has no console in the rig: its reset reason is unknown")
            }
            guard let seen = boots.value, !seen.isEmpty else {
                throw CheckFailure("\(board.place): no power cycle completed, so no boot to read", class: .board)
            }
            let wrong = seen.enumerated().filter { $0.element.reset != .powerOn }
            guard wrong.isEmpty else {
                let lines = wrong.map { cycle, boot in
                    "cycle \(cycle + 1): " + (boot.reset.map { "reset=\($0.rawValue)" } ?? "no BOOT line")
                }
                throw CheckFailure(
                    "\(board.place): the console did not report a power-on reset after every power cycle",
                    details: lines.joined(separator: "\n"))
            }
            return [
                MeasuredValue(
                    metric: "power.poweron_boots", statistic: .value, value: Double(seen.count), unit: .count,
                    definition: "power cycles after which the console reported BOOT … reset=POWERON")
            ]
        }
    }

    /// p50, max and count of the recovery times, in seconds.
    static func statistics(_ seconds: [Double]) -> [MeasuredValue] {
        let definition = "power on → first advertisement after a power cycle"
        let sorted = seconds.sorted()
        let median =
            sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        return [
            MeasuredValue(
                metric: "power.recover_s", statistic: .p50, value: median, unit: .seconds, definition: definition),
            MeasuredValue(
                metric: "power.recover_s", statistic: .max, value: sorted.last ?? 0, unit: .seconds,
                definition: definition),
            MeasuredValue(
                metric: "power.recover_s", statistic: .count, value: Double(sorted.count), unit: .count,
                definition: definition),
        ]
    }
}

extension PowerSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "(boards with a power switch) power cycles: time from power on to advertising again, and the "
                + "reset reason the console reports after each",
            options: [
                .init("cycles", String(defaults.cycles), "how many times to cut and restore the power"),
                .init("off_s", OptionText.seconds(defaults.off), "how long the power stays off each time"),
                .init(
                    "recover_timeout_s", OptionText.seconds(defaults.recoverTimeout),
                    "how long the board may take to advertise after power on"),
            ],
            metrics: [
                .init(
                    "power.recover_s", .seconds, [.p50, .max, .count],
                    "power on → first advertisement after a power cycle"),
                .init(
                    "power.poweron_boots", .count, [.value],
                    "power cycles after which the console reported BOOT … reset=POWERON"),
            ])
    }
}

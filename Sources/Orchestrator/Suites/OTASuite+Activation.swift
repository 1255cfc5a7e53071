import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Reports

extension OTARun {
    /// Power lost during activation: the board's power is cut the moment the app has written ACTIVATE (on the
    /// virtual farm that is before the board has written otadata; on a hub within its switching time) and comes
    /// back a second later. The board must boot a bank it can run — a POWERON boot on its console, of the old
    /// firmware or the new — and the update must still end committed on the new image: the central finds the
    /// verified image waiting and activates it again. Not applicable without a power switch.
    func activationPowerLossCheck(_ check: OTASuite.Check) async {
        guard let power = board.bench.power else {
            return board.recorder.notApplicable(name, check.rawValue, reason: "the board has no power switch")
        }
        let clock = board.clock
        let before = tallyCurrent()
        await board.check(name, check.rawValue) {
            let cut = Flag()
            let cutAt = Locked<RigInstant?>(nil)
            let report = try await committedUpdate(
                activated: {
                    guard cut.set() else { return }
                    cutAt.withLock { $0 = clock.now }
                    try? await power.off()
                    try? await clock.sleep(for: .seconds(1))
                    try? await power.on()
            })
            guard let cutAt = cutAt.withLock({ $0 }) else {
                throw CheckFailure("\(board.place): the update ended without ACTIVATE: the power was never cut")
            }
            guard board.bench.console != nil else {
                board.recorder.log(.info, "ota", "no console: the boot after the power loss is not inspected")
                return [Metric.duration(report)]
            }
            let boots = board.consoleLog.entries(since: cutAt).compactMap { entry -> String? in
                guard case let .boot(firmware, bank, reset, _) = entry.line else { return nil }
                return "\(firmware) \(bank ?? "-") \(reset.rawValue)"
            }
            let bootable = [before, "\(report.image.version)"]
            guard let first = boots.first, bootable.contains(where: { first.hasPrefix($0 + " ") }),
                first.hasSuffix("POWERON")
            else {
                throw CheckFailure(
                    "\(board.place): after the power loss during activation the board's console shows boots "
                        + "\(boots); expected a POWERON boot of \(before) or \(report.image.version)")
            }
            board.recorder.log(.info, "ota", "power cut after ACTIVATE; boots since: \(boots.joined(separator: ", "))")
            return [Metric.resumes(report), Metric.duration(report)]
        }
    }
}

import BLECore
import DeviceProfiles

/// Fires an ``OTAFaultPlan`` on an esp-point of the virtual farm as the update goes: it watches the board's console
/// for the start of each phase (START, FINISH's verification, ACTIVATE, the reboot after it) and, at the planned
/// instant, drops the links, cuts the power (tearing the flash write under way) and restores it, flips a bit of the
/// written image, or arms the self-test to fail. Every fault fires at most once. It keeps a timeline (console lines,
/// faults, what each power loss tore) for replaying one run.
///
/// Confined to the simulation thread, like the board.
public final class OTAFaultInjector: @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread, as the board it drives.

    /// Faults that actually fired (a planned fault whose phase never came is not counted).
    public struct Counts: Sendable, Hashable {
        public var linkDrops = 0
        public var powerLosses: [OTAFaultPlan.Phase: Int] = [:]
        /// Power losses that found a flash write under way and tore it, by region kind (image, descriptor, otadata).
        public var tornWrites: [String: Int] = [:]
        public var bitFlipsDuringTransfer = 0
        public var bitFlipsAfterVerify = 0
        public var selfTestFailures = 0

        public init() {}

        public mutating func add(_ other: Counts) {
            linkDrops += other.linkDrops
            powerLosses.merge(other.powerLosses, uniquingKeysWith: +)
            tornWrites.merge(other.tornWrites, uniquingKeysWith: +)
            bitFlipsDuringTransfer += other.bitFlipsDuringTransfer
            bitFlipsAfterVerify += other.bitFlipsAfterVerify
            selfTestFailures += other.selfTestFailures
        }
    }

    public let plan: OTAFaultPlan
    public private(set) var counts = Counts()
    /// Console lines and faults with their instants (only when the injector keeps a timeline).
    public private(set) var timeline: [(at: RigInstant, text: String)] = []

    private let board: VirtualBoard
    private let keepsTimeline: Bool
    private var random: SeededRandom
    private var transferStarted = false
    private var activated = false
    private var fired: Set<String> = []

    /// Attaches to `board` (taking its console listener) and arms the faults that wait for no phase: the self-test
    /// failure, and power losses "any time" from now.
    public init(board: VirtualBoard, plan: OTAFaultPlan, seed: UInt64, keepTimeline: Bool) {
        board.sim.assertIsolated()
        self.board = board
        self.plan = plan
        keepsTimeline = keepTimeline
        random = SeededRandom(seed: seed, stream: "ota-fault-injector")
        note("plan: \(plan)")
        board.consoleListener = { [weak self] at, line in self?.heard(line, at: at) }
        if plan.selfTestFailure {
            board.type("ota-fault selftest")
            note("fault: the next activated image fails its self-test")
        }
        arm(.anyTime)
    }

    /// Adds a line of the caller's to the timeline (the central's side of the story).
    public func note(_ text: String) {
        guard keepsTimeline else { return }
        timeline.append((board.sim.now, text))
    }

    private func heard(_ line: ConsoleLine, at: RigInstant) {
        if keepsTimeline { timeline.append((at, "console: \(line)")) }
        switch line {
        case let .log(_, _, "OTA", message) where message.hasPrefix("start size=") && !transferStarted:
            transferStarted = true
            for (index, delay) in plan.linkDrops.enumerated() {
                once("drop \(index)", after: delay) { [self] in
                    counts.linkDrops += 1
                    note("fault: link dropped")
                    board.dropLinks()
                }
            }
            arm(.imageWrite)
            if case let .duringTransfer(delay) = plan.bitFlip {
                once("flip", after: delay) { [self] in flip { $0.bitFlipsDuringTransfer += 1 } }
            }
        case let .log(_, _, "OTA", message) where message.hasPrefix("finish ok"):
            if plan.bitFlip == .afterVerify { once("flip", after: .zero) { [self] in flip { $0.bitFlipsAfterVerify += 1 } } }
        case let .log(_, _, "OTA", message) where message.hasPrefix("activate bank="):
            activated = true
            arm(.otadataWrite)
        case let .log(_, _, "OTA", message) where message.hasPrefix("self-test failed"):
            counts.selfTestFailures += 1
        case .boot where activated:
            arm(.unconfirmedBoot)
        default:
            break
        }
    }

    /// Schedules the plan's power losses of `phase`, timed from now.
    private func arm(_ phase: OTAFaultPlan.Phase) {
        for (index, loss) in plan.powerLosses.enumerated() where loss.phase == phase {
            once("power \(index)", after: loss.delay) { [self] in
                guard board.isPowered else { return }
                counts.powerLosses[phase, default: 0] += 1
                board.powerOff()
                let torn = board.tornAtLastPowerLoss
                for what in torn {
                    let kind =
                        what.hasPrefix("otadata") ? "otadata" : what.contains("descriptor") ? "descriptor" : "image"
                    counts.tornWrites[kind, default: 0] += 1
                }
                note("fault: power lost (\(phase.rawValue)) for \(loss.off)" + (torn.isEmpty ? "" : ", tore \(torn)"))
                board.sim.schedule(after: loss.off) { [self] in
                    note("power restored")
                    board.powerOn()
                }
            }
        }
    }

    private func flip(_ count: (inout Counts) -> Void) {
        guard let offset = board.flipBitInUpdateBank(&random) else { return }
        count(&counts)
        note("fault: a bit flipped at offset \(offset) of the update's bank")
    }

    /// Runs `action` after `delay`, unless a fault of that name already fired.
    private func once(_ name: String, after delay: Duration, _ action: @escaping () -> Void) {
        guard fired.insert(name).inserted else { return }
        board.sim.schedule(after: delay, action)
    }
}

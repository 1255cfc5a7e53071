import BLECore

/// The faults one seeded OTA run meets (`blerig bench ota-faults`): link drops during the transfer, power losses at
/// a point of a named phase, a bit flipped in the written image, and a failing self-test. Drawn from the run's seed
/// alone, so a run replays exactly. ``OTAFaultInjector`` fires them on a board when their phase comes.
public struct OTAFaultPlan: Sendable, Hashable, CustomStringConvertible {
    /// Where a power loss lands. Each is timed from the moment its phase starts on the board.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        /// From the first START's log line, over the erase and the transfer (page programs under way).
        case imageWrite = "image-write"
        /// From ACTIVATE's log line, within the `otadata` sector write (45.4 ms).
        case otadataWrite = "otadata-write"
        /// From the `BOOT` line after an ACTIVATE, over the unconfirmed boot: the bootloader's "pending verify"
        /// write, the app's init and the self-test's "valid" write (0 to 395 ms).
        case unconfirmedBoot = "unconfirmed-boot"
        /// From the start of the update, anywhere in the next few seconds (idle, transfer, FINISH, reboot).
        case anyTime = "any-time"
    }

    public struct PowerLoss: Sendable, Hashable {
        public var phase: Phase
        /// After the phase starts.
        public var delay: Duration
        /// How long the board stays without power.
        public var off: Duration
    }

    public enum BitFlip: Sendable, Hashable {
        /// A bit of what is already programmed flips this long after the first START: FINISH must catch it.
        case duringTransfer(Duration)
        /// A bit flips right after FINISH verified the image: the bootloader's image check must catch it.
        case afterVerify
    }

    /// After the first START's log line.
    public var linkDrops: [Duration]
    public var powerLosses: [PowerLoss]
    public var bitFlip: BitFlip?
    public var selfTestFailure: Bool

    /// The erase of `imageSize` bytes and their transfer at about 90 kB/s: the window the transfer's faults land in.
    public static func transferSpan(imageSize: Int) -> Duration {
        .milliseconds(150 * (imageSize / 65_536 + 1)) + .seconds(Double(imageSize) / 90_000)
    }

    /// The plan of the run with `seed`: each fault kind independently, so that some runs meet none and some many.
    public init(seed: UInt64, imageSize: Int) {
        var random = SeededRandom(seed: seed, stream: "ota-fault-plan")
        func chance(_ p: Double) -> Bool { random.nextUnit() < p }
        func within(_ span: Duration) -> Duration { span * random.nextUnit() }
        let transfer = Self.transferSpan(imageSize: imageSize)
        let drops = chance(0.5) ? 1 + Int(random.next() % 3) : 0
        linkDrops = (0..<drops).map { _ in within(transfer) }.sorted()
        var losses: [PowerLoss] = []
        for probability in [0.7, 0.3] where chance(probability) {
            let phase = Phase.allCases[Int(random.next() % UInt64(Phase.allCases.count))]
            let window: Duration =
                switch phase {
                case .imageWrite: transfer
                case .otadataWrite: .microseconds(45_400)
                case .unconfirmedBoot: .microseconds(395_400)
                case .anyTime: transfer + .seconds(2)
                }
            losses.append(PowerLoss(phase: phase, delay: within(window), off: .milliseconds(20) + within(.seconds(2))))
        }
        powerLosses = losses
        bitFlip = chance(0.3) ? (chance(0.5) ? .duringTransfer(within(transfer)) : .afterVerify) : nil
        selfTestFailure = chance(0.2)
    }

    public var description: String {
        var parts: [String] = []
        if !linkDrops.isEmpty { parts.append("drops at \(linkDrops.map { ms($0) }.joined(separator: ","))") }
        for loss in powerLosses {
            parts.append("power loss \(loss.phase.rawValue)+\(ms(loss.delay)) for \(ms(loss.off))")
        }
        switch bitFlip {
        case let .duringTransfer(at): parts.append("bit flip during transfer +\(ms(at))")
        case .afterVerify: parts.append("bit flip after verify")
        case nil: break
        }
        if selfTestFailure { parts.append("self-test fails") }
        return parts.isEmpty ? "no faults" : parts.joined(separator: "; ")
    }

    private func ms(_ duration: Duration) -> String { "\((duration.milliseconds * 10).rounded() / 10)ms" }
}

import BLECore
import CentralStack
import DeviceProfiles
import Orchestrator
import Synchronization
import VirtualFarm

/// One seeded OTA under fire (`blerig bench ota-faults`): a virtual esp-point on the OTA benchmark's link, paired,
/// then updated to 1.5.0 by the central stack's ``OTATransfer`` while an ``OTAFaultInjector`` plays the run's
/// ``OTAFaultPlan``. The central behaves as the app does: each transfer reconnects and resumes by itself; when one
/// ends without the new firmware committed (refused, rolled back, unreachable) the app checks the board and sends
/// the update again, up to ``attemptLimit`` times. Then the board is power-cycled: it must boot and advertise (else it
/// is bricked), and the update counts as a success only if it still runs the new firmware, committed.
public enum OTAFaultRun {
    public static let newVersion = FirmwareVersion(1, 5, 0)
    /// Transfers the app starts for one update before giving up.
    public static let attemptLimit = 6

    public struct Result: Sendable {
        public var seed: UInt64
        public var plan: OTAFaultPlan
        public var counts: OTAFaultInjector.Counts
        public var bricked: Bool
        /// The board runs the new firmware, committed, after the final power cycle.
        public var success: Bool
        public var attempts: Int
        /// Sessions that took an interrupted transfer up again from the board's persisted next_seq.
        public var resumes: Int
        /// Updates sent again after a transfer ended without the new firmware committed.
        public var resends: Int
        /// Uploads from 0 after FINISH found the bank corrupted.
        public var reuploads: Int
        public var finalVersion: String
        public var failure: String?
        /// Console, faults and the central's steps, in order (kept only when asked for).
        public var timeline: [String]

        /// Everything the app had to do again: resumes after a lost link or power, fresh uploads after a corrupt
        /// bank, and whole updates sent again.
        public var recoveries: Int { resumes + reuploads + resends }
    }

    public static func run(seed: UInt64, image: OTAImageFile, keepTimeline: Bool) async throws -> Result {
        try await Simulation.run(seed: seed, horizon: .seconds(3_600)) { sim in
            try await run(sim: sim, seed: seed, image: image, keepTimeline: keepTimeline)
        }
    }

    private static func run(sim: Simulation, seed: UInt64, image: OTAImageFile, keepTimeline: Bool) async throws
        -> Result
    {
        let farm = Farm(sim: sim, link: OTABenchmark.link)
        let board = farm.addBoard(id: "esp-fault", profile: .espPoint)
        board.powerOn()
        try await sim.clock.sleep(for: .milliseconds(500))
        let central = farm.central()
        let key = (0..<32).map { UInt8($0 &* 5 &+ 1) }
        let spec = ProfileSpec.standard(.espPoint)
        try await Handshake.withSession(
            central: central, address: board.address, spec: spec, connectTimeout: .seconds(10)
        ) { session in try await EspPointClient(session: session).pair(key: key) }

        let plan = OTAFaultPlan(seed: seed, imageSize: Int(image.size))
        let injector = OTAFaultInjector(board: board, plan: plan, seed: seed, keepTimeline: keepTimeline)
        let connect: OTATransfer.Connect = { body in
            try await Handshake.withSession(
                central: central, address: board.address, spec: spec, connectTimeout: .seconds(10)
            ) { session in
                try await EspPointClient(session: session).authenticate(key: key)
                try await body(session)
            }
        }
        var result = Result(
            seed: seed, plan: plan, counts: .init(), bricked: false, success: false, attempts: 0, resumes: 0,
            resends: 0, reuploads: 0, finalVersion: "", failure: nil, timeline: [])
        var committed = false
        while !committed, result.attempts < attemptLimit {
            result.attempts += 1
            if result.attempts > 1 { result.resends += 1 }
            injector.note("central: transfer \(result.attempts) begins")
            let resumes = Mutex(0)
            var transfer = OTATransfer(image: image, options: .init(window: 4, batch: 10, reuploads: 4), clock: sim.clock)
            transfer.reconnectAttempts = 10
            do {
                let report = try await transfer.run(connect: connect) { progress in
                    resumes.withLock { $0 = progress.resumes }
                }
                result.reuploads += report.statistics.reuploads
                result.resumes += report.statistics.resumes
                injector.note("central: transfer \(result.attempts) ended: \(report.outcome.map { "\($0)" } ?? "?")")
            } catch {
                result.resumes += resumes.withLock { $0 }
                injector.note("central: transfer \(result.attempts) failed: \(error)")
            }
            // Let the run's faults play out (a late power loss, a restore), then look at the board as the app
            // would: its Firmware Revision and its OTA state.
            try await sim.clock.sleep(for: .seconds(4))
            let state = try? await check(connect: connect, clock: sim.clock)
            injector.note("central: the board says \(state.map { "fw=\($0.version) ota=\($0.state)" } ?? "nothing")")
            committed = state?.version == newVersion.description && state?.state == .committed
        }

        // The user unplugs it and plugs it in again: it must come up, on the new firmware.
        board.powerOff()
        try await sim.clock.sleep(for: .milliseconds(100))
        board.powerOn()
        try await sim.clock.sleep(for: .seconds(2))
        result.bricked = board.isBricked || board.readyAt == nil || board.advertising == nil
        result.finalVersion = result.bricked ? "none" : "\(board.firmwareVersion)"
        let final = result.bricked ? nil : try? await check(connect: connect, clock: sim.clock)
        result.success =
            !result.bricked && final?.version == newVersion.description && final?.state == .committed
        if result.bricked {
            result.failure = "bricked: the board does not come up after a power cycle"
        } else if !result.success {
            let said = final.map { "fw=\($0.version) ota=\($0.state)" } ?? "nothing (unreachable)"
            result.failure = "after \(result.attempts) transfer(s) the board says \(said)"
        }
        injector.note("final: \(result.failure ?? "fw=\(result.finalVersion) committed")")
        result.counts = injector.counts
        result.timeline = injector.timeline.map { "\(format($0.at)) \($0.text)" }
        return result
    }

    /// The app's look at the board: Firmware Revision and OTA STATUS, over a session of its own (a few tries: the
    /// board may be rebooting).
    static func check(connect: OTATransfer.Connect, clock: any RigClock) async throws -> (
        version: String, state: EspPoint.OTA.State
    ) {
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                let answer = Mutex<(String, EspPoint.OTA.State)?>(nil)
                try await connect { session in
                    let version = String(
                        decoding: try await session.read(StandardUUID.firmwareRevision), as: UTF8.self)
                    let inbox = try await session.ensureSubscribed(EspPoint.otaControl)
                    _ = inbox.drain()
                    try await session.write(EspPoint.OTA.Request.status.encoded, to: EspPoint.otaControl)
                    while true {
                        let event = try await inbox.next(
                            within: .seconds(5), clock: clock, waitingFor: "the OTA STATUS answer")
                        if case let .status(status) = try EspPoint.OTA.Notification(decoding: event.value) {
                            answer.withLock { $0 = (version, status.state) }
                            return
                        }
                    }
                }
                if let found = answer.withLock({ $0 }) { return found }
            } catch {
                lastError = error
                try await clock.sleep(for: .seconds(1))
            }
        }
        throw lastError ?? BenchmarkError("the board gave no OTA status")
    }

    private static func format(_ instant: RigInstant) -> String {
        let ms = RigInstant.origin.duration(to: instant).milliseconds
        let text = "\((ms * 10).rounded() / 10)"
        return String(repeating: " ", count: max(0, 10 - text.count)) + text + " ms"
    }
}

import BLECore
import BenchCore
import CentralStack
import Reports

/// One power cycle of the `power` suite, with the app's central watching (see ``PowerSuite``).
struct PowerCycle: Sendable {
    let board: BoardUnderTest
    let power: any PowerSwitch
    /// What the app central reported: the suite's own watch, so a cycle sees the losses its machine noticed.
    let watch: ConnectionWatch
    let off: Duration
    let recoverTimeout: Duration

    /// Cuts the power while work queued to `app` holds a link, restores it after `off`, and hears the board's first
    /// advertisement with the app's scan; returns when the power came on and that advertisement, once the app's
    /// machine has also noticed the link lost.
    func run(_ number: Int, of cycles: Int, app: AppCentral) async throws -> (on: RigInstant, heard: Advertisement) {
        let lostBefore = ConnectionWatch.lost(in: watch.transitions)
        let (board, watch, limit) = (board, watch, off + recoverTimeout)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let (holding, held) = AsyncStream.makeStream(of: Void.self)
            group.addTask {
                defer { held.finish() }
                try await app.perform("holding the link through power cycle \(number)", attempts: .failWithTheAttempt) {
                    _ in
                    held.yield()
                    // Done once the machine has noticed: work still queued then would have it reconnect at once.
                    try await watch.wait(
                        for: "link loss noticed by the app central in power cycle \(number)", within: limit,
                        clock: board.clock, until: ConnectionWatch.linksLost(moreThan: lostBefore))
                }
            }
            var started = holding.makeAsyncIterator()
            guard await started.next() != nil else {
                // The work never got a session: its error says why.
                try await group.waitForAll()
                throw CheckFailure("\(board.place): the app central gave no session before power cycle \(number)")
            }
            let heard = try await cut(number, of: cycles, app: app)
            try await group.waitForAll()
            return heard
        }
    }

    /// Power off, wait, power on, and the first advertisement the app's scan hears after it.
    private func cut(_ number: Int, of cycles: Int, app: AppCentral) async throws -> (RigInstant, Advertisement) {
        try await power.off()
        board.recorder.move(to: .off, reason: "power suite: cycle \(number) of \(cycles)")
        try await board.clock.sleep(for: off)
        let on = board.clock.now
        try await power.on()
        board.recorder.move(to: .booting, reason: "power on: \(power.description)")
        guard let heard = try await app.firstAdvertisement(within: recoverTimeout) else {
            throw CheckFailure(
                "\(board.place): not advertising within \(recoverTimeout.seconds) s of power on (cycle \(number))",
                class: .board)
        }
        board.recorder.move(to: .advertising, reason: "advertising after power on")
        return (on, heard)
    }

    /// New work after the cycle: the app's machine, which lost the link, connects again on demand.
    func reconnect(after number: Int, app: AppCentral) async throws {
        let timeline: HandshakeTimeline
        do {
            timeline = try await app.perform(
                "reading the board after power cycle \(number)", within: recoverTimeout + .seconds(10)
            ) { $0.timeline }
        } catch {
            throw CheckFailure(
                "\(board.place): the app central did not connect again after power cycle \(number): \(error)",
                class: .board)
        }
        board.recorder.log(
            .info, "central",
            "power cycle \(number): the app central connected again on demand, ready in \(timeline.total.msText)")
    }
}

import BLECore
import Synchronization

extension AppCentral {
    /// Updates the board to `image`: one item of work for the whole update, however many sessions it takes. The
    /// machine goes `pairedConnected → firmwareUpdating` on every session that sends the image (again after a lost
    /// link: the transfer resumes from the board's persisted next_seq), and back to `pairedConnected` when
    /// ACTIVATE is written (the reboot's link loss that follows is expected) or when the update fails.
    ///
    /// - Parameters:
    ///   - activated: called each time ACTIVATE has been written (a test cuts the power here).
    public func update(
        to image: OTAImageFile, options: OTASender.Options,
        progress: (@Sendable (OTATransfer.Progress) async -> Void)? = nil,
        activated: (@Sendable () async -> Void)? = nil
    ) async throws(OTAError) -> OTAReport {
        await queueWork()
        defer { shell.send(.workCompleted(1)) }
        let phase = UpdatePhaseBox()
        var transfer = OTATransfer(image: image, options: options, clock: clock)
        transfer.activated = {
            let began = phase.state.withLock { p -> Bool in
                defer { (p.activated, p.sending) = (true, false) }
                return p.sending
            }
            if !began { self.shell.send(.otaBegan) }
            self.shell.send(.otaFinished)
            await activated?()
        }
        let limit = sessionLimit + transfer.rebootTimeout
        do {
            return try await transfer.run(
                connect: { body in
                    let session = try await self.lease(for: "the update to \(image.version)", within: limit)
                    defer { self.broker.release() }
                    let sending = phase.state.withLock { p -> Bool in
                        p.sending = !p.activated
                        return p.sending
                    }
                    if sending { self.shell.send(.otaBegan) }
                    try await body(session)
                }, progress: progress)
        } catch {
            if phase.state.withLock({ $0.sending }) { shell.send(.otaFailed(why: "\(error)")) }
            throw error
        }
    }
}

/// ``UpdatePhase`` behind a lock, for the transfer's callbacks.
final class UpdatePhaseBox: Sendable {
    let state = Mutex(UpdatePhase())
}

/// Where an update stands as the machine was told.
struct UpdatePhase: Sendable {
    /// `otaBegan` was sent for the session in use and nothing has ended it.
    var sending = false
    /// ACTIVATE has been written: later sessions read the new version (or activate again), they send no image.
    var activated = false
}

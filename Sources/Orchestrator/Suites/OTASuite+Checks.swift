import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Reports
import Synchronization

extension OTARun {
    /// A clean update: the board's version read first; the update must commit on the first try, without a
    /// resume, a NAK or a re-upload.
    func cleanUpdate() async throws -> [MeasuredValue] {
        let original = try await app.perform("reading Firmware Revision") { session in
            String(decoding: try await session.read(StandardUUID.firmwareRevision), as: UTF8.self)
        }
        tallyOriginal(original)
        let report = try await committedUpdate()
        guard report.statistics.resumes == 0, report.statistics.naks == 0, report.statistics.reuploads == 0 else {
            throw CheckFailure(
                "\(board.place): a clean update needed help: \(Self.summary(report))")
        }
        var values = [Metric.duration(report), Metric.resumes(report)]
        if let throughput = Metric.throughput(report) { values.append(throughput) }
        if let capacity = board.unacknowledgedCapacity, let efficiency = Metric.efficiency(report, capacity: capacity) {
            values.append(efficiency)
        }
        return values
    }

    /// Arms `console` faults before the update, runs an update that must commit, then `verify`.
    func faultCheck(
        _ check: OTASuite.Check, console lines: [String],
        verify: @escaping @Sendable (OTAReport) throws -> [MeasuredValue]
    ) async {
        guard board.bench.console != nil else {
            return board.recorder.skip(
                name, check.rawValue, reason: "the board has no console to inject faults through")
        }
        await board.check(name, check.rawValue) {
            try await console(lines)
            let report = try await committedUpdate()
            try await console(["ota-fault none"])
            return try verify(report) + [Metric.duration(report)]
        }
    }

    /// Cuts the board's power once half the frames are acknowledged, switches it on again a second later, and
    /// expects the update to resume from the persisted next_seq and commit.
    func powerLossCheck(_ check: OTASuite.Check) async {
        guard let power = board.bench.power else {
            return board.recorder.skip(name, check.rawValue, reason: "the board has no power switch")
        }
        let clock = board.clock
        await board.check(name, check.rawValue) {
            let cut = Flag()
            let report = try await committedUpdate(
                progress: { p in
                    guard p.frames > 0, p.acknowledged >= p.frames / 2, cut.set() else { return }
                    try? await power.off()
                    try? await clock.sleep(for: .seconds(1))
                    try? await power.on()
            })
            guard cut.isSet else {
                throw CheckFailure("\(board.place): the transfer ended before the power could be cut")
            }
            try expectResumed(report, check)
            return [Metric.resumes(report), Metric.duration(report)]
        }
    }

    /// With a signing key on the board: a tampered signed image and an unsigned one are refused with FINISH 3 and
    /// the running version does not change; a correctly signed one commits. The key is removed afterwards.
    func signedImages() async throws -> [MeasuredValue] {
        guard board.bench.console != nil else {
            throw CheckFailure("\(board.place): no console to install a signing key")
        }
        var random = board.random("ota-signing-key")
        let seed = (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let key = try OTASigningKey(seed: seed)
        let hex = key.publicKeyHex
        try await console(["ota-key \(hex)"])
        do {
            let values = try await signedImages(key: key)
            try await console(["ota-key none"])
            return values
        } catch {
            try? await console(["ota-key none"])
            throw error
        }
    }

    private func signedImages(key: OTASigningKey) async throws -> [MeasuredValue] {
        let before = tallyCurrent()
        for (what, signingKey, tamper) in [("tampered", key, true), ("unsigned", nil, false)] {
            do {
                let report = try await update(signingKey: signingKey, tamper: tamper)
                throw CheckFailure("\(board.place): a \(what) image was not refused: \(Self.summary(report))")
            } catch OTAError.failed(.finishFailed(.badSignature)) {
                board.recorder.log(.info, "ota", "the \(what) image was refused with FINISH status 3")
            }
        }
        let after = try await app.perform("reading Firmware Revision") { session in
            String(decoding: try await session.read(StandardUUID.firmwareRevision), as: UTF8.self)
        }
        guard after == before else {
            throw CheckFailure("\(board.place): after refused images the board runs '\(after)', not '\(before)'")
        }
        let report = try await committedUpdate(signingKey: key)
        return [Metric.duration(report)]
    }

    /// A self-test failure must be reported as a rollback, with the old version running.
    func selfTestFailure() async throws -> [MeasuredValue] {
        let before = tallyCurrent()
        try await console(["ota-fault selftest"])
        let report = try await update()
        guard case .rolledBack(let running)? = report.outcome else {
            throw CheckFailure(
                "\(board.place): an image that fails its self-test was reported as \(report.outcome.map { "\($0)" } ?? "nothing"), not a rollback"
            )
        }
        guard running == before else {
            throw CheckFailure("\(board.place): after the rollback the board runs '\(running)', not '\(before)'")
        }
        return [Metric.duration(report)]
    }

    func successRate() throws -> [MeasuredValue] {
        let (attempts, firstTry, eventually) = tallySuccess()
        guard attempts > 0 else { throw CheckFailure("\(board.place): no update was attempted") }
        let definition =
            "of the \(attempts) updates expected to commit (those with injected faults included): first_try, the "
            + "share that committed without a resume or re-upload; after_resume, the share that committed at all"
        let values = [
            MeasuredValue(
                metric: "ota.success_rate", statistic: Statistic("first_try"),
                value: Double(firstTry) / Double(attempts),
                unit: .ratio, definition: definition),
            MeasuredValue(
                metric: "ota.success_rate", statistic: Statistic("after_resume"),
                value: Double(eventually) / Double(attempts), unit: .ratio, definition: definition),
        ]
        guard eventually == attempts else {
            throw MeasuredFailure(
                failure: CheckFailure("\(board.place): \(attempts - eventually) of \(attempts) updates did not commit"),
                measurements: values)
        }
        return values
    }
}

/// Set once; `set()` returns true for the caller that set it.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() -> Bool {
        value.withLock { v in
            defer { v = true }; return !v
        }
    }
    var isSet: Bool { value.withLock { $0 } }
}

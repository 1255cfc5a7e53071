import BLECore
import BenchCore
import Foundation
import Reports

/// The leases a campaign holds on its boards for the length of its bench: taken before the bench opens (so no
/// board is touched unleased, and no wall-clock wait happens inside the virtual farm's simulation) and given back
/// after it closes.
///
/// Boards are leased in the order of their resource names, so two runs that share several boards always ask for
/// them in the same order and cannot each hold one that the other waits for. Every board free at that moment is
/// taken in one step, up to the first one held; that one is waited for, and the rest taken the same way again.
struct CampaignLeases: Sendable {
    /// The leases held, each with the boards (and resources) it is on: one lease may hold many boards.
    private(set) var held: [(keys: [BoardLeaseKey], lease: any BoardLease)] = []
    /// Boards that could not be leased, with why; their checks end as infrastructure errors.
    private(set) var refused: [String: String] = [:]

    /// Leases every board of `rig` through `leasing`; nothing when `leasing` is nil. A run stopped while waiting
    /// refuses the boards it has not got yet.
    static func acquire(
        _ rig: RigConfig, leasing: (any BoardLeasing)?, control: RunControl,
        progress: @escaping @Sendable (String) -> Void
    ) async -> CampaignLeases {
        var leases = CampaignLeases()
        guard let leasing else { return leases }
        let keys = rig.boards.map { BoardLeaseKey($0, rig: rig) }
            .sorted { ($0.resource, $0.board) < ($1.resource, $1.board) }
        var next = keys.startIndex
        while next < keys.endIndex {
            if let reason = control.reason {
                for key in keys[next...] {
                    leases.refused[key.board] = "not leased: the run was stopped (\(reason)) while waiting for boards"
                }
                break
            }
            let asked = ContinuousClock.now
            // A failure here is met again, and said, by the one-board path below.
            if let (count, lease) = try? await leasing.acquireAvailable(Array(keys[next...])) {
                let taken = Array(keys[next..<(next + count)])
                leases.held.append((taken, lease))
                let when = "at \(Self.stamp()) after waiting \(asked.duration(to: .now).msText)"
                for key in taken { progress("\(key.board): leased \(key.resource) \(when)") }
                next += count
                continue
            }
            let key = keys[next]
            next += 1
            let outcome = await Self.acquireUnlessStopped(key, leasing: leasing, control: control, progress: progress)
            switch outcome {
            case .success(let lease):
                leases.held.append(([key], lease))
                let waited = asked.duration(to: .now)
                progress("\(key.board): leased \(key.resource) at \(Self.stamp()) after waiting \(waited.msText)")
            case .failure(let error):
                leases.refused[key.board] = error.message
                progress("\(key.board): NOT LEASED: \(error.message)")
            }
        }
        return leases
    }

    /// Gives every held lease back, last taken first.
    func release(progress: @escaping @Sendable (String) -> Void) async {
        for (keys, lease) in held.reversed() {
            let stamp = Self.stamp()
            for key in keys.reversed() { progress("\(key.board): releasing the lease on \(key.resource) at \(stamp)") }
            await lease.release()
        }
    }

    private static func acquireUnlessStopped(
        _ key: BoardLeaseKey, leasing: any BoardLeasing, control: RunControl,
        progress: @escaping @Sendable (String) -> Void
    ) async -> Result<any BoardLease, BoardLeaseError> {
        await withTaskGroup(of: Result<any BoardLease, BoardLeaseError>?.self) { group in
            group.addTask {
                do throws(BoardLeaseError) {
                    return .success(try await leasing.acquire(key) { progress("\(key.board): \($0)") })
                } catch { return .failure(error) }
            }
            group.addTask {
                guard let reason = await control.interrupted() else { return nil }
                return .failure(
                    BoardLeaseError("the run was stopped (\(reason)) while waiting for the lease on \(key.resource)"))
            }
            var outcome: Result<any BoardLease, BoardLeaseError>?
            while outcome == nil, let next = await group.next() { outcome = next }
            group.cancelAll()
            // A lease granted as the run was stopped is still given back.
            while let late = await group.next() {
                if case .success(let lease)? = late, case .failure = outcome { await lease.release() }
            }
            return outcome ?? .failure(BoardLeaseError("cancelled while waiting for the lease on \(key.resource)"))
        }
    }

    /// The wall clock as ISO 8601 UTC with milliseconds: `2026-11-25T10:00:01.123Z`.
    static func stamp(_ date: Date = Date()) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension CampaignRun {
    /// A board the run could not lease: it is not touched; its preflight is an infrastructure error saying why,
    /// and its suites are skipped with the same reason.
    func recordUnleased(_ board: BenchBoard, config: BoardConfig, reason: String, at now: RigInstant) {
        var identity = board.identity.map { IdentityField(key: $0.key, value: $0.value) }
        identity.append(IdentityField(key: "defined_at", value: "\(config.location)"))
        emit(.boardStarted(.init(board: board.id, profile: config.profile.rawValue, identity: identity, at: now)))
        emit(.testStarted(.init(board: board.id, suite: "preflight", test: "lease", at: now)))
        emit(
            .testFinished(
                .init(
                    board: board.id, suite: "preflight", test: "lease", started: now, duration: .zero,
                    outcome: .error(message: "board \(board.id) could not be leased: \(reason)", details: reason),
                    failureClass: .infrastructure)))
        for planned in campaign.suites {
            emit(.testStarted(.init(board: board.id, suite: planned.name, test: "all checks", at: now)))
            emit(
                .testFinished(
                    .init(
                        board: board.id, suite: planned.name, test: "all checks", started: now, duration: .zero,
                        outcome: .skipped(reason: "not run: board \(board.id) could not be leased"))))
        }
        emit(.boardFinished(.init(board: board.id, at: now, state: "unleased")))
    }
}

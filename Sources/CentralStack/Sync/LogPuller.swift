import DeviceProfiles

/// What one ``LogPuller/pull(client:queue:board:now:observe:)`` did.
public struct PullReport: Sendable, Hashable {
    /// The board's STATUS before the first READ.
    public var statusBefore: EspPoint.LogStatus
    /// Readings read from the board.
    public var read = 0
    /// Of those, how many the queue did not hold yet.
    public var queued = 0
    /// The highest seq acknowledged to the board, if any.
    public var acknowledgedUpTo: UInt32?

    public init(statusBefore: EspPoint.LogStatus) { self.statusBefore = statusBefore }
}

/// Moves an esp-point's flash log into the sync queue: STATUS, READ a chunk, commit it durably, then ACK it —
/// in that order, so a crash (of the app, or of the phone) at any point loses nothing: readings not yet
/// committed are still on the board, and readings committed but not yet acknowledged are read again and
/// deduplicated by their key.
public enum LogPuller {
    /// One step, for progress lines and crash tests.
    public enum Step: Sendable {
        /// These readings were read from the board, with the board's sample times (not yet queued).
        case read([EspPoint.Reading])
        /// These readings are durably queued (new or already held).
        case committed(sequences: [UInt32])
        case acknowledged(upTo: UInt32)
    }

    /// Readings per READ request.
    public static let chunk: UInt16 = 256

    /// Pulls everything the board holds. `board` is its serial number (half of each reading's key); `now` is the
    /// time queued readings get as `createdAt`.
    public static func pull(
        client: EspPointClient, queue: SyncQueue, board: String, now: @Sendable () -> Double,
        observe: @escaping @Sendable (Step) -> Void = { _ in }
    ) async throws -> PullReport {
        var report = PullReport(statusBefore: try await client.logStatus())
        var status = report.statusBefore
        while status.count > 0 {
            let readings = try await client.readLog(from: status.oldest, maxCount: chunk)
            guard let last = readings.last else { break }
            if let wrong = zip(readings, readings.dropFirst()).first(where: { $0.1.sequence <= $0.0.sequence }) {
                throw SessionError.protocolViolation(
                    "Log READ returned seq \(wrong.1.sequence) after \(wrong.0.sequence); the contract says increasing")
            }
            report.read += readings.count
            observe(.read(readings))
            let records = readings.map { ($0.sequence, $0.encoded) }
            let at = now()
            report.queued += try await BlockingWork.run { () throws(SyncQueueError) in
                try queue.enqueue(board: board, records: records, at: at)
            }
            observe(.committed(sequences: readings.map(\.sequence)))
            try await client.acknowledgeLog(upTo: last.sequence)
            report.acknowledgedUpTo = last.sequence
            observe(.acknowledged(upTo: last.sequence))
            status = try await client.logStatus()
            if status.count > 0, status.oldest <= last.sequence {
                throw SessionError.protocolViolation(
                    "after ACK \(last.sequence) the board still holds seq \(status.oldest); the contract says ACK frees them"
                )
            }
        }
        return report
    }
}

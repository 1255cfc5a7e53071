import BLECore
import BenchCore
import CentralStack

/// Finding a board on the air.
enum Preflight {
    /// The first advertising report matching `match` within `timeout` on `central`, or nil.
    static func firstAdvertisement(
        of match: BoardMatch, on central: any Central, clock: any RigClock, within timeout: Duration
    ) async throws(SessionError) -> Advertisement? {
        do {
            return try await withTimeout(timeout, clock: clock, waitingFor: "an advertisement from \(match)") {
                for await report in central.scan(match.scanFilter)
                where match.accepts(address: report.address, data: report.data) {
                    return report
                }
                return nil
            }
        } catch {
            if case .timeout = error { return nil }
            throw error
        }
    }
}

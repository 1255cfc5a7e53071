import BLECore
import BenchCore
import CentralStack

/// Finding a board on the air.
enum Preflight {
    /// The first advertising report matching `match` within `timeout` on `central`, or nil; a scan the radio
    /// ends first throws ``SessionError/scanEnded(waitingFor:after:)``.
    static func firstAdvertisement(
        of match: BoardMatch, on central: any Central, clock: any RigClock, within timeout: Duration
    ) async throws(SessionError) -> Advertisement? {
        try await firstReport(
            on: central, filter: match.scanFilter, within: timeout, clock: clock,
            waitingFor: "an advertisement from \(match)"
        ) { report in match.accepts(address: report.address, data: report.data) }
    }
}

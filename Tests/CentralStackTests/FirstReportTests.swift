import BLECore
import CentralStack
import Testing

/// ``firstReport(on:filter:within:clock:waitingFor:where:)``: what the preflight and the app's own scan wait with.
@Suite("First report of a scan")
struct FirstReportTests {
    static let board = DeviceAddress(0xC000_0000_00AA, kind: .random)

    /// A radio whose scans yield `reports` and then end, or stay open (`endsScan` false) until cancelled. Like every
    /// radio's scan, one with `deduplicate` reports each address once.
    struct ScriptedCentral: Central {
        let clock: any RigClock = WallClock()
        let reports: [Advertisement]
        let endsScan: Bool

        func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> {
            let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
            var seen: Set<DeviceAddress> = []
            for report in reports where !filter.deduplicate || seen.insert(report.address).inserted {
                continuation.yield(report)
            }
            if endsScan { continuation.finish() }
            return stream
        }

        func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection {
            throw .notFound(address, waited: timeout)
        }
    }

    static func report(_ name: String) -> Advertisement {
        Advertisement(
            address: board, data: AdvertisingData(localName: name), rssi: -50, connectable: true, received: .origin)
    }

    /// The default wait is long: on a loaded two-core host the pool may start these tasks seconds late.
    static func wait(on central: ScriptedCentral, within limit: Duration = .seconds(60)) async throws(SessionError)
        -> Advertisement?
    {
        try await firstReport(
            on: central, filter: ScanFilter(addresses: [board]), within: limit, clock: central.clock,
            waitingFor: "an advertisement from \(board)"
        ) { $0.data.localName == "wanted" }
    }

    /// The reports are the same board's: its advertisement alone (the scan response lost), then merged with the
    /// response. A scan that reported the board once would end the wait with nil.
    @Test("the first report the caller takes is returned, even after one of the same board's it passed over")
    func takesTheWantedReport() async throws {
        let central = ScriptedCentral(reports: [Self.report("other"), Self.report("wanted")], endsScan: false)
        #expect(try await Self.wait(on: central)?.data.localName == "wanted")
    }

    @Test("silence for the whole wait is nil: the board was not heard")
    func silenceIsNil() async throws {
        let central = ScriptedCentral(reports: [Self.report("other")], endsScan: false)
        #expect(try await Self.wait(on: central, within: .milliseconds(100)) == nil)
    }

    @Test("a scan the radio ends before the wait is up throws scanEnded, not nil: the radio stopped, not the board")
    func anEndedScanIsTheRadios() async throws {
        let central = ScriptedCentral(reports: [Self.report("other")], endsScan: true)
        do {
            let report = try await Self.wait(on: central)
            Issue.record("a scan that ended returned \(String(describing: report))")
        } catch {
            guard case let .scanEnded(what, after) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(what == "an advertisement from \(Self.board)")
            #expect(after < .seconds(60))
            #expect("\(error)".contains("(switched off, gone, or refusing to scan)"))
        }
    }
}

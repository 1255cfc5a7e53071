import BLECore
import BenchCore
import Glibc
import Synchronization
import Testing

@testable import BoardControl

/// What opening a port does to its modem lines: the kernel raises DTR and RTS on open (cdc_acm, ftdi_sio, cp210x
/// alike), and the port releases both in one TIOCMSET, as idf.py monitor does, so that a reset sequence starts
/// from the released state (seen on Debian's 6.1 kernel in the kernel tier: `R1|W0.1|R0` after a plain open left
/// DTR up and never pulled EN).
@Suite("Serial port open and the modem lines")
struct SerialPortOpenLinesTests {
    /// A serial system whose lines start as the kernel leaves them after open, recording every TIOCMSET.
    final class RaisedLinesSystem: SerialSystem {
        let sets = Mutex<[ModemLines]>([])
        let initial: ModemLines
        let modemError: Int32?

        init(initial: ModemLines = [.dtr, .rts, .cts], modemError: Int32? = nil) {
            self.initial = initial
            self.modemError = modemError
        }

        var current: ModemLines { sets.withLock { $0.last } ?? initial }
        func open(_ path: String) throws(SystemCallError) -> Int32 { 7 }
        func close(_ descriptor: Int32) {}
        func claimExclusive(_ descriptor: Int32) throws(SystemCallError) {}
        func lockDevice(_ descriptor: Int32) throws(SystemCallError) {}
        func configure(_ descriptor: Int32, baud: Int, hangUpOnClose: Bool) throws(SystemCallError) -> Int { baud }
        func modemLines(_ descriptor: Int32) throws(SystemCallError) -> ModemLines {
            if let modemError { throw SystemCallError("TIOCMGET", code: modemError) }
            return current
        }
        func setModemLines(_ descriptor: Int32, _ lines: ModemLines) throws(SystemCallError) {
            sets.withLock { $0.append(lines) }
        }
        func waitReadable(_ descriptor: Int32, timeout: Duration) throws(SystemCallError) -> Readiness { .timedOut }
        func read(_ descriptor: Int32, limit: Int) throws(SystemCallError) -> [UInt8] { [] }
        func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int { bytes.count }
    }

    static func open(_ system: RaisedLinesSystem) throws -> SerialPort {
        try SerialPort.open(
            "/dev/ttyACM0", environment: SerialEnvironment(system: system, processes: ProcFS(), lockDirectories: []))
    }

    @Test func openingReleasesTheDTRAndRTSTheKernelRaisedInOneCall() throws {
        let system = RaisedLinesSystem()
        let port = try Self.open(system)
        defer { port.close() }
        // One TIOCMSET, both outputs released, the inputs left as read.
        #expect(system.sets.withLock { $0 } == [[.cts]])
    }

    @Test func linesAlreadyReleasedAreNotSetAgain() throws {
        let system = RaisedLinesSystem(initial: [])
        let port = try Self.open(system)
        defer { port.close() }
        #expect(system.sets.withLock { $0 }.isEmpty)
    }

    @Test func aHardResetAfterOpeningPullsENAsEsptoolsDoes() async throws {
        let system = RaisedLinesSystem()
        let port = try Self.open(system)
        defer { port.close() }
        let sequence = try #require(ResetPreset.hardReset.sequence(for: .run))
        try await ResetSequencePlayer(clock: SteppingClock()).play(sequence, on: port)
        let states = system.sets.withLock { $0 }.map { "D\($0.dtrOn ? 1 : 0)R\($0.rtsOn ? 1 : 0)" }
        #expect(states == ["D0R0", "D0R1", "D0R0"])
    }

    @Test("a port without modem lines opens all the same", arguments: [ENOTTY, EINVAL])
    func aPortWithoutModemLinesOpens(_ code: Int32) throws {
        let system = RaisedLinesSystem(modemError: code)
        let port = try Self.open(system)
        port.close()
        #expect(system.sets.withLock { $0 }.isEmpty)
    }
}

import BLECore

/// A rig file made real: its radios, its boards with the capabilities each one has, and the clock everything on
/// the bench is timed with. The campaign and the suites see only this interface (and the capability protocols),
/// so the same code drives the virtual farm, blerig's own HCI host and serial-and-hub hardware.
///
/// The labgrid model: the rig file names *resources* (where a radio, a serial port, a hub port is), *drivers*
/// implement small capabilities over them (``PowerSwitch``, ``ResetControl``, ``BoardConsole``, ``CaptureSink``,
/// ``Central``), and the orchestrator's strategy moves each board between states with them.
///
/// A bench exists only while its ``BenchLauncher`` runs the body it was given; everything that touches it runs
/// there, on the bench's executor.
public protocol Bench: Sendable {
    /// The bench's clock: virtual time on the virtual farm, monotonic wall time on hardware. Every timeout,
    /// schedule and measurement on this bench uses it.
    var clock: any RigClock { get }

    /// The Unix time at which ``clock`` read ``RigInstant/origin``: a fixed date on the virtual farm (so that
    /// captures of one seed are byte-identical), the moment the bench opened on hardware.
    var unixTimeAtOrigin: Duration { get }

    /// The radios, in rig-file order; at least one.
    var radios: [any BenchRadio] { get }

    /// The boards, in rig-file order.
    var boards: [BenchBoard] { get }

    /// Where the bench's parts report that they failed while the run used them (see ``BenchHealth``). A bench
    /// whose parts cannot fail (the virtual farm) hands out one that never hears a fault.
    var health: BenchHealth { get }
}

/// Opens a bench, runs a body on the bench's clock and executor, and closes the bench, whatever the body does.
/// The virtual farm's launcher runs the body inside its deterministic simulation (virtual time moves only when
/// every task waits); a hardware launcher runs it on the wall clock after opening its devices.
public protocol BenchLauncher: Sendable {
    /// What the bench is, for the run's header: `virtual farm (seed 42)`, `hci tcp:127.0.0.1:6402`.
    var summary: String { get }

    /// Opens the bench and runs `body` with it. The bench is closed (devices released, processes it started
    /// stopped) before this returns or throws. Errors opening the bench are ``BenchError``s.
    func withBench<T: Sendable>(
        _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<T>

    /// Opens the bench as independent parts and runs `body` once with each, as the bench allows concurrently:
    /// parts share no radio and no board (the virtual farm's airs, one per radio). Every part is closed before this
    /// returns; the values come in the order of the bench's radios. A bench that does not divide is one part.
    func withBenchParts<T: Sendable>(
        _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<[T]>
}

extension BenchLauncher {
    public func withBenchParts<T: Sendable>(
        _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<[T]> {
        let outcome = try await withBench(body)
        return BenchOutcome(value: [outcome.value], work: outcome.work)
    }
}

/// What a bench run produced, with what it cost the bench.
public struct BenchOutcome<Value: Sendable>: Sendable {
    public var value: Value
    /// Work the bench did that does not depend on the machine: simulation timers fired on the virtual farm,
    /// HCI packets on hardware; nil when the bench does not count.
    public var work: Int?

    public init(value: Value, work: Int? = nil) {
        self.value = value
        self.work = work
    }
}

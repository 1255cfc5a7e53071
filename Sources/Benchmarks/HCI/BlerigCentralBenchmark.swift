import BLECore
import BenchCore
import Benches
import CentralStack
import Foundation
import Orchestrator
import Radios

/// blerig's central in this process on a controller of its own, timed through the same sequence as
/// `bench_central.py` runs Bumble's central (see ``HCIBenchmark``), on one of two paths:
/// - ``Path/benchmark``: an ``HCIStack`` with its ``HCICentral``, the work on the stack's executor;
/// - ``Path/campaign``: the radio as a campaign builds it (``BenchBuilder/campaignRadio(id:on:clock:)``),
///   reached through ``BenchRadio``, its every packet captured as a run captures it (the board's btsnoop and the
///   radio's, written by the run's writer thread), the work on ``BenchRadio/executor`` with blocking work
///   offloaded, as ``CampaignRun`` runs a board's suites.
struct BlerigCentralBenchmark {
    enum Path: Sendable {
        case benchmark
        /// The run directory for the captures goes under this root (removed afterwards).
        case campaign(capturesRoot: String)
    }

    let hci: HCITransportSpec
    let target: DeviceAddress
    let options: HCIBenchmark.Options
    var path: Path = .benchmark

    /// The Interop Test service's characteristics the benchmark uses (see `share/blerig/peers/README.md`).
    static func profileUUID(_ short: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: 0xE5B1_0000_7C3A_4F0E | UInt64(short) << 32, low: 0x9D2B_5A1C_3E7F_9B20)
    }
    static let echo = profileUUID(0xF003)
    static let notifySource = profileUUID(0xF006)
    static let command = profileUUID(0xF00B)
    static let streamOpcode: UInt8 = 0x04
    static let endOfStream: UInt32 = 0xFFFF_FFFF

    /// A link after its handshake.
    struct Session {
        var connection: GATTClientConnection
        var characteristics: [BluetoothUUID: GATT.Characteristic]
        var values: AsyncStream<GATT.ValueEvent>
        var requests: Int
    }

    /// Opens the central on its path. It stays open for the whole run: ``HCIBenchmark`` times its handshakes in parts
    /// between the other centrals'.
    func open() async throws -> Opened {
        let opened: Opened
        switch path {
        case .benchmark:
            let stack: HCIStack
            do {
                stack = try await HCIStack.open(try hci.open(), clock: WallClock())
            } catch {
                throw BenchmarkError("blerig's central could not open a controller at \(hci): \(error)")
            }
            // As Bumble's central runs in its event loop, blerig's runs on its stack's reader thread: a response
            // resumes the waiting procedure right there, with no hop to another thread.
            let central = HCICentral(stack: stack)
            opened = Opened(
                benchmark: self, central: central, executor: central.executor, offload: false, stack: stack,
                captures: nil)
        case let .campaign(root):
            let radio: HCIRadio
            do {
                radio = try await BenchBuilder.campaignRadio(id: "bench", on: try hci.open(), clock: WallClock())
            } catch {
                throw BenchmarkError("blerig's campaign radio could not open a controller at \(hci): \(error)")
            }
            let captures: CaptureRecording
            do {
                captures = try CaptureRecording(
                    root: root, name: "bench-hci", boards: [("peripheral", target)], radios: [radio.id],
                    unixTimeAtOrigin: .seconds(Date().timeIntervalSince1970))
            } catch {
                await radio.stack.shutdown()
                throw BenchmarkError("the campaign row's captures: \(error)")
            }
            radio.capture(into: captures)
            // As ``CampaignRun`` runs a board's suites: on the radio's executor, blocking work offloaded.
            opened = Opened(
                benchmark: self, central: radio.central, executor: radio.executor, offload: radio.executor != nil,
                stack: radio.stack, captures: captures)
        }
        return opened
    }

    /// blerig's central on one ``Path``, open: ``part(handshakes:)`` as often as the run asks, then ``tail(recorder:)``
    /// and ``close()``. Used by one task at a time.
    final class Opened {
        let benchmark: BlerigCentralBenchmark
        let central: any Central
        private let executor: (any TaskExecutor)?
        private let offload: Bool
        private let stack: HCIStack
        private let captures: CaptureRecording?
        /// The random waits before the writes (``HCIBenchmark/Options/phaseSeed``), one sequence over all parts.
        private var phases: SplitMix64
        private var closed = false

        init(
            benchmark: BlerigCentralBenchmark, central: any Central, executor: (any TaskExecutor)?, offload: Bool,
            stack: HCIStack, captures: CaptureRecording?
        ) {
            self.benchmark = benchmark
            self.central = central
            self.executor = executor
            self.offload = offload
            self.stack = stack
            self.captures = captures
            phases = SplitMix64(seed: benchmark.options.phaseSeed)
        }

        /// Runs `body` where this path runs its central's work.
        func onItsExecutor<T>(_ body: () async throws -> T) async throws -> T {
            try await withTaskExecutorPreference(executor) {
                try await BlockingWork.$offload.withValue(offload) { try await body() }
            }
        }

        /// One untimed handshake, then `count` handshakes, timed: their samples, and the CPU time and reads over
        /// them. The untimed one leaves out what only a part's first handshake meets (`bench_central.py` does the
        /// same): a fresh stack's first-time work, and a peripheral that another central has just left, whose
        /// advertising restarts at another phase than after this central's own disconnection (its connection waits
        /// up to one 20 ms advertising interval more).
        func part(handshakes count: Int) async throws -> CentralMeasurement {
            let transport = stack.transport as? TCPTransport
            return try await onItsExecutor {
                try await benchmark.handshakeAndDisconnect(central)
                return try await benchmark.timeHandshakes(count, on: central, reads: { transport?.reads })
            }
        }

        /// On one more link, `count` write requests to echo, each timed, the random waits before them going on
        /// from the previous part's.
        func writes(_ count: Int) async throws -> CentralMeasurement {
            try await onItsExecutor { try await benchmark.timeWrites(count, on: central, phases: &phases) }
        }

        /// The stream on one more link; on the benchmark path, with `recorder`, the traffic of one more handshake
        /// before it (for ``SocketFloor``).
        func tail(recorder: TrafficRecorder? = nil) async throws -> CentralMeasurement {
            try await onItsExecutor {
                if let recorder {
                    stack.capture(into: recorder, as: "bench")
                    try await benchmark.handshakeAndDisconnect(central)
                    stack.stopCapture()
                }
                return try await benchmark.timeStream(on: central, executor: executor)
            }
        }

        /// Shuts the stack down and, on the campaign path, writes the captures out and removes them.
        func close() async throws {
            guard !closed else { return }
            closed = true
            await stack.shutdown()
            guard let captures else { return }
            defer { try? FileManager.default.removeItem(atPath: captures.directory) }
            do { try captures.finish() } catch {
                throw BenchmarkError("the campaign row's captures could not be written: \(error)")
            }
        }
    }

    /// `count` handshakes on `central`, each timed, and this process's CPU time over them less the benchmark's own
    /// reading of rootcanal's and the peripheral's output.
    fileprivate func timeHandshakes(
        _ count: Int, on central: any Central, reads: @Sendable () -> Int?
    ) async throws -> CentralMeasurement {
        let clock = ContinuousClock()
        var connects: [Double] = []
        var handshakes: [Double] = []
        var requests: [Int] = []
        let cpuBefore = ProcessCPU.now
        let harnessBefore = SupervisedProcess.outputReadingCPU
        let readsBefore = reads()
        let loopStarted = clock.now
        for _ in 0..<count {
            let (session, connect, total) = try await handshake(central, clock)
            connects.append(connect.milliseconds)
            handshakes.append(total.milliseconds)
            requests.append(session.requests)
            await session.connection.disconnect()
        }
        let cpu = ProcessCPU.now - cpuBefore
        // This process also reads rootcanal's and the peripheral's output meanwhile: the benchmark's work, not the
        // central's, and none of it happens in Bumble's process.
        let harness = SupervisedProcess.outputReadingCPU - harnessBefore
        let loop = loopStarted.duration(to: clock.now)
        let readsPerHandshake = reads().flatMap { after in
            readsBefore.map { Double(after - $0) / Double(max(1, count)) }
        }
        return CentralMeasurement(
            connectMs: connects, handshakeMs: handshakes, attRequests: requests, cpuS: (cpu - harness).seconds,
            harnessCpuS: harness.seconds, loopS: loop.seconds, readsPerHandshake: readsPerHandshake, writeMs: [],
            stream: .none, mtu: 0)
    }

    /// On one more link: `count` timed writes to echo, each after a wait drawn from `phases`. Write samples only.
    fileprivate func timeWrites(
        _ count: Int, on central: any Central, phases: inout SplitMix64
    ) async throws -> CentralMeasurement {
        let clock = ContinuousClock()
        let (session, _, _) = try await handshake(central, clock)
        guard let echo = session.characteristics[Self.echo] else {
            await session.connection.disconnect()
            throw BenchmarkError("the peripheral has no echo characteristic")
        }
        let value = (0..<options.writeSize).map { UInt8(truncatingIfNeeded: $0) }
        var writes: [Double] = []
        // Each write starts at a random phase of rootcanal's tick, as bench_central.py's do (Options.phaseSeed). The
        // wait blocks the thread the central runs on, as Bumble's blocks its event loop, so in both centrals what
        // arrives during the wait is handled after it.
        let tickNanoseconds = UInt64(max(1, options.tick / .nanoseconds(1)))
        do {
            for _ in 0..<count {
                var wait = timespec(tv_sec: 0, tv_nsec: Int(phases.next() % tickNanoseconds))
                nanosleep(&wait, nil)
                let began = clock.now
                try await session.connection.write(value, to: echo.valueHandle)
                writes.append(began.duration(to: clock.now).milliseconds)
            }
        } catch {
            await session.connection.disconnect()
            throw BenchmarkError("blerig's central: a write to echo failed: \(error)")
        }
        let mtu = Int(session.connection.mtu)
        await session.connection.disconnect()
        return CentralMeasurement(
            connectMs: [], handshakeMs: [], attRequests: [], cpuS: 0, loopS: 0, writeMs: writes, stream: .none,
            mtu: mtu)
    }

    /// On one more link: the stream. No handshake or write samples.
    fileprivate func timeStream(on central: any Central, executor: (any TaskExecutor)?) async throws -> CentralMeasurement {
        let clock = ContinuousClock()
        let (session, _, _) = try await handshake(central, clock)
        guard let command = session.characteristics[Self.command] else {
            await session.connection.disconnect()
            throw BenchmarkError("the peripheral has no command characteristic")
        }
        let mtu = Int(session.connection.mtu)
        let stream: CentralMeasurement.Stream
        do {
            stream = try await measureStream(session, command: command, size: mtu - 3, executor: executor, clock)
        } catch {
            await session.connection.disconnect()
            throw error
        }
        await session.connection.disconnect()
        return CentralMeasurement(
            connectMs: [], handshakeMs: [], attRequests: [], cpuS: 0, loopS: 0, writeMs: [], stream: stream, mtu: mtu)
    }

    /// One handshake on `central`, then its disconnection (for ``HostReplay``).
    func handshakeAndDisconnect(_ central: any Central) async throws {
        let (session, _, _) = try await handshake(central, ContinuousClock())
        await session.connection.disconnect()
    }

    /// Connect, Exchange MTU, all primary services, the characteristics of each, the descriptors of
    /// notify_source, its CCCD written. Returns the session and the connect and handshake times.
    private func handshake(
        _ central: any Central, _ clock: ContinuousClock
    ) async throws -> (Session, connect: Duration, total: Duration) {
        let began = clock.now
        let link: any GATTConnection
        do {
            link = try await central.connect(to: target, timeout: .seconds(10))
        } catch {
            throw BenchmarkError("blerig's central could not connect to \(target): \(error)")
        }
        let connected = clock.now
        guard let connection = link as? GATTClientConnection else {
            throw BenchmarkError("blerig's central returned a \(type(of: link)), not a GATTClientConnection")
        }
        do {
            _ = try await connection.exchangeMTU(preferred: UInt16(options.mtu))
            var characteristics: [BluetoothUUID: GATT.Characteristic] = [:]
            for service in try await connection.discoverPrimaryServices(nil) {
                for characteristic in try await connection.discoverCharacteristics(of: service) {
                    characteristics[characteristic.uuid] = characteristics[characteristic.uuid] ?? characteristic
                }
            }
            guard let notify = characteristics[Self.notifySource] else {
                throw BenchmarkError("no characteristic \(Self.notifySource) on \(target)")
            }
            let descriptors = try await connection.discoverDescriptors(of: notify)
            guard
                let cccd = descriptors.first(where: { $0.uuid == GATT.AttributeType.clientCharacteristicConfiguration })
            else {
                throw BenchmarkError("\(Self.notifySource) has no CCCD")
            }
            let values = try await connection.subscribe(to: notify, cccd: cccd.handle, indications: false)
            let subscribed = clock.now
            let session = Session(
                connection: connection, characteristics: characteristics, values: values,
                requests: connection.statistics.requestsSent)
            return (session, connected - began, subscribed - began)
        } catch let error as GATTError {
            await connection.disconnect()
            throw BenchmarkError("blerig's central: the handshake with \(target) failed: \(error)")
        } catch {
            await connection.disconnect()
            throw error
        }
    }

    /// Asks for a STREAM and counts its values until the end-of-stream one, as `bench_central.py` does.
    private func measureStream(
        _ session: Session, command: GATT.Characteristic, size: Int, executor: (any TaskExecutor)?,
        _ clock: ContinuousClock
    ) async throws -> CentralMeasurement.Stream {
        let milliseconds = UInt16(clamping: Int(options.streamDuration.milliseconds))
        let request = [Self.streamOpcode] + le(milliseconds) + le(UInt16(size))
        let consumer = Task(executorPreference: executor) {
            () -> (values: Int, bytes: Int, gaps: Int, ended: ContinuousClock.Instant?) in
            var values = 0
            var bytes = 0
            var gaps = 0
            var expected: UInt32 = 0
            for await event in session.values {
                guard event.value.count >= 4 else { continue }
                let sequence = event.value.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                if sequence == Self.endOfStream { return (values, bytes, gaps, clock.now) }
                if sequence > expected { gaps += Int(sequence - expected) }
                expected = sequence &+ 1
                values += 1
                bytes += event.value.count
            }
            return (values, bytes, gaps, nil)
        }
        let started: ContinuousClock.Instant
        do {
            try await session.connection.write(request, to: command.valueHandle)
            started = clock.now
        } catch {
            consumer.cancel()
            throw BenchmarkError("blerig's central: the STREAM command failed: \(error)")
        }
        let limit = options.streamDuration + .seconds(10)
        let watchdog = Task {
            try await clock.sleep(for: limit)
            await session.connection.disconnect()
        }
        let outcome = await consumer.value
        watchdog.cancel()
        guard let ended = outcome.ended else {
            throw BenchmarkError("blerig's central: no end-of-stream value within \(limit.seconds) s")
        }
        return CentralMeasurement.Stream(
            values: outcome.values, bytes: outcome.bytes, gaps: outcome.gaps,
            seconds: started.duration(to: ended).seconds,
            size: size)
    }

    private func le(_ value: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(value >> 8)] }
}

/// The CPU time this process has used so far, user and system, all threads (getrusage RUSAGE_SELF).
enum ProcessCPU {
    static var now: Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func duration(_ t: timeval) -> Duration { .seconds(Int64(t.tv_sec)) + .microseconds(Int64(t.tv_usec)) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }
}

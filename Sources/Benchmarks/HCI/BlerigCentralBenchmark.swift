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
    /// After the timed handshakes, the writes and the stream (and the recorder's handshake); false: the handshakes
    /// alone, `options.handshakes` of them (the first half of ``HCIBenchmark``'s run).
    var tail = true
    /// On the benchmark path, hears the traffic of one more handshake after the timed ones (for ``SocketFloor``).
    var recorder: TrafficRecorder?

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

    func run() async throws -> CentralMeasurement {
        switch path {
        case .benchmark: try await runBenchmarkPath()
        case let .campaign(root): try await runCampaignPath(capturesRoot: root)
        }
    }

    private func runBenchmarkPath() async throws -> CentralMeasurement {
        let stack: HCIStack
        do {
            stack = try await HCIStack.open(try hci.open(), clock: WallClock())
        } catch {
            throw BenchmarkError("blerig's central could not open a controller at \(hci): \(error)")
        }
        do {
            // As Bumble's central runs in its event loop, blerig's runs on its stack's reader thread: a response
            // resumes the waiting procedure right there, with no hop to another thread.
            let central = HCICentral(stack: stack)
            let measurement = try await withTaskExecutorPreference(central.executor) {
                try await measure(
                    central, executor: central.executor, reads: Self.reads(of: stack), recordingOn: stack)
            }
            await stack.shutdown()
            return measurement
        } catch {
            await stack.shutdown()
            throw error
        }
    }

    private func runCampaignPath(capturesRoot: String) async throws -> CentralMeasurement {
        let radio: any BenchRadio
        let hciRadio: HCIRadio
        do {
            hciRadio = try await BenchBuilder.campaignRadio(id: "bench", on: try hci.open(), clock: WallClock())
            radio = hciRadio
        } catch {
            throw BenchmarkError("blerig's campaign radio could not open a controller at \(hci): \(error)")
        }
        let captures: CaptureRecording
        do {
            captures = try CaptureRecording(
                root: capturesRoot, name: "bench-hci", boards: [("peripheral", target)], radios: [radio.id],
                unixTimeAtOrigin: .seconds(Date().timeIntervalSince1970))
        } catch {
            await hciRadio.stack.shutdown()
            throw BenchmarkError("the campaign row's captures: \(error)")
        }
        radio.capture(into: captures)
        let outcome: Result<CentralMeasurement, any Error>
        do {
            let executor = radio.executor
            outcome = .success(
                try await withTaskExecutorPreference(executor) {
                    try await BlockingWork.$offload.withValue(executor != nil) {
                        try await measure(radio.central, executor: executor, reads: Self.reads(of: hciRadio.stack))
                    }
                })
        } catch {
            outcome = .failure(error)
        }
        await hciRadio.stack.shutdown()
        do { try captures.finish() } catch {
            throw BenchmarkError("the campaign row's captures could not be written: \(error)")
        }
        try? FileManager.default.removeItem(atPath: captures.directory)
        return try outcome.get()
    }

    /// The reads `stack`'s transport has made so far, where it counts them (rootcanal's TCP socket).
    private static func reads(of stack: HCIStack) -> @Sendable () -> Int? {
        { [transport = stack.transport] in (transport as? TCPTransport)?.reads }
    }

    private func measure(
        _ central: any Central, executor: (any TaskExecutor)?, reads: @Sendable () -> Int?,
        recordingOn stack: HCIStack? = nil
    ) async throws -> CentralMeasurement {
        let clock = ContinuousClock()
        var connects: [Double] = []
        var handshakes: [Double] = []
        var requests: [Int] = []
        // One handshake first, untimed, as bench_central.py does: what only a fresh stack's first one does is not
        // counted, neither here nor in each half of the run.
        try await handshakeAndDisconnect(central)
        let cpuBefore = ProcessCPU.now
        let harnessBefore = SupervisedProcess.outputReadingCPU
        let readsBefore = reads()
        let loopStarted = clock.now
        for _ in 0..<options.handshakes {
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
            readsBefore.map { Double(after - $0) / Double(max(1, options.handshakes)) }
        }
        guard tail else {
            return CentralMeasurement(
                connectMs: connects, handshakeMs: handshakes, attRequests: requests, cpuS: (cpu - harness).seconds,
                harnessCpuS: harness.seconds, loopS: loop.seconds, readsPerHandshake: readsPerHandshake, writeMs: [],
                stream: .none, mtu: 0)
        }
        if let recorder, let stack {
            stack.capture(into: recorder, as: "bench")
            let (recorded, _, _) = try await handshake(central, clock)
            await recorded.connection.disconnect()
            stack.stopCapture()
        }

        let (session, _, _) = try await handshake(central, clock)
        guard let echo = session.characteristics[Self.echo], let command = session.characteristics[Self.command] else {
            throw BenchmarkError("the peripheral has no echo or command characteristic")
        }
        let value = (0..<options.writeSize).map { UInt8(truncatingIfNeeded: $0) }
        var writes: [Double] = []
        // Each write starts at a random phase of rootcanal's tick, as bench_central.py's do (Options.phaseSeed). The
        // wait blocks the thread the central runs on, as Bumble's blocks its event loop, so in both centrals what
        // arrives during the wait is handled after it.
        var phases = SplitMix64(seed: options.phaseSeed)
        let tickNanoseconds = UInt64(max(1, options.tick / .nanoseconds(1)))
        do {
            for _ in 0..<options.writeCount {
                var wait = timespec(tv_sec: 0, tv_nsec: Int(phases.next() % tickNanoseconds))
                nanosleep(&wait, nil)
                let began = clock.now
                try await session.connection.write(value, to: echo.valueHandle)
                writes.append(began.duration(to: clock.now).milliseconds)
            }
        } catch {
            throw BenchmarkError("blerig's central: a write to echo failed: \(error)")
        }
        let mtu = Int(session.connection.mtu)
        let stream = try await measureStream(
            session, command: command, size: mtu - 3, executor: executor, clock)
        await session.connection.disconnect()
        return CentralMeasurement(
            connectMs: connects, handshakeMs: handshakes, attRequests: requests, cpuS: (cpu - harness).seconds,
            harnessCpuS: harness.seconds, loopS: loop.seconds, readsPerHandshake: readsPerHandshake, writeMs: writes, stream: stream, mtu: mtu)
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

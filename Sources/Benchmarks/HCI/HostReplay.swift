import BLECore
import BenchCore
import Foundation
import Radios

/// What blerig's host code alone costs per handshake: a session of blerig's benchmark central recorded on a
/// controller of its own (its initialisation and two handshakes), then the same central on a fresh stack driven by
/// that recording in this process (``ReplayController``), its second handshake over and over. No socket, no other
/// process and no tick: the CPU time per handshake is the host's own work, with none of the kernel's that
/// ``SocketFloor`` measures. What the two leave of the benchmark central's figure on rootcanal is what the same work
/// costs on the socket's reader thread, between waits and among other processes, beyond what it costs here.
struct HostReplay {
    /// The central to record and replay, with the controller it records on.
    let central: BlerigCentralBenchmark
    let handshakes: Int

    func run() async throws -> HostReplayMeasurement {
        let traffic = try await record()
        // The first handshake may do what only a first one does; the second is what every later one repeats.
        let connects = traffic.indices.filter { index in
            traffic[index].0 == .hostToController && Self.isConnectionRequest(traffic[index].1)
        }
        guard connects.count == 2 else {
            throw BenchmarkError("the recorded session holds \(connects.count) connection requests, not 2")
        }
        let cycleStart = traffic[..<connects[1]].count { $0.0 == .hostToController }
        let controller = try ReplayController(traffic, cycleStart: cycleStart)
        let stack: HCIStack
        do {
            stack = try await HCIStack.open(controller, clock: WallClock())
        } catch {
            throw BenchmarkError("the host replay could not open its stack: \(controller.diverged ?? "\(error)")")
        }
        let hci = HCICentral(stack: stack)
        do {
            let measurement = try await withTaskExecutorPreference(hci.executor) {
                // One handshake to reach the cycle, then the timed ones.
                try await central.handshakeAndDisconnect(hci)
                let sentBefore = controller.sent
                let cpuBefore = ProcessCPU.now
                let harnessBefore = SupervisedProcess.outputReadingCPU
                let wallBefore = ContinuousClock.now
                for _ in 0..<handshakes { try await central.handshakeAndDisconnect(hci) }
                let cpu = ProcessCPU.now - cpuBefore - (SupervisedProcess.outputReadingCPU - harnessBefore)
                return HostReplayMeasurement(
                    handshakes: handshakes, cpuS: cpu.seconds, loopS: (ContinuousClock.now - wallBefore).seconds,
                    hostPacketsPerHandshake: Double(controller.sent - sentBefore) / Double(max(1, handshakes)))
            }
            await stack.shutdown()
            return measurement
        } catch {
            await stack.shutdown()
            throw BenchmarkError("the host replay failed: \(controller.diverged ?? "\(error)")")
        }
    }

    /// The traffic of a fresh stack on the central's controller, from its first packet: initialisation, then two
    /// handshakes.
    private func record() async throws -> [(HCI.Direction, HCI.H4Packet)] {
        let recording: RecordingTransport
        let stack: HCIStack
        do {
            recording = RecordingTransport(try central.hci.open())
            stack = try await HCIStack.open(recording, clock: WallClock())
        } catch {
            throw BenchmarkError("the host replay could not open a controller at \(central.hci): \(error)")
        }
        let hci = HCICentral(stack: stack)
        do {
            try await withTaskExecutorPreference(hci.executor) {
                for _ in 0..<2 { try await central.handshakeAndDisconnect(hci) }
            }
        } catch {
            await stack.shutdown()
            throw error
        }
        let traffic = recording.traffic
        await stack.shutdown()
        return traffic
    }

    private static func isConnectionRequest(_ packet: HCI.H4Packet) -> Bool {
        packet.commandOpcode == HandshakeScript.leCreateConnection
            || packet.commandOpcode == HandshakeScript.leExtendedCreateConnection
    }
}

/// A transport that keeps every packet crossing it, both ways, from its start.
private final class RecordingTransport: HCITransport {
    private let inner: any HCITransport
    private let recorded = TrafficRecorder()

    init(_ inner: any HCITransport) { self.inner = inner }

    var description: String { inner.description }
    var traffic: [(HCI.Direction, HCI.H4Packet)] { recorded.recorded }

    func start(
        packet: @escaping @Sendable (HCI.H4Packet) -> Void, closed: @escaping @Sendable (HCITransportError?) -> Void
    ) {
        inner.start(
            packet: { [recorded] received in
                recorded.append(.controllerToHost, received)
                packet(received)
            }, closed: closed)
    }

    func send(_ packet: HCI.H4Packet) throws(HCITransportError) {
        // Kept before it goes: the answer may be in before send returns.
        recorded.append(.hostToController, packet)
        try inner.send(packet)
    }

    func close() { inner.close() }
}

/// What the host replay measured.
public struct HostReplayMeasurement: Sendable, Hashable, Codable {
    public var handshakes: Int
    /// CPU time of this process over the replayed handshakes, in seconds.
    public var cpuS: Double
    /// Wall time of the replayed handshakes, in seconds.
    public var loopS: Double
    /// Packets the host sent per handshake (the recording's, or the replay would have failed).
    public var hostPacketsPerHandshake: Double

    public init(handshakes: Int, cpuS: Double, loopS: Double, hostPacketsPerHandshake: Double) {
        self.handshakes = handshakes
        self.cpuS = cpuS
        self.loopS = loopS
        self.hostPacketsPerHandshake = hostPacketsPerHandshake
    }

    /// CPU milliseconds per handshake.
    public var cpuMsPerHandshake: Double { handshakes == 0 ? 0 : cpuS * 1000 / Double(handshakes) }
}

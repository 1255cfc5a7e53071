import BLECore

/// The rig's own radio in the virtual farm: a ``Central`` on a ``VirtualAir``. Connections are BLECore's
/// ``GATTClientConnection`` over a ``VirtualLink``, so the central stack runs the same GATT client code here as it
/// does over BlueZ.
///
/// Like everything in a simulation, a virtual central is used from tasks of that simulation.
public final class VirtualCentral: Central, @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread; entry points assert it.

    let air: VirtualAir
    private let traffic: (@Sendable (CentralTraffic) -> Void)?

    /// - Parameter traffic: told of every link this central opens and closes and of every ATT PDU on it, for
    ///   captures; called on the simulation thread.
    public init(air: VirtualAir, traffic: (@Sendable (CentralTraffic) -> Void)? = nil) {
        self.air = air
        self.traffic = traffic
    }

    public var clock: any RigClock { air.sim.clock }

    public func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> {
        air.startScan(filter)
    }

    public func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection {
        air.sim.assertIsolated()
        let attempt = ConnectAttempt()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<any GATTConnection, CentralError>, Never>) in
                guard !Task.isCancelled else { return continuation.resume(returning: .failure(.cancelled)) }
                attempt.id = air.beginConnect(to: address, timeout: timeout) { [self] outcome in
                    continuation.resume(returning: outcome.map { link in open(link, to: address) })
                }
            }
        } onCancel: { [air] in
            // Cancellation may arrive on any thread; the air is touched only on the simulation thread.
            air.sim.schedule(at: air.sim.now) { attempt.id.map(air.cancelConnect) }
        }
        return try result.get()
    }

    /// Wraps a fresh link in a GATT client connection. Runs in the timer that brings the link up, so the
    /// connection is attached before the first PDU can arrive.
    private func open(_ link: VirtualLink, to peer: DeviceAddress) -> any GATTConnection {
        let transport = VirtualLinkTransport(link: link)
        let connection = GATTClientConnection(peer: peer, bearer: transport, link: transport, clock: air.sim.clock)
        let sim = air.sim
        let handle = link.handle
        if let traffic {
            traffic(.linkUp(peer: peer, handle: handle, parameters: link.parameters, at: sim.now))
            link.observer = { side, direction, pdu, at in
                switch (side, direction) {
                case (.central, .sent): traffic(.att(peer: peer, handle: handle, pdu: pdu, outbound: true, at: at))
                case (.central, .received): traffic(.att(peer: peer, handle: handle, pdu: pdu, outbound: false, at: at))
                case (.peripheral, _): break
                }
            }
        }
        link.attach(
            .central,
            .init(
                receive: { pdu in connection.receive(pdu) },
                down: { [traffic] reason in
                    transport.downReason = reason
                    traffic?(.linkDown(peer: peer, handle: handle, reason: reason, at: sim.now))
                    connection.linkDown(reason)
                }))
        return connection
    }
}

/// What a ``VirtualCentral`` reports about its links, as a capture would see them from the central's host.
public enum CentralTraffic: Sendable, Hashable {
    case linkUp(peer: DeviceAddress, handle: UInt16, parameters: LinkParameters, at: RigInstant)
    /// An ATT PDU the central queued (`outbound`) or received.
    case att(peer: DeviceAddress, handle: UInt16, pdu: [UInt8], outbound: Bool, at: RigInstant)
    case linkDown(peer: DeviceAddress, handle: UInt16, reason: HCIErrorCode, at: RigInstant)
}

/// The connection attempt a cancellation must abandon.
private final class ConnectAttempt: @unchecked Sendable {
    // @unchecked Sendable: written and read on the simulation thread only.
    var id: Int?
}

/// The central's end of a virtual link, as the GATT client sees it: an ATT bearer and the link's controls.
final class VirtualLinkTransport: ATTBearer, LinkControl, @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread like the link.
    let link: VirtualLink
    /// Set when the central's host has been told the link is down.
    var downReason: HCIErrorCode?

    init(link: VirtualLink) { self.link = link }

    func send(_ pdu: [UInt8]) async throws(GATTError) {
        link.sim.assertIsolated()
        await link.waitForSpace(.central)
        if let downReason { throw .disconnected(downReason) }
        // A link whose signal is gone but whose supervision timeout has not passed yet still looks up to the
        // host: the PDU is accepted and lost, as a controller would.
        link.send(pdu, from: .central)
    }

    func sendImmediately(_ pdu: [UInt8]) {
        link.send(pdu, from: .central)
    }

    func disconnect() async {
        link.sim.assertIsolated()
        link.terminate(from: .central, reason: .remoteUserTerminated)
    }
}

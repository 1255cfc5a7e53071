import BLECore

/// The rig's own radio in the virtual farm: a ``Central`` on a ``VirtualAir``. Connections are BLECore's
/// ``GATTClientConnection`` over a ``VirtualLink``, so the central stack runs the same GATT client code here as it
/// does over BlueZ.
///
/// Like a controller, it holds at most ``maxLinks`` links: links up and connection attempts in progress both take a
/// slot, and one more ``connect(to:timeout:)`` throws ``CentralError/connectionLimit(_:)`` at once (a controller
/// answers LE Create Connection with 0x09 Connection Limit Exceeded). A link frees its slot when this central's host
/// is told it is down: after a disconnect from either side, or after the supervision timeout when the board lost
/// power or the signal was lost. Its links share one ``RadioSchedule``: the radio does one thing at a time.
///
/// Like everything in a simulation, a virtual central is used from tasks of that simulation.
public final class VirtualCentral: Central, @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread; entry points assert it.

    let air: VirtualAir
    private let traffic: (@Sendable (CentralTraffic) -> Void)?
    /// The airtime this central's links share.
    let radio = RadioSchedule()

    /// The most links this central holds at once, counting attempts in progress (2–5 for cheap USB dongles, up to 20
    /// for some Nordic stacks).
    public let maxLinks: Int
    /// Links up now. With ``pendingConnections`` it never exceeds ``maxLinks``.
    public private(set) var linkCount = 0
    /// Connection attempts in progress: asked for, neither up nor failed yet.
    public private(set) var pendingConnections = 0

    /// - Parameters:
    ///   - maxLinks: the most links the controller holds at once, at least 1; 8 is a realistic controller.
    ///   - traffic: told of every link this central opens and closes and of every ATT PDU on it, for captures;
    ///     called on the simulation thread.
    public init(air: VirtualAir, maxLinks: Int = 8, traffic: (@Sendable (CentralTraffic) -> Void)? = nil) {
        precondition(maxLinks >= 1, "a central holds at least one link, not \(maxLinks)")
        self.air = air
        self.maxLinks = maxLinks
        self.traffic = traffic
        // A link holds its ends, this central's among them: once the run is over the central lets go of its links.
        air.sim.whenOver { [weak self] in self?.letGo() }
    }

    /// Lets go of the links still up, and they of their ends, and ends the power observers (the run is over).
    private func letGo() {
        for observer in powerObservers.values { observer.finish() }
        powerObservers = [:]
        for link in openLinks.values { link.letGo() }
        openLinks = [:]
    }

    /// How this central's links shared its radio's airtime so far.
    public var statistics: RadioSchedule.Statistics { radio.statistics }

    public var clock: any RigClock { air.sim.clock }

    /// Whether the radio is switched on (``RadioPower``).
    private(set) var powered = true
    private var powerObservers: [Int: AsyncStream<Bool>.Continuation] = [:]
    private var nextObserver = 0
    /// Links up now, by handle, and connection attempts in progress, by the air's id: what switching the radio
    /// off ends.
    private var openLinks: [UInt16: VirtualLink] = [:]
    private var attempts: Set<Int> = []

    public func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> {
        air.sim.assertIsolated()
        guard powered else { return AsyncStream { $0.finish() } }
        return air.startScan(filter, owner: ObjectIdentifier(self))
    }

    public func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection {
        air.sim.assertIsolated()
        guard powered else { throw .radioUnavailable("the virtual radio is switched off") }
        guard linkCount + pendingConnections < maxLinks else { throw .connectionLimit(maxLinks) }
        pendingConnections += 1
        let attempt = ConnectAttempt()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<any GATTConnection, CentralError>, Never>) in
                guard !Task.isCancelled else {
                    pendingConnections -= 1
                    return continuation.resume(returning: .failure(.cancelled))
                }
                attempt.id = air.beginConnect(to: address, timeout: timeout, radio: radio) { [self] outcome in
                    pendingConnections -= 1
                    if let id = attempt.id { attempts.remove(id) }
                    continuation.resume(returning: outcome.map { link in open(link, to: address) })
                }
                if let id = attempt.id { attempts.insert(id) }
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
        linkCount += 1
        openLinks[handle] = link
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
                down: { [self, traffic] reason in
                    linkCount -= 1
                    openLinks[handle] = nil
                    transport.downReason = reason
                    traffic?(.linkDown(peer: peer, handle: handle, reason: reason, at: sim.now))
                    connection.linkDown(reason)
                }))
        return connection
    }
}

extension VirtualCentral: RadioPower {
    public var isPoweredOn: Bool { powered }

    public func powerStates() -> AsyncStream<Bool> {
        air.sim.assertIsolated()
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        nextObserver += 1
        let id = nextObserver
        powerObservers[id] = continuation
        continuation.yield(powered)
        let sim = air.sim
        continuation.onTermination = { [weak self] _ in
            sim.schedule(at: sim.now) { self?.powerObservers[id] = nil }
        }
        return stream
    }

    /// Switching off ends this radio's scans at once, abandons its connection attempts, and terminates its links
    /// as a controller powering down does: the peer is told 0x15 (remote device power off) in the next connection
    /// event, this host 0x16. Switching on lets it scan and connect again.
    public func setPowered(_ on: Bool) async throws(CentralError) {
        air.sim.assertIsolated()
        guard on != powered else { return }
        powered = on
        if !on {
            air.finishScans(of: ObjectIdentifier(self))
            for id in attempts.sorted() { air.cancelConnect(id) }
            for handle in openLinks.keys.sorted() {
                openLinks[handle]?.terminate(from: .central, reason: .remotePowerOff)
            }
        }
        for id in powerObservers.keys.sorted() { powerObservers[id]?.yield(on) }
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

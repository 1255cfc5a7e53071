import BLECore
import BenchCore
import Glibc
import Synchronization

/// The ``Central`` of the kernel's own Bluetooth stack (`radio: {kind: bluez, adapter: hci0}`), beside a running
/// bluetoothd: mgmt (``MgmtChannel``) powers the adapter, discovers LE devices and reports links and their ends;
/// each link is an LE L2CAP socket on the ATT fixed channel (``BlueZLink``) with BLECore's GATT client on top, the
/// same client blerig's HCI host and the virtual farm run.
///
/// The kernel chooses what blerig's own host chooses itself: the connection interval (its defaults are 30–50 ms;
/// ``connectionParameters`` loads blerig's through mgmt Load Connection Parameters), when to scan, and the LL
/// data length.
public final class BlueZCentral: Central {
    public let adapter: UInt16
    /// The adapter's address, which ATT sockets bind to.
    public let adapterAddress: UInt64
    public let clock: any RigClock
    /// Loaded for each board before connecting to it; nil leaves the kernel's defaults.
    public let connectionParameters: HCI.ConnectionParameters?
    public let security: BlueZSecurity
    let mgmt: MgmtChannel
    let sockets: any BlueZSockets
    /// For telling an adapter that went away from one switched off (``BlueZCentral/adapterExists``), and for
    /// whether a link is gone (``waitUntilLinkGone(_:within:)``).
    let hciSockets: any BluetoothSockets
    let state: Mutex<State>

    struct State {
        var scans: [Int: Scan] = [:]
        var nextKey = 0
        var discovery = Discovery.off
        /// A Start or Stop Discovery is in flight; `discoveryDirty` asks for another look when it ends.
        var discoveryBusy = false
        var discoveryDirty = false
        var powered: Bool
        var powerObservers: [Int: AsyncStream<Bool>.Continuation] = [:]
        var links: [DeviceAddress: BlueZLink] = [:]
        /// Device Disconnected reasons not yet taken by the link's socket ending, and the links waiting for one.
        var disconnectReasons: [DeviceAddress: HCIErrorCode] = [:]
        var reasonWaiters: [DeviceAddress: CheckedContinuation<HCIErrorCode?, Never>] = [:]
        var connectFailures: [DeviceAddress: Mgmt.Status] = [:]
        var merger = DeviceFoundMerger()
        var loadedParameters: [DeviceAddress: Mgmt.LoadConnectionParameters.Entry] = [:]
        var closed = false
        var counters = Counters()
        /// Why the adapter stopped being usable under the central, and who is told (``whenAdapterFails(_:)``).
        var failure: String?
        var failureHandlers: [@Sendable (String) -> Void] = []
    }

    enum Discovery { case off, ours, theirs }

    struct Scan {
        var filter: ScanFilter
        var seen: Set<DeviceAddress> = []
        var continuation: AsyncStream<Advertisement>.Continuation
    }

    struct Counters {
        var pdusIn = 0
        var pdusOut = 0
        var bytesIn = 0
        var bytesOut = 0
        var devicesFound = 0
        var discoveryRestarts = 0
    }

    /// How long a link whose socket ended waits for mgmt's Device Disconnected, which carries the reason.
    static let reasonGrace: Duration = .milliseconds(500)

    init(
        adapter: UInt16, info: Mgmt.ReadControllerInfo.Reply, mgmt: MgmtChannel, sockets: any BlueZSockets,
        hciSockets: any BluetoothSockets, clock: any RigClock, connectionParameters: HCI.ConnectionParameters?,
        security: BlueZSecurity
    ) {
        self.adapter = adapter
        adapterAddress = info.address
        self.mgmt = mgmt
        self.sockets = sockets
        self.hciSockets = hciSockets
        self.clock = clock
        self.connectionParameters = connectionParameters
        self.security = security
        state = Mutex(State(powered: info.current.contains(.powered)))
    }

    /// Opens the mgmt interface, checks that `adapter` is there and does LE, and powers it on when it is off.
    /// Every failure says what to do (``BlueZFailure``).
    public static func open(
        adapter: UInt16, sockets: any BlueZSockets = SystemBlueZSockets(),
        hciSockets: any BluetoothSockets = SystemBluetoothSockets(), clock: any RigClock = WallClock(),
        connectionParameters: HCI.ConnectionParameters? = HCI.ConnectionParameters(
            interval: .milliseconds(15), supervisionTimeout: .seconds(4)),
        security: BlueZSecurity = .low
    ) async throws(HCITransportError) -> BlueZCentral {
        let socket: Int32
        do { socket = try sockets.openControlSocket() } catch {
            throw BlueZFailure.call(.controlSocket, error, adapter: adapter)
        }
        do { try sockets.bindControl(socket) } catch {
            sockets.close(socket)
            throw BlueZFailure.call(.bindControl, error, adapter: adapter)
        }
        let channel: SeqpacketChannel
        do { channel = try SeqpacketChannel(descriptor: socket, name: "mgmt", close: sockets.close) } catch {
            throw HCITransportError(.io, "the mgmt socket's wake-up pair could not be made: \(error)")
        }
        let mgmt = MgmtChannel(channel: channel, clock: clock)
        do {
            let managed = try await mgmt.send(Mgmt.ReadIndexList(), index: Mgmt.noIndex).indexes
            guard managed.contains(adapter) else {
                let existing = try? BluetoothAdapters.list(sockets: hciSockets).map(\.index)
                throw BlueZFailure.missing(adapter, existing: existing, managed: managed)
            }
            var info = try await mgmt.send(Mgmt.ReadControllerInfo(), index: adapter)
            guard info.supported.contains(.le) else { throw BlueZFailure.noLE(adapter) }
            if !info.current.contains(.powered) {
                info.current = try await mgmt.send(Mgmt.SetPowered(true), index: adapter).settings
            }
            return BlueZCentral(
                adapter: adapter, info: info, mgmt: mgmt, sockets: sockets, hciSockets: hciSockets, clock: clock,
                connectionParameters: connectionParameters, security: security
            ).started()
        } catch let error as MgmtCommandError {
            mgmt.close()
            throw BlueZFailure.command(error, adapter: adapter)
        } catch let error as HCITransportError {
            mgmt.close()
            throw error
        } catch {
            mgmt.close()
            throw HCITransportError(.io, "hci\(adapter): \(error)")
        }
    }

    private func started() -> Self {
        mgmt.observe { [weak self] index, event in
            guard let self, index == self.adapter else { return }
            self.handle(event)
        }
        mgmt.whenFails { [weak self] why in
            guard let self else { return }
            adapterFailed("hci\(adapter)'s mgmt socket ended under the run: \(why)")
            powerChanged(false)
        }
        return self
    }

    /// Ends every scan, disconnects every link (through mgmt, so the peers see 0x13 at once) and closes the mgmt
    /// socket. The adapter stays powered: bluetoothd may be using it.
    public func close() async {
        let (scans, links) = state.withLock { state -> ([AsyncStream<Advertisement>.Continuation], [BlueZLink]) in
            defer { state.scans = [:] }
            return (state.scans.values.map(\.continuation), Array(state.links.values))
        }
        for scan in scans { scan.finish() }
        for link in links { await link.disconnect() }
        if state.withLock({ $0.discovery == .ours }) { _ = try? await mgmt.send(Mgmt.StopDiscovery(.le), index: adapter) }
        state.withLock { $0.closed = true }
        mgmt.close()
    }

    /// A mgmt event for this adapter.
    func handle(_ event: Mgmt.Event) {
        switch event {
        case let .deviceFound(found): deliver(found)
        case let .discovering(discovering) where discovering.types.contains(.lePublic):
            discoveringChanged(discovering.discovering)
        case let .deviceDisconnected(disconnected):
            guard let peer = disconnected.address.le else { return }
            let reason = disconnected.reason.hciReason
            let (waiter, link) = state.withLock { state -> (CheckedContinuation<HCIErrorCode?, Never>?, BlueZLink?) in
                if let waiter = state.reasonWaiters.removeValue(forKey: peer) { return (waiter, nil) }
                guard let link = state.links[peer] else { return (nil, nil) }
                state.disconnectReasons[peer] = reason
                return (nil, link)
            }
            waiter?.resume(returning: reason)
            // The socket normally ends right after; if it has not within the grace, blerig ends it.
            if let link {
                Task { [clock] in
                    try? await clock.sleep(for: Self.reasonGrace)
                    link.forceDown()
                }
            }
        case let .connectFailed(failed):
            guard let peer = failed.address.le else { return }
            state.withLock { $0.connectFailures[peer] = failed.status }
        case let .newSettings(settings):
            let on = settings.settings.contains(.powered)
            // The kernel sends New Settings to every mgmt socket but the one whose command changed them: this is
            // another program's doing, or the adapter going away (which the kernel reports as a power-off first).
            if !on, state.withLock({ $0.powered && !$0.closed }) { adapterSwitchedOff() }
            powerChanged(on)
        case .indexRemoved:
            adapterFailed(Self.removed(adapter))
            powerChanged(false)
        default:
            break
        }
    }

    /// Why the link to `peer` ended: mgmt's Device Disconnected reason when it comes within ``reasonGrace``, else
    /// what the socket's errno says (the kernel's `bt_to_errno` of the HCI reason).
    func disconnectReason(for peer: DeviceAddress, error: Errno?, closedByUs: Bool) async -> HCIErrorCode {
        let known = state.withLock { $0.disconnectReasons.removeValue(forKey: peer) }
        if let known { return known }
        // The socket that asked for a Disconnect may get no Device Disconnected (the kernel skips it while that
        // command is pending; Linux 6.1.192 in the kernel tier sent it one all the same): none yet, none to wait for.
        if closedByUs { return .localHostTerminated }
        let grace = Self.reasonGrace
        let reason: HCIErrorCode? = await withCheckedContinuation {
            (continuation: CheckedContinuation<HCIErrorCode?, Never>) in
            state.withLock { $0.reasonWaiters[peer] = continuation }
            Task { [weak self, clock] in
                try? await clock.sleep(for: grace)
                let waiter = self?.state.withLock { state in state.reasonWaiters.removeValue(forKey: peer) }
                waiter?.resume(returning: nil)
            }
        }
        if let reason { return reason }
        if closedByUs { return .localHostTerminated }
        switch error?.code {
        case ETIMEDOUT?: return .connectionTimeout
        case ECONNRESET?: return .remoteUserTerminated
        case ECONNABORTED?: return .localHostTerminated
        case EACCES?: return .authenticationFailure
        default: return .unspecifiedError
        }
    }

    /// Waits until the kernel no longer has an LE link to `peer` on this adapter, at most `limit`; not at all when
    /// it cannot be asked.
    func waitUntilLinkGone(_ peer: DeviceAddress, within limit: Duration) async {
        guard let socket = try? hciSockets.openHCISocket() else { return }
        defer { hciSockets.close(socket) }
        let deadline = clock.now.advanced(by: limit)
        while (try? hciSockets.linkExists(socket, adapter: adapter, peer: peer)) == true, clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(2))
        }
    }

    func remove(_ link: BlueZLink) {
        state.withLock { state in
            if state.links[link.peer] === link { state.links[link.peer] = nil }
        }
    }

    func count(in bytes: Int) {
        state.withLock {
            $0.counters.pdusIn += 1
            $0.counters.bytesIn += bytes
        }
    }

    func count(out bytes: Int) {
        state.withLock {
            $0.counters.pdusOut += 1
            $0.counters.bytesOut += bytes
        }
    }

    /// The links up now.
    public var linkedPeers: [DeviceAddress] { state.withLock { Array($0.links.keys).sorted() } }
}

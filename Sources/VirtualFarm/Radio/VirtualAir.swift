import BLECore

/// The radio medium of one simulation: the boards advertising on it, the scans listening, and the connections
/// being made. Advertising events are computed, not ticked: an event is simulated only when someone can hear it,
/// a scan whose filter names the advertiser (or names no address at all) or a connection attempt to it. Advertisers
/// and scans are indexed by address, so a campaign of a thousand boards, each scanning for its own, costs per board
/// what one board costs.
///
/// It is the ``BoardRadio`` of every board on the farm, and hands each a ``PeripheralLink`` when a central connects.
public final class VirtualAir: BoardRadio, @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread; entry points assert it.

    public let sim: Simulation
    public let parameters: LinkParameters
    public let faults: LinkFaults
    let model: LinkModel

    /// In the order they were added: every walk over them is the same in every run.
    private var peripherals: [PeripheralEntry] = []
    private var byAddress: [DeviceAddress: PeripheralEntry] = [:]
    /// The scans by identifier; identifiers grow, so sorting them gives the order the scans started.
    private var scanners: [Int: Scanner] = [:]
    /// Scans whose filter names no address: they hear every advertiser.
    private var wideScanners: Set<Int> = []
    /// Scans whose filter names addresses, by address.
    private var scannersOf: [DeviceAddress: Set<Int>] = [:]
    private var pendingConnects: [PendingConnect] = []
    private var nextIdentifier = 0
    private var nextHandle: UInt16 = 0x0040
    private var dropRandom: [DeviceAddress: SeededRandom] = [:]

    public init(sim: Simulation, parameters: LinkParameters, faults: LinkFaults = LinkFaults()) {
        self.sim = sim
        self.parameters = parameters
        self.faults = faults
        self.model = LinkModel(parameters)
        // Each board holds the air, and the air its boards: once the run is over the air lets go of them.
        sim.whenOver { [weak self] in self?.letGo() }
    }

    /// Forgets every peripheral, scan and connection attempt (the run is over); a scan still listening ends.
    private func letGo() {
        for scanner in scanners.values { scanner.continuation.finish() }
        scanners = [:]
        wideScanners = []
        scannersOf = [:]
        pendingConnects = []
        peripherals = []
        byAddress = [:]
        dropRandom = [:]
    }

    private final class PeripheralEntry {
        let peripheral: any AirPeripheral
        /// Its place among the peripherals, in the order they were added.
        let order: Int
        var timer: TimerQueue.ID?
        init(_ peripheral: any AirPeripheral, order: Int) {
            self.peripheral = peripheral
            self.order = order
        }
    }

    private struct Scanner {
        let id: Int
        /// The central whose scan this is, for ``finishScans(of:)``.
        let owner: ObjectIdentifier?
        let filter: ScanFilter
        let continuation: AsyncStream<Advertisement>.Continuation
        var seen: Set<DeviceAddress> = []
    }

    struct PendingConnect {
        let id: Int
        let address: DeviceAddress
        let requested: RigInstant
        let timeout: Duration
        /// The radio of the central that asked: the link's events will run on it.
        let radio: RadioSchedule
        var timer: TimerQueue.ID?
        let complete: (Result<VirtualLink, CentralError>) -> Void
    }

    // MARK: Peripherals

    public func add(_ peripheral: any AirPeripheral) {
        sim.assertIsolated()
        precondition(byAddress[peripheral.address] == nil, "two boards at \(peripheral.address)")
        let entry = PeripheralEntry(peripheral, order: peripherals.count)
        peripherals.append(entry)
        byAddress[peripheral.address] = entry
        rearm(entry)
    }

    /// A peripheral started or stopped advertising, or changed what it advertises.
    public func advertisingChanged(_ peripheral: any AirPeripheral) {
        sim.assertIsolated()
        guard let entry = byAddress[peripheral.address], entry.peripheral === peripheral else { return }
        rearm(entry)
    }

    public var defaultAdvertisingInterval: Duration { parameters.advertisingInterval }

    /// The peripheral at `address` changed its advertising. The air reads the set from the peripheral itself
    /// (``AirPeripheral/advertising``), at every event and prediction; `set` is what the peripheral reports now.
    public func setAdvertising(_ set: AdvertisingState?, of address: DeviceAddress) {
        sim.assertIsolated()
        guard let entry = byAddress[address] else { return }
        assert(entry.peripheral.advertising == set, "the peripheral at \(address) reports another advertising set")
        rearm(entry)
    }

    /// True when someone can hear `address`: a scan that names it or names no address, a connection attempt.
    private func isObserved(_ address: DeviceAddress) -> Bool {
        !wideScanners.isEmpty || scannersOf[address] != nil || pendingConnects.contains { $0.address == address }
    }

    /// Arms the timer of the peripheral's first advertising event at or after `earliest` (now by default).
    private func rearm(_ entry: PeripheralEntry, earliest: RigInstant? = nil) {
        if let timer = entry.timer { sim.cancel(timer) }
        entry.timer = nil
        let peripheral = entry.peripheral
        guard let state = peripheral.advertising, isObserved(peripheral.address) else { return }
        let at = nextAdvertisingEvent(of: peripheral.address, state, atOrAfter: max(sim.now, earliest ?? sim.now))
        entry.timer = sim.schedule(at: at) { [self] in
            entry.timer = nil
            advertisingEvent(entry, state: state, at: at)
        }
    }

    /// The start of the first advertising event at or after `instant`: event n starts at
    /// `since + n × interval + advDelay(n)`, advDelay drawn from [0, 10 ms) per event from the seed.
    func nextAdvertisingEvent(
        of address: DeviceAddress, _ state: AdvertisingState, atOrAfter instant: RigInstant
    ) -> RigInstant {
        let stream = "advertising/\(address)/\(state.since.sinceOrigin)"
        func eventStart(_ n: Int64) -> RigInstant {
            let delay = SeededRandom.unit(seed: sim.seed, stream: stream, index: UInt64(n))
            // Whole nanoseconds, the simulation clock's resolution, so predictions and timers agree exactly.
            let advDelay = Duration.nanoseconds(
                Int64((LinkModel.maximumAdvertisingDelay.seconds * 1e9 * delay).rounded(.down)))
            return state.since.advanced(by: state.interval * n + advDelay)
        }
        let elapsed = state.since.duration(to: instant) - LinkModel.maximumAdvertisingDelay
        var n = max(0, Int64((elapsed / state.interval).rounded(.down)))
        while eventStart(n) < instant { n += 1 }
        return eventStart(n)
    }

    /// What the link model predicts for `handshake.connect_ms` when a central with no other link up asks to connect
    /// to `address` at `requested`: the wait for the board's next advertising event (its advDelay drawn from the
    /// seed), the CONNECT_IND, the transmit window delay and the first exchange. (A central with links up adds the
    /// window offset that keeps the new link's anchors clear of theirs: ``RadioSchedule/firstAnchor(earliest:
    /// interval:)``.) Nil when the board is not advertising connectably now.
    public func predictedConnectLatency(to address: DeviceAddress, requestedAt requested: RigInstant) -> Duration? {
        guard let peripheral = byAddress[address]?.peripheral,
            let state = peripheral.advertising, state.connectable
        else { return nil }
        let event = nextAdvertisingEvent(of: address, state, atOrAfter: requested)
        return model.connectLatency(
            advertisingWait: requested.duration(to: event), advertisingDataLength: state.data.encodedLength)
    }

    private func advertisingEvent(_ entry: PeripheralEntry, state: AdvertisingState, at start: RigInstant) {
        let peripheral = entry.peripheral
        let advertisingAirtime = PHY.le1M.packetAirtime(payload: LinkModel.advertisingHeader + state.data.encodedLength)
        if state.connectable, let index = pendingConnects.firstIndex(where: { $0.address == peripheral.address }) {
            let pending = pendingConnects.remove(at: index)
            if let timer = pending.timer { sim.cancel(timer) }
            let connectIndicationEnd =
                start + advertisingAirtime + PHY.interFrameSpace
                + PHY.le1M.packetAirtime(payload: LinkModel.connectIndicationPayload)
            sim.schedule(at: connectIndicationEnd) { [self] in
                establish(pending, with: peripheral, at: connectIndicationEnd)
            }
            return
        }
        // Active scanning: SCAN_REQ and SCAN_RSP follow the advertising packet within the event.
        let received =
            start + advertisingAirtime + PHY.interFrameSpace + PHY.le1M.packetAirtime(payload: 12)
            + PHY.interFrameSpace
            + PHY.le1M.packetAirtime(payload: LinkModel.advertisingHeader + state.scanResponse.encodedLength)
        let report = Advertisement(
            address: peripheral.address, data: state.data.merged(with: state.scanResponse), rssi: state.rssi,
            connectable: state.connectable, received: received)
        sim.schedule(at: received) { [self] in deliver(report) }
        rearm(entry, earliest: start.advanced(by: .nanoseconds(1)))
    }

    /// Hands a report to the scans that can hear it, in the order they started.
    private func deliver(_ report: Advertisement) {
        let listening = wideScanners.union(scannersOf[report.address] ?? [])
        for id in listening.sorted() {
            guard var scanner = scanners[id], scanner.filter.accepts(report.data, from: report.address) else {
                continue
            }
            if scanner.filter.deduplicate {
                guard scanner.seen.insert(report.address).inserted else { continue }
                scanners[id] = scanner
            }
            scanner.continuation.yield(report)
        }
    }

    // MARK: Scanning

    func startScan(_ filter: ScanFilter, owner: ObjectIdentifier? = nil) -> AsyncStream<Advertisement> {
        sim.assertIsolated()
        let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
        nextIdentifier += 1
        let id = nextIdentifier
        let sim = self.sim
        continuation.onTermination = { [weak self] _ in
            sim.schedule(at: sim.now) { self?.stopScan(id) }
        }
        let heard = whoseHearingChanges(filter) {
            scanners[id] = Scanner(id: id, owner: owner, filter: filter, continuation: continuation)
            if filter.addresses.isEmpty {
                wideScanners.insert(id)
            } else {
                for address in filter.addresses { scannersOf[address, default: []].insert(id) }
            }
        }
        heard.forEach { rearm($0) }
        return stream
    }

    /// Ends every scan `owner` started (its radio was switched off): their streams finish.
    func finishScans(of owner: ObjectIdentifier) {
        sim.assertIsolated()
        for id in scanners.keys.sorted() where scanners[id]?.owner == owner { scanners[id]?.continuation.finish() }
    }

    private func stopScan(_ id: Int) {
        guard let scanner = scanners[id] else { return }
        let unheard = whoseHearingChanges(scanner.filter) {
            scanners[id] = nil
            if scanner.filter.addresses.isEmpty {
                wideScanners.remove(id)
            } else {
                for address in scanner.filter.addresses {
                    scannersOf[address]?.remove(id)
                    if scannersOf[address]?.isEmpty == true { scannersOf[address] = nil }
                }
            }
        }
        unheard.forEach { rearm($0) }
    }

    /// The advertisers heard before `change` (a scan for `filter` starting or ending) and not after, or the other way
    /// round, in the order they were added. A scan for a few addresses touches only those.
    private func whoseHearingChanges(_ filter: ScanFilter, _ change: () -> Void) -> [PeripheralEntry] {
        let wideBefore = !wideScanners.isEmpty
        let named = filter.addresses.isEmpty ? [] : Array(Set(filter.addresses))
        let namedBefore = named.map { scannersOf[$0] != nil }
        change()
        if wideBefore != !wideScanners.isEmpty {
            // A wide scan began or ended: every advertiser no named scan or attempt hears anyway.
            return peripherals.filter { entry in
                let address = entry.peripheral.address
                return scannersOf[address] == nil && !pendingConnects.contains { $0.address == address }
            }
        }
        if wideBefore { return [] }
        var changed: [PeripheralEntry] = []
        for (address, before) in zip(named, namedBefore) where before != (scannersOf[address] != nil) {
            guard let entry = byAddress[address], !pendingConnects.contains(where: { $0.address == address }) else {
                continue
            }
            changed.append(entry)
        }
        return changed.sorted { $0.order < $1.order }
    }

    // MARK: Connecting

    /// Starts connecting to `address` for a central whose radio is `radio`; `complete` runs on the simulation thread
    /// with the link once it is up, or with the reason it could not be made. Returns an identifier for
    /// `cancelConnect`. Connection setup does not consult `radio` (see ``RadioSchedule``).
    func beginConnect(
        to address: DeviceAddress, timeout: Duration, radio: RadioSchedule,
        complete: @escaping (Result<VirtualLink, CentralError>) -> Void
    ) -> Int {
        sim.assertIsolated()
        nextIdentifier += 1
        var pending = PendingConnect(
            id: nextIdentifier, address: address, requested: sim.now, timeout: timeout, radio: radio,
            complete: complete)
        let id = pending.id
        pending.timer = sim.schedule(after: timeout) { [self] in
            guard let index = pendingConnects.firstIndex(where: { $0.id == id }) else { return }
            let expired = pendingConnects.remove(at: index)
            expired.complete(.failure(.notFound(address, waited: timeout)))
            if let entry = byAddress[address] { rearm(entry) }
        }
        pendingConnects.append(pending)
        if let entry = byAddress[address] { rearm(entry) }
        return id
    }

    /// Abandons a connection attempt that has not reached its CONNECT_IND.
    func cancelConnect(_ id: Int) {
        guard let index = pendingConnects.firstIndex(where: { $0.id == id }) else { return }
        let pending = pendingConnects.remove(at: index)
        if let timer = pending.timer { sim.cancel(timer) }
        pending.complete(.failure(.cancelled))
    }

    private func establish(
        _ pending: PendingConnect, with peripheral: any AirPeripheral, at connectIndicationEnd: RigInstant
    ) {
        // The central places the new link's anchors clear of those of its other links (the window offset).
        let anchor0 = pending.radio.firstAnchor(
            earliest: connectIndicationEnd + LinkModel.transmitWindowDelay, interval: parameters.connectionInterval)
        nextHandle = nextHandle == 0x0EFF ? 0x0040 : nextHandle + 1
        let link = VirtualLink(
            sim: sim, parameters: parameters, handle: nextHandle, anchor0: anchor0, radio: pending.radio)
        let peripheralLink = PeripheralLink(link: link)
        peripheral.accept(peripheralLink)
        let linkUp = anchor0 + model.firstAnchorToLinkUp
        sim.schedule(at: linkUp) { [self] in
            guard link.state == .up, peripheralLink.isAttached else {
                // The peripheral never answered in the transmit window: the link layer gives up after six
                // connection intervals (Vol 6 Part B §4.5.2).
                link.abandon()
                let failedAt = anchor0.advanced(by: parameters.connectionInterval * 6)
                sim.schedule(at: failedAt) {
                    pending.complete(
                        .failure(.connectionFailed(pending.address, reason: .connectionFailedToBeEstablished)))
                }
                return
            }
            scheduleDrop(on: link, peer: pending.address)
            pending.complete(.success(link))
        }
    }

    /// Draws the time of the next unexpected link loss (a Poisson process per board) and arms it.
    private func scheduleDrop(on link: VirtualLink, peer: DeviceAddress) {
        guard faults.dropsPerHour > 0 else { return }
        var random = dropRandom[peer] ?? SeededRandom(seed: sim.seed, stream: "drops/\(peer)")
        let after = random.nextExponential(mean: 3600 / faults.dropsPerHour)
        dropRandom[peer] = random
        sim.schedule(after: .microseconds(after * 1e6)) { link.loseSignal() }
    }
}

/// Faults the air injects on its own, drawn from the seed.
public struct LinkFaults: Sendable, Hashable {
    /// Unexpected link losses per connection-hour (Poisson); each ends with a supervision timeout.
    public var dropsPerHour: Double

    public init(dropsPerHour: Double = 0) { self.dropsPerHour = dropsPerHour }
}

extension PeripheralLink {
    /// False once the peripheral vanished from this link.
    var isAttached: Bool { link.isAttached(.peripheral) }
}

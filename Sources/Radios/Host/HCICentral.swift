import BLECore
import Synchronization

/// The ``Central`` of an ``HCIStack``: scans through the controller, initiates links and runs BLECore's GATT
/// client over each link's ATT channel, the same client the virtual farm uses.
public final class HCICentral: Central {
    public let stack: HCIStack
    /// The parameters asked for in LE Create Connection.
    public let connectionParameters: HCI.ConnectionParameters
    public var clock: any RigClock { stack.clock }
    /// The stack's executor: the central's work costs no thread hop per response when it runs with
    /// `withTaskExecutorPreference(central.executor)` (see ``HCIStackExecutor``).
    public var executor: HCIStackExecutor { stack.executor }
    /// The radio's power switch (``RadioPower``): off, the central scans and connects to nothing.
    let power = HCIRadioPowerState()

    public init(
        stack: HCIStack,
        connectionParameters: HCI.ConnectionParameters = HCI.ConnectionParameters(
            interval: .milliseconds(15), supervisionTimeout: .seconds(4))
    ) {
        self.stack = stack
        self.connectionParameters = connectionParameters
    }

    public func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> {
        guard isPoweredOn else { return AsyncStream { $0.finish() } }
        return stack.scan(filter)
    }

    public func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection {
        guard isPoweredOn else { throw .radioUnavailable("the radio is switched off") }
        let link = try await stack.connect(to: address, parameters: connectionParameters, timeout: timeout)
        let bearer = HCILinkBearer(stack: stack, handle: link.handle)
        let connection = GATTClientConnection(peer: link.peer, bearer: bearer, link: bearer, clock: stack.clock)
        stack.attach(ClientHandler(connection: connection), to: link.handle)
        return connection
    }

    struct ClientHandler: HCILinkHandler {
        let connection: GATTClientConnection
        func receive(_ pdu: [UInt8]) { connection.receive(pdu) }
        func linkDown(_ reason: HCIErrorCode) { connection.linkDown(reason) }
    }
}

/// One link's ATT channel as a GATT client (or a board model) sees it.
public struct HCILinkBearer: ATTBearer, LinkControl {
    let stack: HCIStack
    public let handle: UInt16

    public func send(_ pdu: [UInt8]) async throws(GATTError) { try await stack.sendATT(pdu, on: handle) }
    public func sendImmediately(_ pdu: [UInt8]) { stack.sendImmediately(pdu, on: handle) }
    public func disconnect() async { stack.disconnect(handle) }
    /// The stack's timer thread keeps the link's timers: the GATT client's transaction timeout costs no task per
    /// request.
    public func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> Bool {
        stack.schedule(at: deadline, on: handle, action)
    }
}

extension HCIStack {
    /// Scanning is on while at least one stream is consumed. Reports are merged with the advertiser's latest
    /// scan response (where names usually are), as the virtual radio does.
    func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Advertisement.self, bufferingPolicy: .bufferingNewest(1024))
        let (id, first) =
            state.withLock { state -> (Int, Bool)? in
                guard !state.closed else { return nil }
                state.nextKey += 1
                state.scans[state.nextKey] = Scan(filter: filter, continuation: continuation)
                return (state.nextKey, state.scans.count == 1)
            } ?? (0, false)
        guard id != 0 else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let last = state.withLock { state -> Bool in
                guard state.scans.removeValue(forKey: id) != nil else { return false }
                return state.scans.isEmpty
            }
            if last { run { host, now in host.stopScanning(at: now) } }
        }
        if first { run { host, now in host.startScanning(at: now) } }
        return stream
    }

    /// An advertisement is reported merged with the advertiser's scan response, as scanning hosts report devices:
    /// a scannable advertisement waits for the response this active scan asked for, and goes out alone only when
    /// the advertiser's next advertisement comes first (the response was lost).
    func deliverAdvertisement(_ report: HCI.AdvertisingReport) {
        let now = clock.now
        let deliveries = state.withLock { state -> [(AsyncStream<Advertisement>.Continuation, Advertisement)] in
            // Where private addresses rotate, advertisers come and go: forget them all now and then.
            if state.reportCache.count >= 4096, state.reportCache[report.address] == nil {
                state.reportCache = [:]
                state.awaitingResponse = []
            }
            var cached = state.reportCache[report.address] ?? ([], [])
            let awaited = state.awaitingResponse.contains(report.address)
            if report.scanResponse {
                cached.scanResponse = report.data
                state.awaitingResponse.remove(report.address)
            } else {
                cached.data = report.data
                if report.scannable, state.host.configuration.scan.active, !awaited {
                    state.awaitingResponse.insert(report.address)
                    state.reportCache[report.address] = cached
                    return []
                }
            }
            state.reportCache[report.address] = cached
            guard !state.scans.isEmpty else { return [] }
            // Malformed AD structures from a board lose only themselves: the report still counts.
            let data = (try? AdvertisingData(decoding: cached.data)) ?? AdvertisingData(structures: [])
            let response = (try? AdvertisingData(decoding: cached.scanResponse)) ?? AdvertisingData(structures: [])
            let merged = data.merged(with: response)
            let advertisement = Advertisement(
                address: report.address, data: merged, rssi: report.rssi,
                connectable: report.scanResponse ? true : report.connectable, received: now)
            var out: [(AsyncStream<Advertisement>.Continuation, Advertisement)] = []
            for key in state.scans.keys.sorted() {
                guard var scan = state.scans[key], scan.filter.accepts(merged, from: report.address) else { continue }
                if scan.filter.deduplicate {
                    guard scan.seen.insert(report.address).inserted else { continue }
                    state.scans[key] = scan
                }
                out.append((scan.continuation, advertisement))
            }
            return out
        }
        for (continuation, advertisement) in deliveries { continuation.yield(advertisement) }
    }

    /// Initiates a link and waits for it, at most `timeout`; then cancels the attempt. The timeout is one of the
    /// stack's timers, so an attempt costs no task of its own.
    func connect(
        to peer: DeviceAddress, parameters: HCI.ConnectionParameters, timeout: Duration
    ) async throws(CentralError) -> HCIHost.Link {
        let deadline = clock.now.advanced(by: timeout)
        let result: Result<HCIHost.Link, HCIErrorCode> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let refused = state.withLock { state -> HCIErrorCode? in
                    if state.closed { return .unspecifiedError }
                    if state.attempts[peer] != nil { return .commandDisallowed }
                    // Cancelled before it began: 0x02, as a cancelled attempt ends.
                    if Task.isCancelled { return .unknownConnectionIdentifier }
                    state.attempts[peer] = continuation
                    return nil
                }
                if let refused { return continuation.resume(returning: .failure(refused)) }
                // At the deadline the attempt is cancelled; the controller's answer then ends it (0x02).
                timers.add(at: deadline, for: .attempt(peer)) { [weak self] in
                    self?.run { host, now in host.cancelConnect(to: peer, at: now) }
                }
                run { host, now in host.connect(to: peer, parameters: parameters, at: now) }
            }
        } onCancel: {
            self.run { host, now in host.cancelConnect(to: peer, at: now) }
        }
        switch result {
        case let .success(link):
            return link
        case let .failure(reason):
            if Task.isCancelled { throw .cancelled }
            if reason == .unknownConnectionIdentifier { throw .notFound(peer, waited: timeout) }
            if reason == .connectionLimitExceeded || reason == .memoryCapacityExceeded {
                throw .connectionLimit(state.withLock { $0.host.links.count })
            }
            if let failure = self.failure { throw .radioUnavailable(failure) }
            throw .connectionFailed(peer, reason: reason)
        }
    }
}

import BLECore

extension BlueZCentral {
    /// Discovery (mgmt Start Discovery, LE) runs while at least one stream is consumed. The kernel ends an LE
    /// discovery after about 10 s; it is started again while streams remain. When another program (bluetoothd)
    /// is discovering already, the kernel refuses a second discovery (Busy) but sends its Device Found events to
    /// every mgmt socket, so the scan reports those. Each report holds the advertising data and the scan response,
    /// merged (``DeviceFoundMerger``).
    public func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Advertisement.self, bufferingPolicy: .bufferingNewest(1024))
        let key = state.withLock { state -> Int? in
            guard !state.closed, state.powered else { return nil }
            state.nextKey += 1
            state.scans[state.nextKey] = Scan(filter: filter, continuation: continuation)
            return state.nextKey
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            state.withLock { _ = $0.scans.removeValue(forKey: key) }
            updateDiscovery()
        }
        updateDiscovery()
        return stream
    }

    /// Starts or stops discovery to match the scans, one mgmt command at a time.
    func updateDiscovery() {
        let start = state.withLock { state -> Bool? in
            if state.discoveryBusy {
                state.discoveryDirty = true
                return nil
            }
            let want = !state.scans.isEmpty && state.powered && !state.closed
            switch (want, state.discovery) {
            case (true, .off): break
            case (false, .ours): break
            case (false, .theirs):
                state.discovery = .off
                return nil
            default: return nil
            }
            state.discoveryBusy = true
            return want
        }
        guard let start else { return }
        Task { [self] in
            var finish: [AsyncStream<Advertisement>.Continuation] = []
            if start {
                do throws(MgmtCommandError) {
                    _ = try await mgmt.send(Mgmt.StartDiscovery(.le), index: adapter)
                    state.withLock { $0.discovery = .ours }
                } catch where error.status == .busy {
                    state.withLock { $0.discovery = .theirs }
                } catch {
                    // An adapter going away ends discovery and can refuse it again before mgmt says it went: say so
                    // first, so that the scans' end is the radio's failure, not silence.
                    if adapterExists() == false { adapterFailed(Self.removed(adapter)) }
                    // Powered off, refused: nothing will be found; the scans end rather than wait in silence.
                    finish = state.withLock { state in
                        defer { state.scans = [:] }
                        return state.scans.values.map(\.continuation)
                    }
                }
            } else {
                _ = try? await mgmt.send(Mgmt.StopDiscovery(.le), index: adapter)
                state.withLock { $0.discovery = .off }
            }
            for scan in finish { scan.finish() }
            let again = state.withLock { state in
                state.discoveryBusy = false
                defer { state.discoveryDirty = false }
                return state.discoveryDirty
            }
            if again || start { updateDiscovery() }
        }
    }

    /// Discovering (0) after the kernel's time limit, or another program's discovery ending: start ours again if
    /// scans remain.
    func discoveringChanged(_ on: Bool) {
        let restart = state.withLock { state -> Bool in
            guard !on, !state.discoveryBusy else { return false }
            if state.discovery != .off, !state.scans.isEmpty { state.counters.discoveryRestarts += 1 }
            state.discovery = .off
            return true
        }
        if restart { updateDiscovery() }
    }

    /// One Device Found: merged with the advertiser's other reports (``DeviceFoundMerger``), then given to every
    /// scan whose filter takes it.
    func deliver(_ found: Mgmt.DeviceFound) {
        guard let address = found.address.le else { return }
        let step = state.withLock { state -> DeviceFoundMerger.Step in
            state.counters.devicesFound += 1
            return state.merger.add(found, from: address)
        }
        switch step {
        case let .deliver(report):
            deliver(report, from: address)
        case let .hold(generation):
            Task { [weak self, clock] in
                try? await clock.sleep(for: DeviceFoundMerger.responseWait)
                guard let self else { return }
                let report = state.withLock { $0.merger.expire(address, generation: generation) }
                if let report { deliver(report, from: address) }
            }
        }
    }

    private func deliver(_ report: DeviceFoundMerger.Report, from address: DeviceAddress) {
        let advertisement = Advertisement(
            address: address, data: report.data, rssi: report.rssi, connectable: report.connectable,
            received: clock.now)
        let deliveries = state.withLock { state -> [AsyncStream<Advertisement>.Continuation] in
            var out: [AsyncStream<Advertisement>.Continuation] = []
            for key in state.scans.keys.sorted() {
                guard var scan = state.scans[key], scan.filter.accepts(report.data, from: address) else { continue }
                if scan.filter.deduplicate {
                    guard scan.seen.insert(address).inserted else { continue }
                    state.scans[key] = scan
                }
                out.append(scan.continuation)
            }
            return out
        }
        for continuation in deliveries { continuation.yield(advertisement) }
    }
}

extension BlueZCentral: RadioPower {
    public var isPoweredOn: Bool { state.withLock { $0.powered } }

    public func powerStates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let id = state.withLock { state -> Int in
            state.nextKey += 1
            state.powerObservers[state.nextKey] = continuation
            continuation.yield(state.powered)
            return state.nextKey
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.powerObservers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Set Powered through mgmt: off, the kernel closes every link of the adapter (the peers see 0x15, remote
    /// device terminated due to power off) and every scan ends. This switches the adapter for bluetoothd too.
    ///
    /// The links' sockets are closed first, while the links are up (``BlueZLink/closeWhileUp()``).
    public func setPowered(_ on: Bool) async throws(CentralError) {
        if !on {
            for link in state.withLock({ Array($0.links.values) }) { link.closeWhileUp() }
        }
        do {
            let settings = try await mgmt.send(Mgmt.SetPowered(on), index: adapter).settings
            powerChanged(settings.contains(.powered))
        } catch {
            throw .radioUnavailable(BlueZFailure.command(error, adapter: adapter).description)
        }
        guard !on else { return }
        // The links are blerig's until their sockets' ends are reported; wait (briefly) until they have been.
        let deadline = clock.now.advanced(by: .seconds(2))
        while clock.now < deadline, state.withLock({ !$0.links.isEmpty }) {
            try? await clock.sleep(for: .milliseconds(5))
        }
    }

    func powerChanged(_ on: Bool) {
        let (observers, scans) = state.withLock {
            state -> ([AsyncStream<Bool>.Continuation], [AsyncStream<Advertisement>.Continuation]) in
            guard state.powered != on else { return ([], []) }
            state.powered = on
            var scans: [AsyncStream<Advertisement>.Continuation] = []
            if !on {
                scans = state.scans.values.map(\.continuation)
                state.scans = [:]
                state.discovery = .off
            }
            return (state.powerObservers.keys.sorted().compactMap { state.powerObservers[$0] }, scans)
        }
        for scan in scans { scan.finish() }
        for observer in observers { observer.yield(on) }
    }
}

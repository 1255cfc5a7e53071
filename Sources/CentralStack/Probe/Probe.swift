import BLECore

/// `blerig probe` without the printing: find a device on the air, connect, exchange MTUs, walk its whole GATT
/// table (``GATTWalker``) and disconnect. Works on any ``Central``, so it probes a virtual board and real hardware
/// alike.
public enum Probe {
    /// The ATT_MTU asked for: 247 fills one 251-byte LL payload (4 bytes of L2CAP header), so a long value moves in
    /// few packets on links with the Data Length Extension.
    public static let preferredMTU: UInt16 = 247

    /// What a probe found.
    public struct Report: Hashable, Sendable {
        /// The advertisement the device was found by.
        public var advertisement: Advertisement
        /// The ATT_MTU the walk ran with (23 when the exchange was refused).
        public var mtu: UInt16
        public var table: GATTTable
        /// Why the link ended after the walk: 0x16 (connection terminated by local host) when the probe closed it.
        public var disconnect: HCIErrorCode

        public init(advertisement: Advertisement, mtu: UInt16, table: GATTTable, disconnect: HCIErrorCode) {
            self.advertisement = advertisement
            self.mtu = mtu
            self.table = table
            self.disconnect = disconnect
        }

        public var address: DeviceAddress { advertisement.address }
        public var name: String? { advertisement.data.localName }
    }

    /// Finds `target` by scanning for at most `timeout` on the central's clock, connects (waiting at most `timeout`
    /// again), exchanges MTUs preferring `preferredMTU`, walks the table and disconnects. A walk that stopped early
    /// (the link lost, `stop` returning) still returns its report: ``GATTTable/stopped`` says why. Throws when
    /// there is no table at all: the device was not found, could not be connected, or `stop` came first.
    /// `stop` is awaited once per phase (finding, connecting, walking) and cancelled when the phase ends first, so
    /// it must return on cancellation; the orchestrator's `RunControl.interrupted()` does, and returns at once after
    /// a stop.
    public static func run(
        central: any Central, target: ProbeTarget, timeout: Duration, preferredMTU: UInt16 = Probe.preferredMTU,
        until stop: (@Sendable () async -> Void)? = nil
    ) async throws(ProbeError) -> Report {
        let (found, findStopped) = await runStoppable(until: stop) {
            await find(target, on: central, timeout: timeout)
        }
        if findStopped { throw .interrupted(during: "looking for \(target)") }
        let advertisement = try found.get()
        let (connected, connectStopped) = await runStoppable(until: stop) {
            () async -> Result<any GATTConnection, CentralError> in
            do throws(CentralError) {
                return .success(try await central.connect(to: advertisement.address, timeout: timeout))
            } catch {
                return .failure(error)
            }
        }
        if connectStopped {
            if case let .success(connection) = connected { await connection.disconnect() }
            throw .interrupted(during: "connecting to \(advertisement.address)")
        }
        let connection: any GATTConnection
        switch connected {
        case let .success(open): connection = open
        case let .failure(error): throw .connectionFailed(advertisement.address, error)
        }
        let (walked, _) = await runStoppable(until: stop) { await exchangeAndWalk(connection, preferredMTU) }
        await connection.disconnect()
        let reason = await connection.disconnection()
        return Report(advertisement: advertisement, mtu: walked.mtu, table: walked.table, disconnect: reason)
    }

    private static func exchangeAndWalk(
        _ connection: any GATTConnection, _ preferredMTU: UInt16
    ) async -> (mtu: UInt16, table: GATTTable) {
        do {
            _ = try await connection.exchangeMTU(preferred: preferredMTU)
        } catch {
            if Task.isCancelled {
                return (await connection.mtu, GATTTable(stopped: .init(during: "exchanging MTU", error: nil)))
            }
            // A server that refuses the exchange keeps the default ATT_MTU; the walk goes on with it.
            guard case .att = error else {
                return (await connection.mtu, GATTTable(stopped: .init(during: "exchanging MTU", error: error)))
            }
        }
        let mtu = await connection.mtu
        return (mtu, await GATTWalker.walk(connection))
    }

    /// Scans until a connectable advertisement of `target` arrives, or `timeout` passes.
    static func find(
        _ target: ProbeTarget, on central: any Central, timeout: Duration
    ) async -> Result<Advertisement, ProbeError> {
        enum Sighting: Sendable {
            case found(Advertisement)
            /// The scan ended without a connectable advertisement; the last non-connectable one, if any.
            case ended(Advertisement?)
            case timeUp
        }
        let clock = central.clock
        let filter: ScanFilter =
            switch target {
            case .address: ScanFilter(deduplicate: false)
            case let .name(name): ScanFilter(namePrefixes: [name], deduplicate: false)
            }
        return await withTaskGroup(of: Sighting.self) { group in
            group.addTask {
                var seen: Advertisement?
                for await advertisement in central.scan(filter) where target.matches(advertisement) {
                    if advertisement.connectable { return .found(advertisement) }
                    seen = advertisement
                }
                return .ended(seen)
            }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return .timeUp
            }
            var result: Result<Advertisement, ProbeError>?
            while let sighting = await group.next() {
                switch sighting {
                case let .found(advertisement):
                    result = .success(advertisement)
                    group.cancelAll()
                case .timeUp:
                    group.cancelAll()
                case let .ended(seen):
                    result = result ?? .failure(.notFound(target, waited: timeout, notConnectable: seen?.address))
                    group.cancelAll()
                }
            }
            return result ?? .failure(.notFound(target, waited: timeout, notConnectable: nil))
        }
    }
}

/// Why a probe has no table to show.
public enum ProbeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No connectable advertisement from the device within the wait; `notConnectable` is set when the device was
    /// seen advertising, but only non-connectably.
    case notFound(ProbeTarget, waited: Duration, notConnectable: DeviceAddress?)
    /// The device was found but the link could not be made.
    case connectionFailed(DeviceAddress, CentralError)
    /// The probe was stopped (SIGINT) before it had a link.
    case interrupted(during: String)

    public var description: String {
        switch self {
        case let .notFound(target, waited, notConnectable?):
            "\(target) advertises as \(notConnectable) but not connectably "
                + "(waited \(waited.seconds.formatted(decimals: 3)) s)"
        case let .notFound(target, waited, nil):
            "no advertisement from \(target) within \(waited.seconds.formatted(decimals: 3)) s; is it powered, in "
                + "range and advertising? (blerig scan lists what is on the air)"
        case let .connectionFailed(address, error):
            if case .connectionFailed = error { "\(error)" } else { "connecting to \(address) failed: \(error)" }
        case let .interrupted(during): "interrupted while \(during)"
        }
    }
}

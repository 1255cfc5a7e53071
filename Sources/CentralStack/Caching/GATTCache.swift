import BLECore
import DeviceProfiles
import Synchronization

/// What the handshake learned about one board's table, kept so that a reconnect can skip discovery: the layout
/// the profile needs (services, characteristics, CCCD handles) and the Generic Attribute characteristics robust
/// caching uses. Valid exactly as long as the board's Database Hash is ``databaseHash``.
public struct CachedTable: Sendable, Hashable {
    /// The Database Hash read when the table was discovered, as it travels (least significant octet first).
    public var databaseHash: [UInt8]
    public var services: [GATT.Service]
    /// Every discovered characteristic of the profile's services, by UUID.
    public var characteristics: [BluetoothUUID: GATT.Characteristic]
    /// The CCCD handle of each characteristic the profile subscribes to, by the characteristic's UUID.
    public var clientConfigurations: [BluetoothUUID: UInt16]
    /// Service Changed and its CCCD.
    public var serviceChanged: GATT.Characteristic
    public var serviceChangedConfiguration: UInt16
    /// The value handle of Client Supported Features.
    public var clientSupportedFeatures: UInt16

    public init(
        databaseHash: [UInt8], services: [GATT.Service], characteristics: [BluetoothUUID: GATT.Characteristic],
        clientConfigurations: [BluetoothUUID: UInt16], serviceChanged: GATT.Characteristic,
        serviceChangedConfiguration: UInt16, clientSupportedFeatures: UInt16
    ) {
        self.databaseHash = databaseHash
        self.services = services
        self.characteristics = characteristics
        self.clientConfigurations = clientConfigurations
        self.serviceChanged = serviceChanged
        self.serviceChangedConfiguration = serviceChangedConfiguration
        self.clientSupportedFeatures = clientSupportedFeatures
    }
}

/// Where the central keeps each board's discovered table, keyed by the board's identity (its address and profile)
/// and its Database Hash (Core 5.4 Vol 3 Part G §2.5.2): a board whose hash changed finds no entry and is
/// discovered again. A board with nothing cached (never seen, or without a Database Hash: nano, hrm) is
/// discovered without asking for its hash first, so caching costs those boards nothing.
public protocol GATTCache: Sendable {
    /// The table cached for `board` under `hash`, if any.
    func table(for board: CachedBoard, hash: [UInt8]) -> CachedTable?
    /// True when `board` has a table cached under some hash: worth reading its hash before discovering.
    func hasTable(for board: CachedBoard) -> Bool
    func store(_ table: CachedTable, for board: CachedBoard)
    /// Forgets every table of `board`: its table changed (Service Changed, 0x12 Database Out Of Sync).
    func invalidate(_ board: CachedBoard)
}

/// A board as the cache knows it.
public struct CachedBoard: Sendable, Hashable, CustomStringConvertible {
    public var address: DeviceAddress
    public var profile: Profile

    public init(address: DeviceAddress, profile: Profile) {
        self.address = address
        self.profile = profile
    }

    public var description: String { "\(profile) \(address)" }
}

/// A cache held in memory for the life of the process (a rig run, an app session), with counters for reports.
public final class InMemoryGATTCache: GATTCache {
    /// What the cache was asked and did, for reports and tests.
    public struct Counters: Sendable, Hashable {
        /// Lookups that found the board's table under the hash it read.
        public var hits = 0
        /// Lookups that found nothing under the hash (a new board, or a changed table).
        public var misses = 0
        public var stores = 0
        public var invalidations = 0

        public init() {}
    }

    private struct State {
        var tables: [CachedBoard: [[UInt8]: CachedTable]] = [:]
        var counters = Counters()
    }

    private let state = Mutex(State())

    public init() {}

    public var counters: Counters { state.withLock { $0.counters } }

    public func table(for board: CachedBoard, hash: [UInt8]) -> CachedTable? {
        state.withLock { state in
            let table = state.tables[board]?[hash]
            if table == nil { state.counters.misses += 1 } else { state.counters.hits += 1 }
            return table
        }
    }

    public func hasTable(for board: CachedBoard) -> Bool {
        state.withLock { !($0.tables[board]?.isEmpty ?? true) }
    }

    public func store(_ table: CachedTable, for board: CachedBoard) {
        state.withLock { state in
            state.tables[board, default: [:]][table.databaseHash] = table
            state.counters.stores += 1
        }
    }

    public func invalidate(_ board: CachedBoard) {
        state.withLock { state in
            if state.tables.removeValue(forKey: board) != nil { state.counters.invalidations += 1 }
        }
    }
}

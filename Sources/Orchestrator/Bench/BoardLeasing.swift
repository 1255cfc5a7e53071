/// Leases boards across runs, so that two runs (two CI jobs, two hosts) never use one board at once. A run leases
/// each board before it touches it and releases it when it is done; a lease whose holder dies expires. The
/// history database holds the leases (SQLite for one host, PostgreSQL for several).
public protocol BoardLeasing: Sendable {
    /// Leases the board with `key` for this run. While another owner holds it, calls `waiting` with who holds it
    /// and until when, and waits; gives up after the lease timeout with a ``BoardLeaseError``.
    func acquire(
        _ key: BoardLeaseKey, waiting: @escaping @Sendable (String) -> Void
    ) async throws(BoardLeaseError) -> any BoardLease

    /// Leases at once, never waiting, the boards of `keys` in their order up to the first another owner holds:
    /// how many it got (a prefix of `keys`), under one lease that is kept alive and released for all of them.
    func acquireAvailable(_ keys: [BoardLeaseKey]) async throws(BoardLeaseError) -> (count: Int, lease: any BoardLease)?
}

extension BoardLeasing {
    /// None at once: every board is leased with ``acquire(_:waiting:)``, one at a time.
    public func acquireAvailable(
        _ keys: [BoardLeaseKey]
    ) async throws(BoardLeaseError) -> (
        count: Int, lease: any BoardLease
    )? { nil }
}

/// A held lease. The holder keeps it alive (a heartbeat) until it is released.
public protocol BoardLease: Sendable {
    /// Releases the lease if this run still owns it; a lease taken over after it expired is left alone.
    func release() async
}

/// What a lease is on: the physical board, named the same by every rig that uses it.
public struct BoardLeaseKey: Sendable, Hashable, CustomStringConvertible {
    /// The board's stable name: its serial port, else its address, else its advertised name, else
    /// `<rig>/<board id>` for a board the rig describes by nothing physical (a virtual or served board).
    public var resource: String
    /// The board's id in this run's rig, for messages.
    public var board: String

    public init(resource: String, board: String) {
        self.resource = resource
        self.board = board
    }

    /// The key of `board` in `rig`.
    public init(_ board: BoardConfig, rig: RigConfig) {
        let resource: String
        if let serial = board.serial {
            resource = "serial:\(serial.port)"
        } else if let address = board.match?.address {
            resource = "address:\(address)"
        } else if let name = board.match?.name {
            resource = "name:\(name)"
        } else {
            resource = "rig:\(rig.name)/\(board.id)"
        }
        self.init(resource: resource, board: board.id)
    }

    public var description: String { resource }
}

/// Why a board could not be leased.
public struct BoardLeaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line: which board, who holds it, how long the run waited, and what to do.
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

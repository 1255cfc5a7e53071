/// A sans-I/O GATT server (Core 5.4 Vol 3 Parts F and G, server role): ATT PDUs in, ATT PDUs out.
///
/// One `GATTServer` serves every client of a device. The attribute table and stored values are shared; each
/// connection has its own ATT_MTU, security state, CCCD values, prepare queue and indication queue, created on
/// ``connect(_:security:)`` (or on its first PDU) and dropped on ``disconnect(_:)``.
///
/// Feed each inbound PDU to ``receive(_:from:application:)`` and carry out the returned ``Action``s in order; push
/// values with ``notify(_:value:to:)`` and ``indicate(_:value:to:)``. Everything is synchronous and
/// deterministic: the same calls give the same actions. Requests are answered within the call that receives them,
/// so the server never has a request outstanding; a client that pipelines a second request before reading the
/// first response simply gets both responses in order. The server keeps no clock: the owner enforces the 30 s
/// transaction timeout on indications (``pendingIndicationCount(for:)`` shows what is waiting).
public struct GATTServer: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// The Server Rx MTU this server announces; the effective ATT_MTU is min(client's, this), never below 23.
        public let maximumMTU: UInt16
        /// How many Prepare Write Requests one connection may queue before 0x09 Prepare Queue Full.
        public let prepareQueueCapacity: Int

        public init(maximumMTU: UInt16 = ATT.maximumMTU, prepareQueueCapacity: Int = 64) {
            self.maximumMTU = max(ATT.defaultMTU, maximumMTU)
            self.prepareQueueCapacity = max(1, prepareQueueCapacity)
        }
    }

    /// What the owner must do.
    public enum Action: Hashable, Sendable, CustomStringConvertible {
        /// Transmit this ATT PDU on the connection's ATT bearer.
        case send([UInt8], to: ConnectionID)

        public var description: String {
            switch self {
            case .send(let pdu, let connection): "send \(pdu.hexString) to \(connection)"
            }
        }
    }

    /// The state the server keeps per client (Vol 3 Part G §3.3.3.3: CCCDs are per client).
    struct Connection: Sendable {
        var security: SecurityState
        var mtu: UInt16 = ATT.defaultMTU
        var hasExchangedMTU = false
        /// CCCD values by characteristic value handle; absent means 0x0000.
        var configurations: [UInt16: GATT.ClientConfiguration] = [:]
        var prepareQueue: [ATT.PrepareWriteRequest] = []
        /// The value handle of the indication awaiting its confirmation.
        var outstandingIndication: UInt16?
        var queuedIndications: [ATT.HandleValueIndication] = []
        /// What the client wrote to Client Supported Features (§7.2); bits once set stay set for the connection.
        var features: GATT.GenericAttribute.ClientFeatures = []
        /// Robust caching (§2.5.2.1): false from a table change until the client has caught up. A client without
        /// a trusted relationship (this server bonds with no one) starts every connection change-aware.
        var isChangeAware = true
        /// Set when a change-unaware client read the Database Hash or was answered 0x12 Database Out Of Sync:
        /// its next request makes it change-aware.
        var awareAtNextRequest = false
    }

    public internal(set) var database: Database
    public let configuration: Configuration
    var connections: [ConnectionID: Connection] = [:]

    public init(database: Database, configuration: Configuration = .init()) {
        self.database = database
        self.configuration = configuration
    }

    public init(services: [Service], configuration: Configuration = .init()) throws(DatabaseError) {
        self.init(database: try Database(services: services), configuration: configuration)
    }

    /// Starts serving a client with fresh state (ATT_MTU 23, no subscriptions). Reconnecting an existing ID resets
    /// it.
    public mutating func connect(_ connection: ConnectionID, security: SecurityState = .open) {
        connections[connection] = Connection(security: security)
    }

    /// Forgets a client: its subscriptions, prepared writes and queued indications are dropped.
    public mutating func disconnect(_ connection: ConnectionID) {
        connections[connection] = nil
    }

    /// Records the link's new security (after pairing or encryption); later requests are checked against it.
    public mutating func setSecurity(_ security: SecurityState, for connection: ConnectionID) {
        connections[connection, default: Connection(security: security)].security = security
    }

    /// The connected clients, in ascending order.
    public var connectionIDs: [ConnectionID] { connections.keys.sorted() }

    public func security(of connection: ConnectionID) -> SecurityState { connections[connection]?.security ?? .open }

    /// The connection's effective ATT_MTU: 23 until an Exchange MTU Request.
    public func mtu(of connection: ConnectionID) -> UInt16 { connections[connection]?.mtu ?? ATT.defaultMTU }

    /// A client's CCCD value for the characteristic with this value handle.
    public func clientConfiguration(_ valueHandle: UInt16, for connection: ConnectionID) -> GATT.ClientConfiguration {
        connections[connection]?.configurations[valueHandle] ?? []
    }

    /// The clients subscribed to notifications or indications of a characteristic, in ascending order.
    public func subscribers(_ valueHandle: UInt16, for kind: GATT.ClientConfiguration) -> [ConnectionID] {
        connections.filter { !($0.value.configurations[valueHandle] ?? []).isDisjoint(with: kind) }.keys.sorted()
    }

    /// Indications waiting for a confirmation on this connection: the outstanding one plus the queued ones.
    public func pendingIndicationCount(for connection: ConnectionID) -> Int {
        guard let state = connections[connection] else { return 0 }
        return (state.outstandingIndication == nil ? 0 : 1) + state.queuedIndications.count
    }

    /// The stored value at `handle`; nil for dynamic values, CCCDs and unknown handles.
    public func value(of handle: UInt16) -> [UInt8]? { database.value(of: handle) }

    /// Replaces a stored characteristic value or descriptor without telling any client (follow with
    /// ``notify(_:value:to:)`` to push it). Precondition: `handle` holds a stored, non-declaration value and
    /// `value` keeps its length rule.
    public mutating func setValue(_ value: [UInt8], for handle: UInt16) {
        database.setStoredValue(value, at: handle)
    }

    /// The state of a connection, created with an open link when a PDU arrives before ``connect(_:security:)``.
    mutating func state(_ connection: ConnectionID) -> Connection {
        if let state = connections[connection] { return state }
        connections[connection] = Connection(security: .open)
        return connections[connection]!
    }
}

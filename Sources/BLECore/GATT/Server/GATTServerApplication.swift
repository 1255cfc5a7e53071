/// The live behaviour behind a ``GATTServer``: a board model implements it to produce dynamic values, accept or
/// refuse writes, and hear about subscriptions. The server calls it synchronously from inside
/// ``GATTServer/receive(_:from:application:)``, so the response to a request is part of that call's actions.
///
/// The application cannot push values from inside these calls (the server is busy); it records what to send and
/// calls ``GATTServer/notify(_:value:to:)`` or ``GATTServer/indicate(_:value:to:)`` after `receive` returns, which
/// also orders a Write Response before the indication it causes. Every method has a default, so an application
/// implements only what it needs.
public protocol GATTServerApplication {
    /// The current value of a ``GATTServer/Value/dynamic`` characteristic value or descriptor, or the ATT error
    /// to answer with. Called for every read that reaches the attribute (after permission checks), including each
    /// Read Blob, which the server slices at its offset. Default: 0x0E Unlikely Error.
    mutating func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode>

    /// A write to a characteristic value or descriptor (never to a CCCD) that passed the permission and length
    /// checks. Return nil to accept it — a stored value is then replaced — or the ATT error to answer with
    /// (ignored for commands, which get no response). Default: accept.
    mutating func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode?

    /// A client changed its Client Characteristic Configuration for the characteristic in `access`
    /// (`access.descriptor` is 0x2902; `access.characteristicValueHandle` is what to notify). Default: nothing.
    mutating func clientConfigurationChanged(_ configuration: GATT.ClientConfiguration, _ access: GATTServer.Access)

    /// A client confirmed an indication of the characteristic whose value handle is in `access`. Default: nothing.
    mutating func indicationConfirmed(_ access: GATTServer.Access)
}

extension GATTServerApplication {
    public mutating func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
        .failure(.unlikelyError)
    }
    public mutating func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access)
        -> ATT.ErrorCode?
    { nil }
    public mutating func clientConfigurationChanged(
        _ configuration: GATT.ClientConfiguration, _ access: GATTServer.Access
    ) {}
    public mutating func indicationConfirmed(_ access: GATTServer.Access) {}
}

extension GATTServer {
    /// An application with no live behaviour: stored values only, every write accepted.
    public struct StaticApplication: GATTServerApplication {
        public init() {}
    }

    /// Which attribute a client is touching, on which connection, with what security.
    public struct Access: Hashable, Sendable, CustomStringConvertible {
        public var connection: ConnectionID
        /// The attribute's handle: the characteristic value's, or the descriptor's.
        public var handle: UInt16
        public var service: BluetoothUUID
        public var characteristic: BluetoothUUID
        /// The value handle of the characteristic the attribute belongs to.
        public var characteristicValueHandle: UInt16
        /// The descriptor type, or nil when the attribute is the characteristic value.
        public var descriptor: BluetoothUUID?
        public var security: SecurityState

        public init(
            connection: ConnectionID, handle: UInt16, service: BluetoothUUID, characteristic: BluetoothUUID,
            characteristicValueHandle: UInt16, descriptor: BluetoothUUID? = nil, security: SecurityState = .open
        ) {
            self.connection = connection
            self.handle = handle
            self.service = service
            self.characteristic = characteristic
            self.characteristicValueHandle = characteristicValueHandle
            self.descriptor = descriptor
            self.security = security
        }

        public var description: String {
            let target = descriptor.map { "descriptor \($0) of " } ?? ""
            return "\(connection): \(target)\(characteristic) in \(service) at \(ATT.hex(handle))"
        }
    }

    /// How a value arrived.
    public enum WriteKind: Hashable, Sendable {
        /// A Write Request; an error is returned to the client.
        case request
        /// A Write Command; nothing is returned, an error only drops the value.
        case command
        /// The assembled value of queued Prepare Write Requests, at Execute Write; an error is returned to the
        /// client and stops the execution there (values accepted before it stay written).
        case executeWrite
    }

    /// One client connection to this server, named by its owner (a link-layer connection handle, for example).
    public struct ConnectionID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
        CustomStringConvertible
    {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public init(integerLiteral value: UInt16) { rawValue = value }
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
        public var description: String { "connection \(rawValue)" }
    }
}

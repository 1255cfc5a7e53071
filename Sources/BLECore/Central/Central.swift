/// The small interface every radio offers the central stack and the suites: the virtual farm, BlueZ and a
/// userspace HCI host all implement it, so code written against it runs unchanged on any of them.
public protocol Central: Sendable {
    /// The clock this radio lives in. Measurements and timeouts on this radio use it.
    var clock: any RigClock { get }

    /// Starts scanning; advertisements that pass `filter` arrive on the stream until it is dropped or the
    /// consuming task is cancelled, which stops the scan.
    func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement>

    /// Connects to a peripheral and returns once the link is up (the first connection event completed).
    /// The ATT_MTU is the default 23 until ``GATTConnection/exchangeMTU(preferred:)`` is called.
    func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection
}

/// A GATT client bearer on one link. Every call throws ``GATTError``; none of them traps, whatever the peer sends.
public protocol GATTConnection: AnyObject, Sendable {
    var peer: DeviceAddress { get }

    /// The current ATT_MTU.
    var mtu: UInt16 { get async }

    /// Exchanges MTUs (at most once per link) and returns the effective ATT_MTU, min(client, server).
    func exchangeMTU(preferred: UInt16) async throws(GATTError) -> UInt16

    /// Discovers all primary services, or those with the given UUID (by type value).
    func discoverPrimaryServices(_ uuid: BluetoothUUID?) async throws(GATTError) -> [GATT.Service]

    /// Discovers all characteristics of a service.
    func discoverCharacteristics(of service: GATT.Service) async throws(GATTError) -> [GATT.Characteristic]

    /// Discovers the descriptors of a characteristic.
    func discoverDescriptors(of characteristic: GATT.Characteristic) async throws(GATTError) -> [GATT.Descriptor]

    /// Reads a value; a value longer than ATT_MTU − 1 is read to its end with Read Blob requests.
    func read(_ handle: UInt16) async throws(GATTError) -> [UInt8]

    /// Read Multiple (Vol 3 Part G §4.8.4): the values of two or more handles concatenated, cut at ATT_MTU − 1.
    func readMultiple(_ handles: [UInt16]) async throws(GATTError) -> [UInt8]

    /// Read Using Characteristic UUID (Vol 3 Part G §4.8.2): the values of the characteristics of `type` in
    /// `range` that one Read By Type Response holds, with their handles; none when the server has none.
    func readByType(_ type: BluetoothUUID, in range: ClosedRange<UInt16>) async throws(GATTError) -> [GATT.HandleValue]

    /// Writes a value with a Write Request, or with Prepare/Execute Write when it exceeds ATT_MTU − 3.
    func write(_ value: [UInt8], to handle: UInt16) async throws(GATTError)

    /// Writes with a Write Command; returns once the radio accepted it (suspends while the link is full).
    func writeWithoutResponse(_ value: [UInt8], to handle: UInt16) async throws(GATTError)

    /// Writes the characteristic's Client Characteristic Configuration descriptor and returns the stream of
    /// values the server pushes on it. The stream finishes when the link goes down.
    func subscribe(
        to characteristic: GATT.Characteristic, cccd: UInt16, indications: Bool
    ) async throws(GATTError) -> AsyncStream<GATT.ValueEvent>

    /// Like ``subscribe(to:cccd:indications:)``, but writes the CCCD with a Write Command: it returns once the
    /// bearer took the command, without a round trip, so several subscriptions share one connection event. The
    /// server's answer is unknown: a caller confirms with a request afterwards (ATT keeps the order), such as a
    /// Read Multiple of the CCCDs.
    func subscribeWithoutResponse(
        to characteristic: GATT.Characteristic, cccd: UInt16, indications: Bool
    ) async throws(GATTError) -> AsyncStream<GATT.ValueEvent>

    /// Closes the link from this side (reason 0x16 locally, 0x13 at the peer) and waits until it is down.
    func disconnect() async

    /// Waits until the link is down and returns why. Returns at once when it already is.
    func disconnection() async -> HCIErrorCode
}

/// Which advertisements a scan reports. Empty lists mean "any".
public struct ScanFilter: Sendable, Hashable {
    /// Report only these devices.
    public var addresses: [DeviceAddress]
    /// Report a device only when it advertises at least one of these services.
    public var services: [BluetoothUUID]
    /// Report a device only when its local name (complete or shortened) starts with one of these.
    public var namePrefixes: [String]
    /// Report each address once per scan rather than at every advertising event.
    public var deduplicate: Bool

    public init(
        addresses: [DeviceAddress] = [], services: [BluetoothUUID] = [], namePrefixes: [String] = [],
        deduplicate: Bool = true
    ) {
        self.addresses = addresses
        self.services = services
        self.namePrefixes = namePrefixes
        self.deduplicate = deduplicate
    }

    /// True when an advertisement from `address` carrying `data` passes every part of the filter.
    public func accepts(_ data: AdvertisingData, from address: DeviceAddress) -> Bool {
        if !addresses.isEmpty, !addresses.contains(address) { return false }
        if !services.isEmpty, !data.serviceUUIDs.contains(where: services.contains) { return false }
        if !namePrefixes.isEmpty {
            guard let name = data.localName, namePrefixes.contains(where: { name.hasPrefix($0) }) else { return false }
        }
        return true
    }
}

/// One received advertising report.
public struct Advertisement: Sendable, Hashable {
    public var address: DeviceAddress
    public var data: AdvertisingData
    public var rssi: Int8
    public var connectable: Bool
    public var received: RigInstant

    public init(address: DeviceAddress, data: AdvertisingData, rssi: Int8, connectable: Bool, received: RigInstant) {
        self.address = address
        self.data = data
        self.rssi = rssi
        self.connectable = connectable
        self.received = received
    }
}

/// Why a connection could not be made.
public enum CentralError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing advertised at that address before the timeout.
    case notFound(DeviceAddress, waited: Duration)
    /// The link layer gave up, with the HCI reason (0x3E when the peer never answered the connect request).
    case connectionFailed(DeviceAddress, reason: HCIErrorCode)
    /// The controller cannot hold another link.
    case connectionLimit(Int)
    /// The radio is off, missing or not permitted.
    case radioUnavailable(String)
    /// The task waiting for the connection was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case let .notFound(address, waited):
            "no connectable advertisement from \(address) within \(waited.seconds.formatted3) s"
        case let .connectionFailed(address, reason): "connecting to \(address) failed: \(reason)"
        case let .connectionLimit(limit): "the controller already holds its maximum of \(limit) link(s)"
        case let .radioUnavailable(why): "radio unavailable: \(why)"
        case .cancelled: "the connection attempt was cancelled"
        }
    }
}

/// Why a GATT operation failed.
public enum GATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered with an ATT Error Response.
    case att(ATT.ErrorCode, request: ATT.Opcode, handle: UInt16)
    /// The link went down before the operation finished.
    case disconnected(HCIErrorCode)
    /// No response within the ATT transaction timeout (30 s); the bearer is unusable afterwards.
    case timeout(request: ATT.Opcode)
    /// The server's response was malformed or did not answer the request.
    case invalidResponse(String)
    /// The operation needs something the characteristic or peer does not offer (no CCCD, no write property).
    case unsupported(String)

    public var description: String {
        switch self {
        case let .att(code, request, handle): "\(request) on handle 0x\(String(handle, radix: 16)) failed: \(code)"
        case let .disconnected(reason): "link lost: \(reason)"
        case let .timeout(request): "\(request) got no response within 30 s"
        case let .invalidResponse(why): "invalid response: \(why)"
        case let .unsupported(why): "unsupported: \(why)"
        }
    }
}

/// Where a GATT client sends its PDUs: one ATT bearer (the fixed ATT channel of one LE link). Inbound PDUs are
/// handed to the client by whoever owns the transport.
public protocol ATTBearer: Sendable {
    /// Queues one ATT PDU for transmission. Suspends while the link's transmit buffer is full; throws
    /// ``GATTError/disconnected(_:)`` once the link is down.
    func send(_ pdu: [UInt8]) async throws(GATTError)
}

import BLECore

/// How something on the air (a board model) looks to the virtual radio.
public protocol AirPeripheral: AnyObject, Sendable {
    var address: DeviceAddress { get }

    /// What the peripheral is advertising now; nil while it is not advertising (connected, off, or silent).
    var advertising: AdvertisingState? { get }

    /// A central's CONNECT_IND reached the peripheral: it stops advertising and owns `bearer` (a ``PeripheralLink``)
    /// from now on.
    func accept(_ bearer: any PeripheralBearer)
}

/// An advertising set: what is sent, how often, since when.
public struct AdvertisingState: Sendable, Hashable {
    /// The AD structures of ADV_IND.
    public var data: AdvertisingData
    /// The AD structures of SCAN_RSP, sent to active scanners.
    public var scanResponse: AdvertisingData
    public var interval: Duration
    /// When this advertising set started; event n happens at `since + n × interval + advDelay(n)`.
    public var since: RigInstant
    public var connectable: Bool
    /// The signal strength a scanner would report, in dBm.
    public var rssi: Int8

    public init(
        data: AdvertisingData, scanResponse: AdvertisingData, interval: Duration, since: RigInstant,
        connectable: Bool = true, rssi: Int8 = -55
    ) {
        self.data = data
        self.scanResponse = scanResponse
        self.interval = interval
        self.since = since
        self.connectable = connectable
        self.rssi = rssi
    }
}

/// The peripheral's end of a virtual link: the ``PeripheralBearer`` of a board on the virtual farm.
public final class PeripheralLink: PeripheralBearer, @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread like the link it wraps.
    let link: VirtualLink

    init(link: VirtualLink) { self.link = link }

    public var handle: UInt16 { link.handle }
    public var parameters: LinkParameters { link.parameters }
    public var connectionInterval: Duration? { link.parameters.connectionInterval }
    public var isUp: Bool { link.state == .up }

    /// Attaches the peripheral's handlers: complete ATT PDUs from the central, and the end of the link.
    public func attach(receive: @escaping ([UInt8]) -> Void, down: @escaping (HCIErrorCode) -> Void) {
        link.attach(.peripheral, .init(receive: receive, down: down))
    }

    /// Queues an ATT PDU for the central.
    public func send(_ pdu: [UInt8]) { link.send(pdu, from: .peripheral) }

    /// True while the controller has a free transmit buffer.
    public var canSend: Bool { link.hasSpace(.peripheral) }

    /// Closes the link (the central sees `reason`, 0x13 by default; 0x15 when powering off).
    public func terminate(reason: HCIErrorCode = .remoteUserTerminated) {
        link.terminate(from: .peripheral, reason: reason)
    }

    /// The peripheral vanished without a word (power loss, reset): the central notices after the supervision
    /// timeout; this side hears nothing more.
    public func vanish() {
        link.detach(.peripheral)
        link.loseSignal()
    }
}

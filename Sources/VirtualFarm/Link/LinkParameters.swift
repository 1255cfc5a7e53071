import BLECore

/// The settings of the modelled radio link (docs/architecture.md, "The virtual link model").
public struct LinkParameters: Sendable, Hashable {
    /// Time between connection events (7.5 ms … 4 s, in steps of 1.25 ms).
    public var connectionInterval: Duration
    /// The most link-layer packet exchanges one connection event carries.
    public var packetsPerEvent: Int
    /// The PHY of the connection; advertising always uses LE 1M.
    public var phy: PHY
    /// The largest LL payload in octets (27 without Data Length Extension, up to 251 with it).
    public var dataLength: Int
    /// How long a link may go without a packet before both sides declare it lost (reason 0x08).
    public var supervisionTimeout: Duration
    /// The advertising interval of a board unless its own settings say otherwise.
    public var advertisingInterval: Duration
    /// Connection events the peripheral may skip when it has nothing to send.
    public var peripheralLatency: Int

    public init(
        connectionInterval: Duration = .milliseconds(15), packetsPerEvent: Int = 6, phy: PHY = .le2M,
        dataLength: Int = 251, supervisionTimeout: Duration = .seconds(4),
        advertisingInterval: Duration = .milliseconds(100), peripheralLatency: Int = 0
    ) {
        self.connectionInterval = connectionInterval
        self.packetsPerEvent = packetsPerEvent
        self.phy = phy
        self.dataLength = dataLength
        self.supervisionTimeout = supervisionTimeout
        self.advertisingInterval = advertisingInterval
        self.peripheralLatency = peripheralLatency
    }

    /// Problems with these settings, each a sentence; empty when they are usable.
    public var problems: [String] {
        var problems: [String] = []
        let intervalUs = connectionInterval.milliseconds * 1000
        if intervalUs < 7_500 || intervalUs > 4_000_000 || (intervalUs / 1_250).rounded() * 1_250 != intervalUs {
            problems.append("connection interval \(connectionInterval.milliseconds) ms must be 7.5…4000 ms in steps of 1.25 ms")
        }
        if !(1...32).contains(packetsPerEvent) { problems.append("packets per event \(packetsPerEvent) must be 1…32") }
        if !(27...251).contains(dataLength) { problems.append("data length \(dataLength) must be 27…251 octets") }
        if supervisionTimeout < .milliseconds(100) || supervisionTimeout > .seconds(32) {
            problems.append("supervision timeout must be 100 ms…32 s")
        }
        if supervisionTimeout <= connectionInterval * (2 * (1 + peripheralLatency)) {
            problems.append("supervision timeout must exceed (1 + latency) × interval × 2")
        }
        if advertisingInterval < .milliseconds(20) || advertisingInterval > .milliseconds(10_240) {
            problems.append("advertising interval must be 20…10240 ms")
        }
        if !(0...499).contains(peripheralLatency) { problems.append("peripheral latency must be 0…499") }
        return problems
    }
}

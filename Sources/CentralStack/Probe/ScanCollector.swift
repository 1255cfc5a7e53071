import BLECore

/// Folds advertising reports into one entry per advertiser, as `blerig scan` lists them: the address with its
/// type, the last and strongest RSSI, the latest name, every service UUID and manufacturer data seen, whether it
/// ever advertised connectably, and how many reports it sent. Pure: feed it ``Advertisement``s in arrival order.
public struct ScanCollector: Hashable, Sendable {
    /// One advertiser.
    public struct Device: Hashable, Sendable {
        public var address: DeviceAddress
        /// The complete or shortened local name of the latest report that carried one.
        public var name: String?
        public var lastRSSI: Int8
        public var maxRSSI: Int8
        /// Every service UUID advertised, in the order first seen.
        public var serviceUUIDs: [BluetoothUUID]
        /// The latest manufacturer data per company, in the order the companies were first seen.
        public var manufacturerData: [ManufacturerData]
        /// True when any report was connectable.
        public var connectable: Bool
        public var reports: Int
        public var firstSeen: RigInstant
        public var lastSeen: RigInstant

        init(_ advertisement: Advertisement) {
            address = advertisement.address
            lastRSSI = advertisement.rssi
            maxRSSI = advertisement.rssi
            serviceUUIDs = []
            manufacturerData = []
            connectable = false
            reports = 0
            firstSeen = advertisement.received
            lastSeen = advertisement.received
        }

        mutating func add(_ advertisement: Advertisement) {
            reports += 1
            lastRSSI = advertisement.rssi
            maxRSSI = max(maxRSSI, advertisement.rssi)
            lastSeen = advertisement.received
            connectable = connectable || advertisement.connectable
            if let name = advertisement.data.localName { self.name = name }
            for uuid in advertisement.data.serviceUUIDs where !serviceUUIDs.contains(uuid) { serviceUUIDs.append(uuid) }
            for case let .manufacturerData(company, data) in advertisement.data.structures {
                if let index = manufacturerData.firstIndex(where: { $0.company == company }) {
                    manufacturerData[index].data = data
                } else {
                    manufacturerData.append(ManufacturerData(company: company, data: data))
                }
            }
        }
    }

    /// Manufacturer Specific Data: the company identifier and the bytes after it.
    public struct ManufacturerData: Hashable, Sendable {
        public var company: CompanyIdentifier
        public var data: [UInt8]

        public init(company: CompanyIdentifier, data: [UInt8]) {
            self.company = company
            self.data = data
        }
    }

    private var entries: [Device] = []
    private var index: [DeviceAddress: Int] = [:]

    public init() {}

    /// Counts one report. A public and a random address with the same bits are two advertisers.
    public mutating func add(_ advertisement: Advertisement) {
        if let position = index[advertisement.address] {
            entries[position].add(advertisement)
        } else {
            index[advertisement.address] = entries.count
            var device = Device(advertisement)
            device.add(advertisement)
            entries.append(device)
        }
    }

    /// The advertisers, strongest (highest RSSI seen) first, then by address.
    public var devices: [Device] {
        entries.sorted { ($1.maxRSSI, $0.address) < ($0.maxRSSI, $1.address) }
    }

    /// Reports counted, over all advertisers.
    public var reportCount: Int { entries.reduce(0) { $0 + $1.reports } }
}

/// `blerig scan` without the printing: listen for advertisements for a while on any ``Central``.
public enum AdvertiserScan {
    /// What a scan saw.
    public struct Result: Hashable, Sendable {
        public var devices: [ScanCollector.Device]
        /// How long the scan listened, on the central's clock (less than asked when it was stopped).
        public var duration: Duration
        /// True when `stop` ended it before its duration.
        public var interrupted: Bool

        public init(devices: [ScanCollector.Device], duration: Duration, interrupted: Bool) {
            self.devices = devices
            self.duration = duration
            self.interrupted = interrupted
        }
    }

    /// Scans for `duration` on the central's clock (virtual time on the virtual farm) with every report delivered,
    /// or until `stop` returns, and folds what arrived. What was seen before a stop is kept.
    public static func run(
        central: any Central, duration: Duration, filter: ScanFilter = ScanFilter(deduplicate: false),
        until stop: (@Sendable () async -> Void)? = nil
    ) async -> Result {
        let clock = central.clock
        let start = clock.now
        let (collector, stopped) = await runStoppable(until: stop) {
            await withTaskGroup(of: ScanCollector?.self) { group in
                group.addTask {
                    var collector = ScanCollector()
                    for await advertisement in central.scan(filter) { collector.add(advertisement) }
                    return collector
                }
                group.addTask {
                    try? await clock.sleep(for: duration)
                    return nil
                }
                var collected = ScanCollector()
                while let next = await group.next() {
                    // The timer returns first (or on cancellation); the scan then ends with what it saw.
                    group.cancelAll()
                    if let next { collected = next }
                }
                return collected
            }
        }
        return Result(devices: collector.devices, duration: start.duration(to: clock.now), interrupted: stopped)
    }
}

import BLECore

/// The kernel's Device Found events for one adapter, merged per advertiser into what scanning hosts report: the
/// advertising data together with the advertiser's scan response, as blerig's own HCI host does.
///
/// On a controller that scans with extended advertising reports (every Bluetooth 5 controller the kernel drives
/// that way), Linux sends the advertisement and its scan response as two Device Found events, the second flagged
/// "scan response", each with only its own data: the esp-point's name is in the second, its manufacturer data in
/// the first. (On older controllers the kernel merges them itself into one event.) So an advertisement is held
/// until its scan response comes, for at most ``responseWait``; an advertiser that never answered one is reported
/// at once from then on.
struct DeviceFoundMerger {
    /// How long an advertisement waits for its scan response; the controller asks for it right after hearing
    /// the advertisement, so it comes within milliseconds or not at all.
    static let responseWait: Duration = .milliseconds(200)
    /// Advertisers remembered; where private addresses rotate they come and go, so all are forgotten now and then.
    static let capacity = 4096

    struct Report: Equatable {
        var data: AdvertisingData
        var rssi: Int8
        var connectable: Bool
    }

    enum Step: Equatable {
        /// Report this now.
        case deliver(Report)
        /// Held: call ``expire(_:generation:)`` with this generation after ``responseWait``.
        case hold(generation: UInt64)
    }

    private struct Advertiser {
        var data: [UInt8] = []
        var response: [UInt8] = []
        var rssi: Int8 = 0
        var connectable = true
        /// Whether it answers scan requests: nil until seen either way.
        var responds: Bool?
        /// The generation of the advertisement held for its response, if one is.
        var held: UInt64?
    }

    private var advertisers: [DeviceAddress: Advertiser] = [:]
    private var generation: UInt64 = 0

    /// One Device Found for `address`.
    mutating func add(_ found: Mgmt.DeviceFound, from address: DeviceAddress) -> Step {
        if advertisers.count >= Self.capacity, advertisers[address] == nil { advertisers = [:] }
        var advertiser = advertisers[address] ?? Advertiser()
        defer { advertisers[address] = advertiser }
        advertiser.rssi = found.rssi
        if found.flags.contains(.scanResponse) {
            advertiser.response = found.eir
            advertiser.responds = true
            advertiser.held = nil
            return .deliver(Self.report(advertiser))
        }
        let heldBefore = advertiser.held != nil
        advertiser.data = found.eir
        advertiser.connectable = found.connectable
        advertiser.held = nil
        // A second advertisement while the first waited: the response was lost; this one goes out as it is.
        if heldBefore || advertiser.responds == false { return .deliver(Self.report(advertiser)) }
        generation += 1
        advertiser.held = generation
        return .hold(generation: generation)
    }

    /// The wait for the response to the advertisement held as `generation` is over: it is reported alone (with
    /// the last response, if the advertiser ever sent one), unless something newer was reported since.
    mutating func expire(_ address: DeviceAddress, generation: UInt64) -> Report? {
        guard var advertiser = advertisers[address], advertiser.held == generation else { return nil }
        advertiser.held = nil
        if advertiser.responds == nil { advertiser.responds = false }
        advertisers[address] = advertiser
        return Self.report(advertiser)
    }

    private static func report(_ advertiser: Advertiser) -> Report {
        // Malformed AD structures from a board lose only themselves: the report still counts.
        let data = (try? AdvertisingData(decoding: advertiser.data)) ?? AdvertisingData(structures: [])
        let response = (try? AdvertisingData(decoding: advertiser.response)) ?? AdvertisingData(structures: [])
        return Report(data: data.merged(with: response), rssi: advertiser.rssi, connectable: advertiser.connectable)
    }
}

import BLECore
import CentralStack
import DeviceProfiles
import Reports

/// `discovery`: the board advertises what its profile says, and its GATT table holds every service and
/// characteristic the profile requires.
///
/// Both checks go through the app's central (``AppCentral``), as an app first meets a board. The advertising check is
/// the app's own scan on the central its ``AppCentral`` owns (``AppCentral/firstAdvertisement(within:)``), timed from
/// the scan's start and made before the app's machine runs: a machine with no board scans for one and connects to
/// the first it finds, and a board being connected to stops advertising, so a scan beside a running machine would
/// race the app's own connection for the advertisement it times. The table check is work given to that app central:
/// its machine scans, connects and pairs (an esp-point: with the rig's key, or authenticates with the key the rig
/// holds), and the check reads the table on the session it made ready.
struct DiscoverySuite: Suite {
    static let name = "discovery"
    var timeout: Duration = .seconds(10)

    init(options: inout RigMappingReader) {
        if let seconds = options.number("timeout_s", in: 0.1...600, unit: "s") {
            timeout = .milliseconds(seconds * 1000)
        }
    }

    var defaultCheckTimeout: Duration { timeout + .seconds(120) }

    /// How long the advertising is watched after a first report that does not match the profile.
    static let responseWindow: Duration = .seconds(3)

    func checkNames(for profile: Profile) -> [String] { ["advertises as \(profile)", "GATT table complete"] }

    func run(on board: BoardUnderTest) async {
        let timeout = timeout
        let app = board.appCentral(purpose: "discovery")
        await board.check(Self.name, "advertises as \(board.profile)") {
            let start = board.clock.now
            guard let report = try await app.firstAdvertisement(within: timeout) else {
                throw CheckFailure(
                    "\(board.place): no advertisement from \(board.address) within \(timeout.seconds) s", class: .board)
            }
            var problems = Self.problems(in: report.data, of: board.profile, address: board.address)
            if !problems.isEmpty {
                // A scannable board's name is usually in its scan response, and a response can be lost: the
                // advertisement then comes alone. Judge the advertising on a few more reports, as a phone updates
                // what it shows of a device when the response comes.
                let (profile, address) = (board.profile, board.address)
                let complete = try await app.firstAdvertisement(within: Self.responseWindow) {
                    Self.problems(in: $0.data, of: profile, address: address).isEmpty
                }
                if complete != nil { problems = [] }
            }
            guard problems.isEmpty else {
                throw CheckFailure(
                    "\(board.place): advertising does not match the \(board.profile) profile: \(problems[0])",
                    details: problems.joined(separator: "\n") + "\nadvertised: \(report.data)")
            }
            return [
                MeasuredValue(
                    metric: "discovery.first_seen_ms", statistic: .value,
                    value: start.duration(to: report.received).milliseconds, unit: .milliseconds,
                    definition: "scan start → first advertising report from the board")
            ]
        }
        await board.check(Self.name, "GATT table complete") {
            let table = try await app.running { app in
                try await app.perform("reading the GATT table", attempts: .failWithTheAttempt) {
                    try await Self.table(of: $0, board: board)
                }
            }
            if let identity = table.identity, identity.model != EspPoint.modelNumber {
                throw CheckFailure(
                    "\(board.place): Model Number is '\(identity.model)', expected '\(EspPoint.modelNumber)'")
            }
            if let identity = table.identity { board.recorder.log(.info, "central", "identity: \(identity)") }
            return [
                MeasuredValue(
                    metric: "gatt.services", statistic: .value, value: Double(table.services), unit: .count,
                    definition: "primary services discovered"),
                MeasuredValue(
                    metric: "gatt.characteristics", statistic: .value, value: Double(table.characteristics),
                    unit: .count,
                    definition: "characteristics discovered in all primary services"),
                MeasuredValue(
                    metric: "gatt.mtu", statistic: .value, value: Double(table.mtu), unit: .bytes,
                    definition: "ATT_MTU after the exchange"),
            ]
        }
    }

    /// Primary services, their characteristics and the MTU of `session`, and an esp-point's identity; a described
    /// board's table is held to its profile.
    static func table(
        of session: ProfileSession, board: BoardUnderTest
    ) async throws -> (services: Int, characteristics: Int, mtu: UInt16, identity: BoardIdentity?) {
        var characteristics = 0
        for service in session.services {
            characteristics += try await session.connection.discoverCharacteristics(of: service).count
        }
        var identity: BoardIdentity?
        if board.profile == .espPoint { identity = try await EspPointClient(session: session).identity() }
        if let data = board.profile.data {
            let problems = try await Self.tableProblems(of: data, in: session)
            guard problems.isEmpty else {
                throw CheckFailure(
                    "\(board.place): the GATT table does not match the \(data.name) profile: \(problems[0])",
                    details: problems.joined(separator: "\n"))
            }
        }
        return (session.services.count, characteristics, session.mtu, identity)
    }

    /// What is wrong with `data` as the advertising of a board of `profile` at `address`; empty when nothing.
    static func problems(in data: AdvertisingData, of profile: Profile, address: DeviceAddress) -> [String] {
        var problems: [String] = []
        let expectedName: String
        let expectedService: BluetoothUUID
        switch profile {
        case .espPoint:
            expectedName = EspPoint.advertisedName(for: address)
            expectedService = EspPoint.sensorService
            if let bytes = data.manufacturerData(for: EspPoint.companyIdentifier) {
                if (try? EspPoint.ManufacturerStatus(decoding: bytes)) == nil {
                    problems.append("manufacturer data \(bytes.hexString) is not fw major, minor, patch, flags")
                }
            } else {
                problems.append("no manufacturer data for company 0xFFFF")
            }
            if data.flags != AdvertisingFlags(rawValue: 0x06) {
                problems.append("flags are \(String(describing: data.flags)), expected 0x06")
            }
        case .nano33BLESense:
            expectedName = Nano33BLESense.advertisedName
            expectedService = Nano33BLESense.ledService
        case .hrm:
            expectedName = HeartRateMonitor.advertisedName(for: address)
            expectedService = StandardUUID.heartRate
        case .described(let profile): return Self.problems(in: data, of: profile, address: address)
        }
        if data.localName != expectedName {
            problems.append("local name is \(data.localName.map { "'\($0)'" } ?? "absent"), expected '\(expectedName)'")
        }
        if !data.serviceUUIDs.contains(expectedService) {
            problems.append("service \(expectedService) is not advertised")
        }
        return problems
    }
}

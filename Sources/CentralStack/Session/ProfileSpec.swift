import BLECore
import DeviceProfiles

/// What the stack needs from a board of one profile: which services and characteristics must exist, which
/// characteristics it subscribes to before the board counts as ready, and which it subscribes to only when a
/// feature first needs them on a session (``ProfileSession/ensureSubscribed(_:)``).
public struct ProfileSpec: Sendable, Hashable {
    public struct Subscription: Sendable, Hashable {
        public var characteristic: BluetoothUUID
        /// Indications rather than notifications.
        public var indications: Bool

        public init(_ characteristic: BluetoothUUID, indications: Bool = false) {
            self.characteristic = characteristic
            self.indications = indications
        }
    }

    public var profile: Profile
    /// Required services and, for each, its required characteristics.
    public var services: [(service: BluetoothUUID, characteristics: [BluetoothUUID])]
    /// Subscribed by the handshake: what the app needs all the time. `handshake.ready_ms` ends when these are on.
    public var subscriptions: [Subscription]
    /// Subscribed on demand, once per session, by the feature that uses them (the OTA transfer, the log client).
    /// The handshake finds their CCCDs (discovery or the cached table) but does not write them.
    public var onDemand: [Subscription]
    /// The ATT_MTU the stack asks for.
    public var preferredMTU: UInt16

    public init(
        profile: Profile, services: [(service: BluetoothUUID, characteristics: [BluetoothUUID])],
        subscriptions: [Subscription], onDemand: [Subscription] = [], preferredMTU: UInt16 = 247
    ) {
        self.profile = profile
        self.services = services
        self.subscriptions = subscriptions
        self.onDemand = onDemand
        self.preferredMTU = preferredMTU
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.profile == b.profile && a.subscriptions == b.subscriptions && a.onDemand == b.onDemand
            && a.preferredMTU == b.preferredMTU
            && a.services.map(\.service) == b.services.map(\.service)
            && a.services.map(\.characteristics) == b.services.map(\.characteristics)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(profile)
        hasher.combine(subscriptions)
        hasher.combine(onDemand)
    }

    /// The spec of each profile in docs/board-contract.md.
    public static func standard(_ profile: Profile) -> ProfileSpec {
        switch profile {
        case .espPoint:
            ProfileSpec(
                profile: profile,
                services: [
                    (
                        StandardUUID.deviceInformation,
                        [
                            StandardUUID.manufacturerName, StandardUUID.modelNumber, StandardUUID.serialNumber,
                            StandardUUID.firmwareRevision,
                        ]
                    ),
                    (StandardUUID.battery, [StandardUUID.batteryLevel]),
                    (EspPoint.sensorService, [EspPoint.reading, EspPoint.logControl, EspPoint.logData]),
                    (EspPoint.commandService, [EspPoint.command, EspPoint.commandStatus, EspPoint.auth]),
                    (EspPoint.otaService, [EspPoint.otaControl, EspPoint.otaData]),
                ],
                subscriptions: [
                    .init(StandardUUID.batteryLevel), .init(EspPoint.reading), .init(EspPoint.commandStatus),
                ],
                // OTA Control when an update starts; Log Control and Log Data when the log is first used.
                onDemand: [
                    .init(EspPoint.otaControl), .init(EspPoint.logControl, indications: true),
                    .init(EspPoint.logData),
                ])
        case .nano33BLESense:
            ProfileSpec(
                profile: profile,
                services: [
                    (Nano33BLESense.ledService, [Nano33BLESense.ledStatus]),
                    (Nano33BLESense.sensorService, [Nano33BLESense.temperature]),
                ],
                subscriptions: [.init(Nano33BLESense.temperature)])
        case .hrm:
            ProfileSpec(
                profile: profile,
                services: [
                    (
                        StandardUUID.heartRate,
                        [
                            StandardUUID.heartRateMeasurement, StandardUUID.bodySensorLocation,
                            HeartRateMonitor.alertLevel,
                        ]
                    ),
                    (StandardUUID.battery, [StandardUUID.batteryLevel]),
                ],
                subscriptions: [.init(StandardUUID.heartRateMeasurement), .init(StandardUUID.batteryLevel)])
        case .described(let data): described(data)
        }
    }

    /// A described board's spec: its required table, its ready subscriptions, and on demand the periodic
    /// notification and the characteristics its commands expect notifications on, where those are not ready ones.
    static func described(_ data: DataProfile) -> ProfileSpec {
        func subscription(_ uuid: BluetoothUUID) -> Subscription {
            let properties = data.characteristic(uuid)?.characteristic.properties ?? []
            return Subscription(uuid, indications: !properties.contains(.notify) && properties.contains(.indicate))
        }
        var onDemand: [BluetoothUUID] = []
        for uuid in [data.periodic?.characteristic] + (data.commands?.writes ?? []).map(\.expect.notification?.characteristic)
        {
            if let uuid, !data.ready.contains(uuid), !onDemand.contains(uuid) { onDemand.append(uuid) }
        }
        return ProfileSpec(
            profile: .described(data),
            services: data.services.filter(\.required).map { service in
                (service.uuid, service.characteristics.filter(\.required).map(\.uuid))
            },
            subscriptions: data.ready.map(subscription), onDemand: onDemand.map(subscription))
    }
}

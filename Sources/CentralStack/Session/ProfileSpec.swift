import BLECore
import DeviceProfiles

/// What the stack needs from a board of one profile: which services and characteristics must exist and which
/// characteristics it subscribes to before the board counts as ready.
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
    public var subscriptions: [Subscription]
    /// The ATT_MTU the stack asks for.
    public var preferredMTU: UInt16

    public init(
        profile: Profile, services: [(service: BluetoothUUID, characteristics: [BluetoothUUID])],
        subscriptions: [Subscription], preferredMTU: UInt16 = 247
    ) {
        self.profile = profile
        self.services = services
        self.subscriptions = subscriptions
        self.preferredMTU = preferredMTU
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.profile == b.profile && a.subscriptions == b.subscriptions && a.preferredMTU == b.preferredMTU
            && a.services.map(\.service) == b.services.map(\.service)
            && a.services.map(\.characteristics) == b.services.map(\.characteristics)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(profile)
        hasher.combine(subscriptions)
    }

    /// The spec of each profile in device-profiles.md.
    public static func standard(_ profile: Profile) -> ProfileSpec {
        switch profile {
        case .espPoint:
            ProfileSpec(
                profile: profile,
                services: [
                    (StandardUUID.deviceInformation, [
                        StandardUUID.manufacturerName, StandardUUID.modelNumber, StandardUUID.serialNumber,
                        StandardUUID.firmwareRevision,
                    ]),
                    (StandardUUID.battery, [StandardUUID.batteryLevel]),
                    (EspPoint.sensorService, [EspPoint.reading, EspPoint.logControl, EspPoint.logData]),
                    (EspPoint.commandService, [EspPoint.command, EspPoint.commandStatus, EspPoint.auth]),
                    (EspPoint.otaService, [EspPoint.otaControl, EspPoint.otaData]),
                ],
                subscriptions: [
                    .init(StandardUUID.batteryLevel), .init(EspPoint.reading),
                    .init(EspPoint.logControl, indications: true), .init(EspPoint.logData),
                    .init(EspPoint.commandStatus), .init(EspPoint.otaControl),
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
                    (StandardUUID.heartRate, [
                        StandardUUID.heartRateMeasurement, StandardUUID.bodySensorLocation, HeartRateMonitor.alertLevel,
                    ]),
                    (StandardUUID.battery, [StandardUUID.batteryLevel]),
                ],
                subscriptions: [.init(StandardUUID.heartRateMeasurement), .init(StandardUUID.batteryLevel)])
        }
    }
}

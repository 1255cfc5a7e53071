import BLECore
import DeviceProfiles

/// The esp-point's GATT table (docs/board-contract.md, "esp-point"), in the contract's order, and the test firmware's
/// way to change it while it runs, as a firmware update that adds a service would: the console command
/// `gatt-test-service on|off` (test firmware only, like `log-fill`) appends or removes a service at the end of the
/// table. The Generic Attribute service at the front keeps its handles; the Database Hash changes, and connected
/// centrals get Service Changed (robust caching).
extension EspPointFirmware {
    /// The table, built at every boot (and again when the test service comes or goes).
    func services() -> [GATTServer.Service] {
        typealias C = GATTServer.Characteristic
        return [
            // First, as the contract lists it: Service Changed keeps its handle whatever follows.
            GATTServer.Service.genericAttribute(),
            GATTServer.Service(
                StandardUUID.deviceInformation,
                characteristics: [
                    C(StandardUUID.manufacturerName, properties: .read, value: .stored(Self.manufacturerName)),
                    C(StandardUUID.modelNumber, properties: .read, value: .stored(EspPoint.modelNumber)),
                    // From the board's address, which the firmware learns at boot (the eFuse MAC).
                    C(StandardUUID.serialNumber, properties: .read, value: .dynamic),
                    C(StandardUUID.firmwareRevision, properties: .read, value: .stored(version.description)),
                ]),
            GATTServer.Service(
                StandardUUID.battery,
                characteristics: [
                    C(StandardUUID.batteryLevel, properties: [.read, .notify], value: .dynamic, length: .fixed(1))
                ]),
            GATTServer.Service(
                EspPoint.sensorService,
                characteristics: [
                    C(
                        EspPoint.reading, properties: [.read, .notify], value: .dynamic,
                        length: .fixed(EspPoint.Reading.size)),
                    C(EspPoint.logControl, properties: [.write, .indicate], value: .dynamic),
                    C(EspPoint.logData, properties: .notify, value: .dynamic),
                ]),
            GATTServer.Service(
                EspPoint.commandService,
                characteristics: [
                    C(
                        EspPoint.command, properties: .write, value: .dynamic,
                        length: .variable(maximum: 1 + EspPoint.keyLength)),
                    C(EspPoint.commandStatus, properties: [.read, .notify], value: .dynamic),
                    C(EspPoint.auth, properties: [.read, .write], value: .dynamic),
                ]),
            GATTServer.Service(
                EspPoint.otaService,
                characteristics: [
                    C(EspPoint.otaControl, properties: [.write, .notify], value: .dynamic),
                    C(EspPoint.otaData, properties: .writeWithoutResponse, value: .dynamic),
                ]),
        ] + (testServiceEnabled ? [Self.testService] : [])
    }

    /// A vendor service no profile uses: `e5b1ff00` with one readable characteristic `e5b1ff01`.
    static let testService = GATTServer.Service(
        Profile.custom(0xFF00),
        characteristics: [
            GATTServer.Characteristic(Profile.custom(0xFF01), properties: .read, value: .stored("gatt test"))
        ])

    func gattTestServiceCommand(_ words: [Substring]) {
        guard let board else { return }
        guard words.count == 2, words[1] == "on" || words[1] == "off" else {
            board.log(.warning, "CONSOLE", "usage: gatt-test-service on|off")
            return
        }
        let enable = words[1] == "on"
        guard enable != testServiceEnabled else {
            board.log(.info, "GATT", "test service already \(words[1])")
            return
        }
        testServiceEnabled = enable
        board.tableChanged()
    }
}

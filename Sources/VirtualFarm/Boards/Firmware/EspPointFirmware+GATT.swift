import BLECore
import DeviceProfiles

/// The esp-point test firmware's way to change its GATT table while it runs, as a firmware update that adds a
/// service would: the console command `gatt-test-service on|off` (test firmware only, like `log-fill`) appends
/// or removes a service at the end of the table. The Generic Attribute service at the front keeps its handles;
/// the Database Hash changes, and connected centrals get Service Changed (robust caching).
extension EspPointFirmware {
    /// A vendor service no profile uses: `e5b1ff00` with one readable characteristic `e5b1ff01`.
    static let testService = GATTServer.Service(
        Profile.custom(0xFF00),
        characteristics: [
            GATTServer.Characteristic(Profile.custom(0xFF01), properties: .read, value: .stored("gatt test"))
        ])

    func gattTestServiceCommand(_ words: [Substring]) {
        guard let board else { return }
        guard words.count == 2, words[1] == "on" || words[1] == "off" else {
            board.log("W", "CONSOLE", "usage: gatt-test-service on|off")
            return
        }
        let enable = words[1] == "on"
        guard enable != testServiceEnabled else {
            board.log("I", "GATT", "test service already \(words[1])")
            return
        }
        testServiceEnabled = enable
        board.tableChanged()
    }
}

import BLECore
import DeviceProfiles

/// The esp-point firmware's serial console commands (docs/board-contract.md, "The serial console"), beyond the
/// board's own `status` and `reboot`: `pair` (the button), `factory-reset`, and the test firmware's `log-fill N`,
/// `gatt-test-service on|off`, `ota-fault …` and `ota-key …`. Each goes to the service it is about.
extension EspPointFirmware {
    func consoleCommand(_ words: [Substring]) -> Bool {
        guard let board else { return false }
        switch words.first {
        case "pair":
            auth.enterPairingMode(because: "button")
        case "factory-reset":
            commands.factoryReset()
        case "gatt-test-service":
            gattTestServiceCommand(words)
        case "log-fill":
            guard words.count == 2, let count = Int(words[1]), count >= 0 else {
                board.log(.warning, "CONSOLE", "usage: log-fill N")
                return true
            }
            sensor.fill(count)
        default:
            return ota.consoleCommand(words)
        }
        return true
    }
}

import BLECore
import BenchCore

/// Arduino's 1200-baud touch (arduino-cli's `serialutils.Reset`): open the port at 1200 baud, drop DTR, close;
/// the sketch's USB stack sees the rate and the line drop and restarts into the bootloader. Then wait 500 ms and
/// look every 250 ms, for up to 10 s, for a port that was not there before and stays for a second; without one,
/// the bootloader kept the old port (or the board ignored the touch).
public struct ArduinoTouch: Sendable {
    public let environment: SerialEnvironment
    public let follower: PortFollower

    public static let baud = 1200
    public static let settleAfterClose: Duration = .milliseconds(500)
    public static let bootloaderTimeout: Duration = .seconds(10)

    public init(environment: SerialEnvironment, follower: PortFollower) {
        self.environment = environment
        self.follower = follower
    }

    /// Touches `path`; returns the bootloader's new port, or nil when none came up.
    public func perform(on path: String) async throws(BenchError) -> SerialPortInfo? {
        let before = Set(follower.inventory.ports().map(\.devicePath))
        let port = try SerialPort.open(
            path, settings: SerialPort.Settings(baud: Self.baud, hangUpOnClose: false), environment: environment)
        do {
            var lines = try port.modemLines()
            lines.dtrOn = false
            try port.setModemLines(lines)
        } catch {
            port.close()
            throw error
        }
        port.close()
        do { try await follower.clock.sleep(for: Self.settleAfterClose) } catch {
            throw BenchError(.cancelled, "the 1200-baud touch of \(path) was cancelled")
        }
        return try await follower.waitForNewPort(notIn: before, timeout: Self.bootloaderTimeout)
    }
}

import BLECore
import BenchCore
import Testing
import VirtualFarm

@testable import Benches
@testable import Orchestrator

/// The composition root: a rig file's settings become the virtual farm's, with the farm's own defaults.
@Suite("BenchBuilder: rig file → bench")
struct BenchBuilderTests {
    static func rig(_ lines: String...) throws -> RigConfig { try RigTesting.load(lines.joined(separator: "\n")) }

    @Test("a rig file that leaves everything out gets exactly the virtual farm's defaults")
    func defaultsAreTheFarmsDefaults() throws {
        let rig = try Self.rig(
            "rig: t", "radio: virtual", "boards: [{id: e, profile: esp-point}, {id: h, profile: hrm}]",
            "suites: [discovery]")
        let configuration = BenchBuilder.virtualConfiguration(rig, seed: 1)
        #expect(configuration.link == LinkParameters())
        #expect(configuration.faults == LinkFaults())
        #expect(configuration.boards.map(\.settings) == [VirtualBoardSettings(), VirtualBoardSettings()])
        #expect(configuration.radios == [.init(id: "radio", maxLinks: 8)])
    }

    @Test("link settings, radios with their limits, and each board's reset wiring carry over")
    func settingsCarryOver() throws {
        let rig = try Self.rig(
            "rig: t",
            "radios: [{id: a, kind: virtual, max_links: 3}, {id: b, kind: virtual}]",
            "boards:",
            "  - {id: e, profile: esp-point}",
            "  - {id: f, profile: esp-point, serial: {port: /dev/ttyUSB1, reset: run-only}}",
            "  - {id: n, profile: nano33-ble-sense}",
            "  - {id: m, profile: nano33-ble-sense, serial: {port: /dev/ttyACM0, reset: arduino-1200-touch}}",
            "virtual: {link: {interval_ms: 7.5, phy: coded, data_length: 27, latency: 2}, faults: {drops_per_hour: 6}}",
            "suites: [discovery]")
        let configuration = BenchBuilder.virtualConfiguration(rig, seed: 5)
        #expect(configuration.seed == 5)
        #expect(configuration.link.connectionInterval == .microseconds(7_500))
        #expect(configuration.link.phy == .leCoded && configuration.link.dataLength == 27)
        #expect(configuration.link.peripheralLatency == 2)
        #expect(configuration.link.problems.isEmpty)
        #expect(configuration.faults.dropsPerHour == 6)
        #expect(configuration.radios == [.init(id: "a", maxLinks: 3), .init(id: "b", maxLinks: 8)])
        #expect(configuration.boards.map(\.resets) == [[.run, .bootloader], [.run], [], [.bootloader]])
    }

    @Test("a bluez radio gets the kernel's BlueZ bench; where the kernel has no Bluetooth, opening it says so at its place")
    func bluezBench() async throws {
        let rig = try Self.rig(
            "rig: t", "radio: {kind: bluez, adapter: hci1}",
            "boards: [{id: e, profile: esp-point, match: {name: ESP-Point-1a2b}}]", "suites: [discovery]")
        let launcher = try BenchBuilder().launcher(for: rig, seed: 1)
        #expect(launcher.summary == "bluez hci1")
        await #expect {
            _ = try await launcher.withBench { _ in 0 }
        } throws: { error in
            "\(error)".contains("radio 'radio' (2:8)")
        }
    }

    @Test("a steady heart rate holds its base in the board model")
    func steadyHeartRate() throws {
        let rig = try Self.rig(
            "rig: t", "radio: virtual",
            "boards: [{id: h, profile: hrm, virtual: {heart_rate: {pattern: steady, base_bpm: 60}}}]",
            "suites: [discovery]")
        let pattern = BenchBuilder.virtualConfiguration(rig, seed: 1).boards[0].settings.heartRate
        #expect(pattern.rate(at: .seconds(30)) == 60)
        #expect(pattern.rate(at: .seconds(3600)) == 60)
    }
}

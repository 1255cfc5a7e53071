import BLECore
import BenchCore
import BoardControl
import Glibc
import Orchestrator
import Testing

@testable import Benches

/// The composition root gives a hardware rig's boards BoardControl's drivers: one open port for console and
/// reset, the hub port for power.
@Suite("Hardware boards from the rig")
struct HardwareBoardsTests {
    static func rig(_ directory: String, port: String, reset: String = "hard-reset") throws -> RigConfig {
        let path = "\(directory)/bench.yaml"
        let text = """
            rig: bench
            radio: {kind: hci, transport: "tcp:127.0.0.1:1"}
            boards:
              - id: esp-01
                profile: esp-point
                match: {name: ESP-Point-1A2B}
                serial: {port: \(port), baud: 230400, reset: "\(reset)"}
                power: {hub: "1-1.4", port: 2}
              - id: hrm-01
                profile: hrm
                match: {name: HRM}
            suites: [discovery]
            """
        let file = fopen(path, "w")
        fputs(text, file)
        fclose(file)
        return try RigFile.load(contentsOf: path, knownSuites: Campaign.suiteNames)
    }

    static func directory() -> String {
        var template = Array("/tmp/blerig-hw-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    @Test func aWiredBoardGetsConsoleResetAndPowerAndABareOneNone() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 128)
        #expect(openpty(&master, &slave, &name, nil, nil) == 0)
        defer { close(master); close(slave) }
        let port = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = Self.directory()
        let rig = try Self.rig(directory, port: port, reset: "R1|W0.25|R0")
        let hardware = try HardwareBoards.open(
            rig, clock: WallClock(), environment: SerialEnvironment(lockDirectories: [directory]))
        defer { hardware.close() }
        let esp = hardware.boards[0]
        #expect(esp.console?.description == "\(port) @ 230400")
        #expect(esp.reset?.kinds == [.run])
        #expect(esp.power?.description == "hub 1-1.4 port 2")
        #expect(esp.identity.map(\.key) == ["profile", "serial", "power"])
        let hrm = hardware.boards[1]
        #expect(hrm.console == nil && hrm.reset == nil && hrm.power == nil)
    }

    @Test func aMissingPortStopsTheBenchNamingTheBoardAndItsPlace() throws {
        let directory = Self.directory()
        let rig = try Self.rig(directory, port: "usb:9-9.9:1.0")
        let error = #expect(throws: BenchError.self) {
            try HardwareBoards.open(
                rig, clock: WallClock(), environment: SerialEnvironment(lockDirectories: [directory]))
        }
        #expect(error?.code == .missing)
        #expect(
            error?.message.hasPrefix("board 'esp-01' (\(directory)/bench.yaml:7:13): no serial port usb:9-9.9:1.0")
                == true)
    }
}

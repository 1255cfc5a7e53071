import BLECore
import DeviceProfiles
import Foundation
import Testing

@testable import Orchestrator

/// The profile file loader: the shipped profiles load, and every mistake is reported at its `file:line:column`.
@Suite("Profile files")
struct ProfileFileTests {
    static func issues(_ yaml: String) -> [String] {
        do {
            _ = try ProfileFile.parse(yaml: yaml, file: "p.yaml")
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    static let minimal = """
        profile: my-sensor
        advertising: {name: "Sensor-*", services: [0x181A]}
        services:
          - uuid: 0x181A
            characteristics:
              - {uuid: 0x2A6E, properties: [read, notify]}
        ready: [0x2A6E]
        notification:
          characteristic: 0x2A6E
          rate_hz: 2
          decoder: {format: i16, scale: 0.01, unit: °C}

        """

    @Test("the shipped profiles load with their tables, decoders and commands")
    func shippedProfilesLoad() throws {
        let nano = try ProfileFile.load(contentsOf: "\(DescribedBoardFarmTests.profiles)/nano33-ble.yaml")
        #expect(nano.name == "nano33-tutorial")
        #expect(nano.services.map(\.uuid) == [Nano33BLESense.ledService, Nano33BLESense.sensorService])
        #expect(nano.periodic?.decoder == .number(.init(kind: .signed, width: 1, scale: 1, unit: "°C")))
        #expect(nano.commands?.writes.map(\.bytes) == [[1], [0]])
        let hrs = try ProfileFile.load(contentsOf: "\(DescribedBoardFarmTests.profiles)/heart-rate-sensor.yaml")
        #expect(hrs.periodic?.decoder == .codec(.heartRateMeasurement))
        #expect(hrs.commands?.writes.last?.expect.error == 0x80)
        #expect(hrs.characteristic(BluetoothUUID(0x2A19))?.characteristic.descriptors.first?.value == Array("Battery".utf8))
        #expect(hrs.advertising.name?.matches("HRS-1a2b", address: DeviceAddress(0xA09E_1A00_1A2B)) == true)
    }

    @Test("a minimal profile loads, with the contract's console and defaults")
    func minimalLoads() throws {
        let profile = try ProfileFile.parse(yaml: Self.minimal, file: "p.yaml")
        #expect(profile.periodic?.period == .milliseconds(500))
        #expect(profile.console.bootTellsReset)
        #expect(profile.commands == nil)
    }

    @Test("mistakes are reported together, each at its line and column")
    func mistakesAtTheirPlace() {
        let yaml = """
            profile: esp-point
            advertising: {name: x, servces: [0x181A]}
            services:
              - uuid: 0x181Z
                characteristics:
                  - {uuid: 0x2A6E, properties: [read, nofity]}
              - uuid: 0x181B
                characteristics:
                  - {uuid: 0x2A6F, properties: [write]}
            ready: [0x2A6F]
            notification: {characteristic: 0x2A70, rate_hz: 0, decoder: {format: i12}}
            console: {boot: "BOOT (", errors: [panic]}

            """
        let found = Self.issues(yaml)
        let places = found.map { String($0.prefix { $0 != " " }) }
        #expect(places.contains("p.yaml:1:10:"), "\(found)")
        #expect(found.contains { $0.hasPrefix("p.yaml:2:") && $0.contains("unknown key 'servces' in advertising (did you mean 'services'?)") })
        #expect(found.contains { $0.hasPrefix("p.yaml:4:11:") && $0.contains("must be a Bluetooth UUID") })
        #expect(found.contains { $0.hasPrefix("p.yaml:6:") && $0.contains("unknown property 'nofity'") && $0.contains("did you mean 'notify'") })
        #expect(found.contains { $0.hasPrefix("p.yaml:10:9:") && $0.contains("must have the notify or indicate property") })
        #expect(found.contains { $0.hasPrefix("p.yaml:11:") && $0.contains("'rate_hz'") })
        #expect(found.contains { $0.hasPrefix("p.yaml:11:") && $0.contains("unknown format 'i12'") })
        #expect(found.contains { $0.hasPrefix("p.yaml:12:") && $0.contains("'boot' is not a regular expression") })
    }

    @Test("each mistake is said once: the list of properties once, a bad value without a 'missing' beside it")
    func eachMistakeOnce() {
        let yaml = """
            profile: my-sensor
            advertising: {name: "Sensor-*", services: [0x181A]}
            services:
              - uuid: 0x181A
                characteristics:
                  - {uuid: 0x2A6E, properties: [read, fly]}
                  - {uuid: 0x2A39, properties: [write]}
            commands:
              writes:
                - {name: w, characteristic: 0x2A39, bytes: "zz1"}
                - {name: v, characteristic: 0x2A39, value: [1, 2]}

            """
        let found = Self.issues(yaml)
        #expect(found.count == 3, "\(found)")
        let property = found.first { $0.contains("unknown property 'fly'") }
        #expect(property?.hasPrefix("p.yaml:6:") == true, "\(found)")
        #expect(property?.components(separatedBy: "(expected").count == 2, "\(property ?? "")")
        #expect(found.contains { $0.hasPrefix("p.yaml:10:") && $0.contains("'bytes' must be bytes in hexadecimal digits") })
        #expect(found.contains { $0.hasPrefix("p.yaml:11:") && $0.contains("'value'") })
        #expect(!found.contains { $0.contains("to have a value") }, "\(found)")
    }

    @Test("a console pattern that would backtrack exponentially on a board's line is refused where it is written")
    func exponentialPatternRefused() {
        let yaml = Self.minimal + """
            console:
              errors: ['^E/', '(a+)+$']

            """
        let found = Self.issues(yaml)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("p.yaml:13:") == true, "\(found)")
        #expect(found.first?.contains("'errors' repeats a group that repeats inside itself, '(a+)+'") == true)
        // Made possessive, as the message suggests, it loads.
        let possessive = Self.minimal + """
            console:
              errors: ['(a+)++$', '(\\w+\\s)*+E/']

            """
        #expect(Self.issues(possessive) == [])
    }

    @Test("behaviour must name characteristics of the table that can do what it asks")
    func referencesChecked() {
        let yaml = Self.minimal + """
            commands:
              writes:
                - {name: poke, characteristic: 0x2A6E, bytes: "01"}
                - {name: nowhere, characteristic: 0x2A99, value: "hi", expect: {notification: {characteristic: 0x2A6E}}}

            """
        let found = Self.issues(yaml)
        #expect(found.contains { $0.hasPrefix("p.yaml:14:") && $0.contains("write 'poke': 2A6E lacks the write property") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("p.yaml:15:") && $0.contains("write 'nowhere' 2A99 is not a characteristic of 'services'") }, "\(found)")
    }

    @Test("a custom boot banner needs the line the virtual board prints, and that line must match")
    func consoleLinesMatchTheirPatterns() {
        let missing = Self.issues(Self.minimal + "console: {boot: '^MySensor v\\S+'}\n")
        #expect(missing.contains { $0.contains("console needs 'boot_line'") }, "\(missing)")
        let wrong = Self.issues(Self.minimal + "console: {boot: '^MySensor v\\S+', boot_line: 'Sensor {fw}'}\n")
        #expect(wrong.contains { $0.contains("boot_line 'Sensor 1.0.0' does not read as the boot line") }, "\(wrong)")
        #expect(Self.issues(Self.minimal + "console: {boot: '^MySensor v\\S+', boot_line: 'MySensor v{fw}'}\n") == [])
    }

    @Test("a rig names a profile file relative to itself; a missing file is an error at the rig's key")
    func rigNamesProfileFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("profiles"), withIntermediateDirectories: true)
        try Data(Self.minimal.utf8).write(to: directory.appendingPathComponent("profiles/my-sensor.yaml"))
        let rig = """
            rig: mine
            radio: virtual
            boards:
              - {id: s1, profile: {file: profiles/my-sensor.yaml}}
              - {id: s2, profile: {file: profiles/my-sensor.yaml}}
              - {id: s3, profile: {file: profiles/absent.yaml}}
            suites: [discovery]

            """
        let path = directory.appendingPathComponent("rig.yaml").path
        try Data(rig.utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try RigFile.load(contentsOf: path, knownSuites: SuiteCatalog.names)
            Issue.record("a missing profile file loaded")
        } catch {
            #expect(error.issues.count == 1)
            #expect(error.first.location.line == 6)
            #expect(error.first.message.hasPrefix("profile file '"))
            #expect(error.first.message.hasSuffix("absent.yaml': no such file"))
        }
        try Data(rig.replacingOccurrences(of: "absent", with: "my-sensor").utf8).write(to: URL(fileURLWithPath: path))
        let config = try RigFile.load(contentsOf: path, knownSuites: SuiteCatalog.names)
        #expect(config.boards.map(\.profile.rawValue) == ["my-sensor", "my-sensor", "my-sensor"])
        #expect(config.boards[0].profile.data?.periodic?.rateHz == 2)
    }
}

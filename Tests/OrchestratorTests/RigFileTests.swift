import BenchCore
import DeviceProfiles
import Foundation
import Testing

@testable import Orchestrator

/// One line per argument, so a case reads like the file it stands for and line numbers are easy to count.
private func yaml(_ lines: String...) -> String { lines.joined(separator: "\n") + "\n" }

/// Every rig file shipped in the repository (rigs/gates.yaml is a gates file, read by GatesTests).
private let shippedRigs: [String] = {
    let manager = FileManager.default
    return ["rigs", "rigs/examples"].flatMap { directory in
        ((try? manager.contentsOfDirectory(atPath: RigTesting.path(directory))) ?? [])
            .filter { $0.hasSuffix(".yaml") && $0 != "gates.yaml" }  // rigs/gates.yaml is a gates file, not a rig
            .map { "\(directory)/\($0)" }
    }.sorted()
}()

@Suite struct RigFileTests {
    @Test func theShippedVirtualRigLoadsWithTheValuesItDocuments() throws {
        let path = RigTesting.path("rigs/virtual.yaml")
        let rig = try RigFile.load(contentsOf: path, knownSuites: RigTesting.knownSuites)
        #expect(rig.name == "virtual-farm")
        #expect(rig.radio.kind == .virtual)
        #expect(rig.boards.map(\.id) == ["esp-01", "esp-02", "nano-01", "hrm-01"])
        #expect(rig.boards.map(\.profile) == [.espPoint, .espPoint, .nano33BLESense, .hrm])
        let farm = try #require(rig.virtual)
        #expect(farm.seed == 42)
        #expect(farm.link.intervalMs == 15)
        #expect(farm.link.packetsPerEvent == 6)
        #expect(farm.link.phy == .le2M)
        #expect(farm.link.dataLength == 251)
        #expect(farm.link.supervisionTimeoutMs == 4_000)
        #expect(farm.link.advertisingIntervalMs == 100)
        #expect(farm.link.latency == 0)
        #expect(farm.faults.dropsPerHour == 0)
        #expect(
            rig.suites.map(\.name) == [
                "discovery", "handshake", "commands", "notifications", "sync", "alerts", "pairing", "soak", "restore",
                "power", "ota",
            ])

        let esp = try #require(rig.board(id: "esp-01"))
        #expect(esp.virtual.address?.description == "24:0A:C4:12:1A:2B")
        #expect(esp.virtual.batteryPercent == 64)
        #expect(esp.virtual.temperatureC == 19.5)
        #expect(esp.virtual.firmware.logCapacity == 48)
        #expect(esp.location.file == path)
        #expect(esp.location.lineAndColumn == "16:5")
        let logger = try #require(rig.board(id: "esp-02")).virtual.firmware
        #expect(logger.version?.description == "1.4.2")
        #expect(logger.sampleIntervalS == 600)
        #expect(logger.logCapacity == 4_096)
        #expect(rig.board(id: "nano-01")?.virtual.advertisingIntervalMs == 152.5)
        #expect(rig.board(id: "nano-01")?.virtual.rssiDBm == -70)
        let heart = try #require(rig.board(id: "hrm-01")?.virtual.heartRate)
        #expect(heart.pattern == .sine)
        #expect((heart.baseBPM, heart.peakBPM, heart.periodS) == (95, 150, 90))
        #expect(heart.rrIntervals && !heart.energyExpended)

        let diagnostics = RigDiagnostics()
        var options = try #require(rig.suite(named: "handshake")?.optionsReader(diagnostics: diagnostics))
        #expect(options.integer("connections", in: 1...1_000) == 20)
        options.rejectUnknownKeys()
        #expect(diagnostics.isEmpty)
    }

    @Test(arguments: shippedRigs)
    func everyShippedRigLoads(_ relativePath: String) throws {
        _ = try RigFile.load(contentsOf: RigTesting.path(relativePath), knownSuites: RigTesting.knownSuites)
    }

    @Test func theBlueZExampleDescribesAHardwareBench() throws {
        let rig = try RigFile.load(
            contentsOf: RigTesting.path("rigs/examples/bench-bluez.yaml"),
            knownSuites: RigTesting.knownSuites)
        #expect(rig.radio.kind == .bluez(adapter: "hci0"))
        #expect(rig.virtual == nil)
        #expect(rig.boards.allSatisfy { $0.match != nil && $0.serial != nil && $0.power != nil })
        let second = try #require(rig.board(id: "esp-02"))
        #expect(second.match?.address?.description == "24:0A:C4:12:3C:4D")
        #expect(second.serial?.baud == 115_200)
        #expect(second.serial?.reset == .esp32Classic)
        #expect(second.power.map { ($0.hub, $0.port) } ?? ("", 0) == ("1-1.4", 3))
        #expect(rig.board(id: "nano-01")?.serial?.reset == BoardConfig.Serial.Reset.none)
        #expect(rig.gates?.path == "rigs/gates.yaml")
        #expect(rig.suite(named: "handshake")?.options["connections"]?.scalar?.text == "50")
    }

    @Test func aMinimalVirtualRigGetsEveryDefault() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t",
                "radio: virtual",
                "boards:",
                "  - {id: e, profile: esp-point}",
                "  - {id: n, profile: nano33-ble-sense, serial: {port: /dev/ttyACM0}}",
                "  - {id: h, profile: hrm}",
                "suites: [discovery]"))
        let farm = try #require(rig.virtual)
        #expect(farm == VirtualFarmConfig(at: rig.radio.location))
        #expect(farm.seed == 1)
        #expect((farm.link.intervalMs, farm.link.packetsPerEvent, farm.link.phy) == (15, 6, .le2M))
        #expect(farm.link.dataLength == 251)
        #expect(farm.link.supervisionTimeoutMs == 4_000 && farm.link.advertisingIntervalMs == 100)
        #expect(farm.link.latency == 0 && farm.faults.dropsPerHour == 0)

        let esp = try #require(rig.board(id: "e"))
        #expect(esp.virtual == BoardConfig.VirtualSettings(profile: .espPoint, at: esp.location))
        #expect(esp.virtual.address == nil && esp.virtual.advertising && esp.virtual.advertisingIntervalMs == nil)
        #expect((esp.virtual.batteryPercent, esp.virtual.temperatureC, esp.virtual.rssiDBm) == (87, 22.5, -55))
        #expect(esp.virtual.heartRate == nil)
        #expect(esp.virtual.firmware.version == nil)
        #expect((esp.virtual.firmware.sampleIntervalS, esp.virtual.firmware.logCapacity) == (3_600, 2_048))
        #expect(esp.match == nil && esp.serial == nil && esp.power == nil)

        let nano = try #require(rig.board(id: "n"))
        #expect(nano.serial.map { ($0.port, $0.baud, $0.reset) } ?? ("", 0, .none) == ("/dev/ttyACM0", 115_200, .none))

        let heart = try #require(rig.board(id: "h")?.virtual.heartRate)
        #expect(heart.pattern == .ramp)
        #expect((heart.baseBPM, heart.peakBPM, heart.periodS) == (70, 160, 120))
        #expect(heart.rrIntervals && heart.energyExpended)
    }

    @Test func aSteadyHeartRateHoldsItsBase() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radio: virtual",
                "boards: [{id: h, profile: hrm, virtual: {heart_rate: {pattern: steady, base_bpm: 60}}}]",
                "suites: [discovery]"))
        let heart = try #require(rig.boards[0].virtual.heartRate)
        #expect((heart.pattern, heart.baseBPM, heart.peakBPM) == (.steady, 60, 60))
    }

    @Test func aVaryingHeartRateDefaultsItsPeakAboveTheAlertThreshold() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radio: virtual",
                "boards:",
                "  - {id: a, profile: hrm, virtual: {heart_rate: {pattern: spikes}}}",
                "  - {id: b, profile: hrm, virtual: {heart_rate: {pattern: ramp, base_bpm: 180}}}",
                "suites: [discovery]"))
        #expect(rig.board(id: "a")?.virtual.heartRate?.peakBPM == 160)
        #expect(rig.board(id: "a")?.virtual.heartRate?.periodS == 120)
        #expect(rig.board(id: "b")?.virtual.heartRate?.peakBPM == 180)
    }

    @Test func aVirtualBoardTakesItsMatchAddressUnlessItHasItsOwn() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radio: virtual",
                "boards:",
                "  - {id: a, profile: esp-point, match: {address: 24:0A:C4:00:00:01}}",
                "  - {id: b, profile: esp-point, virtual: {address: C0:00:00:00:00:02/random}}",
                "suites: [discovery]"))
        #expect(rig.board(id: "a")?.virtual.address?.description == "24:0A:C4:00:00:01")
        #expect(rig.board(id: "b")?.virtual.address?.description == "C0:00:00:00:00:02 (random)")
    }

    @Test func serialAndPowerAreAllowedOnAVirtualRigAndVirtualOnAHardwareRig() throws {
        let board =
            "  - {id: e, profile: esp-point, match: {name: ESP-Point-0001}, serial: {port: /dev/ttyUSB0}, "
            + "power: {hub: \"1-1\", port: 1}, virtual: {advertising: false}}"
        let virtualRig = try RigTesting.load(yaml("rig: t", "radio: virtual", "boards:", board, "suites: [ota]"))
        #expect(virtualRig.boards[0].serial?.port == "/dev/ttyUSB0")
        let bench = try RigTesting.load(
            yaml(
                "rig: t", "radio: bluez", "boards:", board, "virtual: {seed: 7}",
                "suites: [ota]"))
        #expect(bench.radio.kind == .bluez(adapter: "hci0"))
        #expect(bench.virtual?.seed == 7)
        #expect(bench.boards[0].virtual.advertising == false)
    }

    @Test(arguments: [
        ("virtual", RadioConfig.Kind.virtual),
        ("{kind: virtual}", .virtual),
        ("bluez", .bluez(adapter: "hci0")),
        ("{kind: bluez, adapter: hci1}", .bluez(adapter: "hci1")),
        ("{kind: hci, transport: \"tcp:127.0.0.1:6402\"}", .hci(.tcp(host: "127.0.0.1", port: 6402))),
        (
            "{kind: hci, transport: \"uart:/dev/ttyUSB0@1000000\"}",
            .hci(.uart(path: "/dev/ttyUSB0", baud: 1_000_000, flowControl: .rtsCts))
        ),
        ("{kind: hci, transport: \"hci-user:0\"}", .hci(.hciUser(adapter: 0))),
    ])
    func everyRadioFormLoads(_ written: String, _ kind: RadioConfig.Kind) throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radio: \(written)",
                "boards: [{id: b, profile: hrm, match: {name: HRM}}]", "suites: [discovery]"))
        #expect(rig.radio.kind == kind)
        #expect(rig.radio.location.lineAndColumn == "2:8")
    }

    @Test(arguments: [
        ("suites: [discovery, {handshake: {connections: 20}}]", "4:22", "4:47"),
        ("suites:\n  - discovery\n  - handshake:\n      connections: 20", "6:5", "7:20"),
        ("suites:\n  - discovery\n  - {handshake: {connections: 20}}", "6:6", "6:31"),
    ])
    func bothSuiteSyntaxesSelectTheSameSuites(_ suites: String, _ nameAt: String, _ optionAt: String) throws {
        let rig = try RigTesting.load(yaml("rig: t", "radio: virtual", "boards: [{id: b, profile: hrm}]", suites))
        #expect(rig.suites.map(\.name) == ["discovery", "handshake"])
        #expect(rig.suites[0].options == .emptyMapping(at: rig.suites[0].location))
        let handshake = rig.suites[1]
        #expect(handshake.location.lineAndColumn == nameAt)
        #expect(handshake.options.entries?.map(\.key) == ["connections"])
        let connections = try #require(handshake.options["connections"])
        #expect(connections.scalar == RigNode.Scalar("20"))
        #expect(connections.location.lineAndColumn == optionAt)
    }

    @Test func aSuiteReadsItsOwnOptionsAndReportsTheirPositions() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radio: virtual", "boards: [{id: b, profile: hrm}]",
                "suites: [{handshake: {connections: 0, conections: 5}}]"))
        let diagnostics = RigDiagnostics()
        var options = try #require(rig.suites[0].optionsReader(diagnostics: diagnostics))
        #expect(options.integer("connections", in: 1...1_000) == nil)
        #expect(options.integer("interval_ms", in: 1...100) == nil)
        options.rejectUnknownKeys()
        let error = try #require(throws: RigFileError.self) { try diagnostics.throwIfAny(file: "rig.yaml") }
        #expect(
            error.issues.map(\.description) == [
                "rig.yaml:4:36: 'connections' must be between 1 and 1000, found 0",
                "rig.yaml:4:39: unknown key 'conections' in handshake options (did you mean 'connections'?)",
            ])
    }

    @Test func aSuiteWrittenWithAnEmptyOptionsKeyHasNoOptions() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radio: virtual", "boards: [{id: b, profile: hrm}]", "suites:",
                "  - handshake:"))
        #expect(rig.suites[0].name == "handshake")
        #expect(rig.suites[0].options.entries == [])
        #expect(rig.suites[0].options.location.lineAndColumn == "5:5")
    }

    @Test func boardsCanShareSettingsThroughYAMLMergeKeys() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t",
                "radio: virtual",
                "boards:",
                "  - &esp {id: esp-01, profile: esp-point, virtual: {battery_percent: 50}}",
                "  - <<: *esp",
                "    id: esp-02",
                "suites: [discovery]"))
        #expect(rig.boards.map(\.id) == ["esp-01", "esp-02"])
        #expect(rig.boards[1].profile == .espPoint)
        #expect(rig.boards[1].virtual.batteryPercent == 50)
    }
}

@Suite("notifications suite options")
struct NotificationsSuiteOptionsTests {
    static func suite(_ options: String) throws -> (NotificationsSuite, RigDiagnostics) {
        let rig = try RigTesting.load(
            ["rig: t", "radio: virtual", "boards: [{id: b, profile: esp-point}]", "suites: [{notifications: \(options)}]"]
                .joined(separator: "\n"))
        let diagnostics = RigDiagnostics()
        var reader = try #require(rig.suites[0].optionsReader(diagnostics: diagnostics))
        return (NotificationsSuite(options: &reader), diagnostics)
    }

    @Test("an esp-point's interval after the suite is the contract's default unless the rig says otherwise")
    func intervalAfter() throws {
        #expect(try Self.suite("{}").0.intervalAfter == EspPoint.defaultSampleInterval)
        #expect(try Self.suite("{interval_after_s: 600}").0.intervalAfter == 600)
        let (_, diagnostics) = try Self.suite("{interval_after_s: 0}")
        let error = try #require(throws: RigFileError.self) { try diagnostics.throwIfAny(file: "rig.yaml") }
        #expect(error.issues.map(\.description) == ["rig.yaml:4:45: 'interval_after_s' must be between 1 and 86400, found 0"])
    }
}

import BLECore
import BenchCore
import Benches
import CentralStack
import Testing

@testable import Orchestrator

@Suite("Radio specs and opening a radio")
struct RadioSpecTests {
    @Test(
        "the forms parse, and print back as written",
        arguments: [
            ("virtual:rigs/virtual.yaml", RadioSpec.virtual(rigFile: "rigs/virtual.yaml"), "virtual:rigs/virtual.yaml"),
            ("tcp:127.0.0.1:6402", .hci(.tcp(host: "127.0.0.1", port: 6402)), "tcp:127.0.0.1:6402"),
            (
                "uart:/dev/ttyACM0@115200", .hci(.uart(path: "/dev/ttyACM0", baud: 115_200, flowControl: .rtsCts)),
                "uart:/dev/ttyACM0@115200"
            ),
            (
                "uart:/dev/ttyUSB0", .hci(.uart(path: "/dev/ttyUSB0", baud: 1_000_000, flowControl: .rtsCts)),
                "uart:/dev/ttyUSB0@1000000"
            ),
            ("hci-user:0", .hci(.hciUser(adapter: 0)), "hci-user:0"),
            ("hci-user:hci1", .hci(.hciUser(adapter: 1)), "hci-user:1"),
            ("bluez:hci0", .bluez(adapter: 0), "bluez:hci0"),
            ("bluez:2", .bluez(adapter: 2), "bluez:hci2"),
        ])
    func parses(text: String, spec: RadioSpec, printed: String) throws {
        #expect(try RadioSpec.parse(text).get() == spec)
        #expect(spec.description == printed)
    }

    @Test(
        "a spec that does not parse says what is wrong",
        arguments: [
            ("bogus", "radio 'bogus' has no kind (expected virtual:RIG.yaml, tcp:HOST:PORT"),
            ("virtual:", "radio 'virtual:' needs a rig file"),
            ("hci-user:eth0", "'eth0' is not an adapter; write hci-user:0 or hci-user:hci0"),
            ("tcp:localhost", "has no port; write tcp:HOST:PORT"),
            ("user:hci0", "unknown radio kind 'user'"),
            ("bluetooth:0", "unknown radio kind 'bluetooth'"),
            ("bluez:wlan0", "'wlan0' is not an adapter; write bluez:hci0 or bluez:0"),
            ("bluez:", "'' is not an adapter"),
        ])
    func rejects(text: String, message: String) {
        guard case let .failure(error) = RadioSpec.parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(error.code == .invalidSpec)
        #expect(error.exitStatus == .usage)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("virtual: opens the rig's bench with its boards on, and runs the body in virtual time")
    func opensVirtualRig() async throws {
        let (devices, elapsed) = try await RadioOpener.withCentral(
            spec: "virtual:" + RigTesting.path("rigs/virtual.yaml")
        ) { central, clock in
            let start = clock.now
            let result = await AdvertiserScan.run(central: central, duration: .seconds(2))
            return (result.devices.compactMap(\.name).sorted(), start.duration(to: clock.now))
        }
        #expect(devices == ["ESP-Point-1a2b", "ESP-Point-969e", "HRM-b6f2", "iOSArduinoBoard"])
        #expect(elapsed == .seconds(2))
    }

    @Test(
        "an HCI controller that is not there is the bench's problem (3), said plainly",
        arguments: [
            ("tcp:127.0.0.1:1", "connection refused"),
            ("hci-user:0", "Bluetooth"),
            ("bluez:hci0", "kernel has no Bluetooth"),
        ])
    func hciControllerMissing(spec: String, words: String) async throws {
        do {
            _ = try await RadioOpener.withCentral(spec: spec) { _, _ in 0 }
            Issue.record("\(spec) opened")
        } catch let error as RadioOpenError {
            #expect(error.code == .unavailable)
            #expect(error.exitStatus == .infrastructure)
            #expect(error.message.hasPrefix("radio \(spec): "), "\(error.message)")
            #expect(error.message.localizedCaseInsensitiveContains(words), "\(error.message)")
        }
    }

    @Test("virtual: with a hardware rig or a missing file is the rig file's error, with its place")
    func notAVirtualRig() async throws {
        let bench = RigTesting.path("rigs/examples/bench-bluez.yaml")
        for (path, message) in [
            (bench, "\(bench):11:8: virtual:\(bench) needs a virtual rig"), ("/nope.yaml", "/nope.yaml"),
        ] {
            do {
                _ = try await RadioOpener.withCentral(spec: "virtual:\(path)") { _, _ in 0 }
                Issue.record("\(path) opened")
            } catch let error as RadioOpenError {
                #expect(error.code == .rigFile)
                #expect(error.exitStatus == .usage)
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }
}

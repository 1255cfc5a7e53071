import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `blerig scan` and `blerig probe`, run as the real binary against rigs/virtual.yaml's simulated boards.
@Suite("blerig scan and probe command line")
struct ProbeScanCommandLineTests {
    static var radio: String { "virtual:" + RigTesting.path("rigs/virtual.yaml") }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
    }

    @Test("scan --json lists the rig's four boards seen over five virtual seconds")
    func scanJSON() async throws {
        let outcome = try await CommandLineTests.blerig(["scan", "--radio", Self.radio, "--duration", "5", "--json"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.isEmpty)
        let document = try Self.object(outcome.output)
        #expect(document["duration_s"] as? Double == 5)
        #expect(document["interrupted"] as? Bool == false)
        let devices = try #require(document["devices"] as? [[String: Any]])
        #expect(
            devices.compactMap { $0["name"] as? String }.sorted() == [
                "ESP-Point-1a2b", "ESP-Point-969e", "HRM-b6f2", "iOSArduinoBoard",
            ])
        let esp = try #require(devices.first { $0["address"] as? String == "24:0A:C4:12:1A:2B" })
        #expect(esp["address_type"] as? String == "public")
        #expect(esp["connectable"] as? Bool == true)
        #expect((esp["reports"] as? Int).map { (40...47).contains($0) } == true, "\(esp)")
        #expect((esp["manufacturer_data"] as? [[String: Any]])?.first?["company_id"] as? Int == 0xFFFF)
        // nano-01 advertises at rssi_dbm -70 in the rig.
        #expect(devices.last?["name"] as? String == "iOSArduinoBoard")
        #expect(devices.last?["rssi_max"] as? Int == -70)
    }

    @Test("scan prints a table and a summary line")
    func scanText() async throws {
        let outcome = try await CommandLineTests.blerig(["scan", "--radio", Self.radio, "--duration", "2s"])
        #expect(outcome.status == 0)
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ADDRESS            TYPE    RSSI  MAX  REPORTS  CONN  NAME") == true)
        #expect(lines.count == 6)
        #expect(lines.last?.hasPrefix("4 advertisers, ") == true && lines.last?.hasSuffix(" in 2.000 s") == true)
    }

    @Test("probe --json by name prints the esp-point's whole table and closes the link")
    func probeJSON() async throws {
        let outcome = try await CommandLineTests.blerig(["probe", "--radio", Self.radio, "ESP-Point-1a2b", "--json"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.isEmpty)
        let document = try Self.object(outcome.output)
        #expect(document["complete"] as? Bool == true)
        #expect(document["mtu"] as? Int == 247)
        #expect(document["disconnect_reason"] as? String == "0x16 (connection terminated by local host)")
        #expect((document["device"] as? [String: Any])?["address"] as? String == "24:0A:C4:12:1A:2B")
        let services = try #require(document["services"] as? [[String: Any]])
        #expect(
            services.map { $0["name"] as? String } == [
                "Generic Attribute", "Device Information", "Battery", "esp-point Sensor", "esp-point Command",
                "esp-point OTA",
            ])
        let characteristics = services.flatMap { $0["characteristics"] as? [[String: Any]] ?? [] }
        #expect(characteristics.count == 16)
        for characteristic in characteristics {
            let readable = (characteristic["properties"] as? [String])?.contains("read") == true
            #expect(readable == !(characteristic["value"] is NSNull), "\(characteristic)")
        }
        let manufacturer = try #require(characteristics.first { $0["uuid"] as? String == "2A29" })
        #expect((manufacturer["value"] as? [String: Any])?["text"] as? String == "Espressif Systems")
    }

    @Test("probe by address prints the tree")
    func probeText() async throws {
        let outcome = try await CommandLineTests.blerig(["probe", "--radio", Self.radio, "24:0A:C4:5F:96:9E"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "ESP-Point-969e  24:0A:C4:5F:96:9E (public)  RSSI -55 dBm  ATT_MTU 247")
        #expect(lines.contains("    value (5 bytes): 31 2E 34 2E 32  \"1.4.2\""))
        #expect(lines.contains("    value not read: no Read property"))
        #expect(lines.last?.hasPrefix("6 services, 16 characteristics, 7 descriptors; 17 values read;") == true)
    }

    @Test("a device nobody advertises: exit 1 after --timeout, one line saying what was looked for")
    func unknownDevice() async throws {
        let outcome = try await CommandLineTests.blerig([
            "probe", "--radio", Self.radio, "ESP-Point-ffff", "--timeout", "2", "--json",
        ])
        #expect(outcome.status == 1)
        #expect(outcome.output.isEmpty)
        #expect(
            outcome.errors == "blerig: no advertisement from 'ESP-Point-ffff' within 2.000 s; is it powered, in "
                + "range and advertising? (blerig scan lists what is on the air)\n")
    }

    @Test(
        "a bad --radio is a usage error (2); a controller that is not there is the bench's (3)",
        arguments: [
            (["scan", "--radio", "bogus"], 2, "radio 'bogus' has no kind"),
            (["probe", "--radio", "virtual:", "x"], 2, "needs a rig file"),
            (["probe", "--radio", "virtual:/no/such/rig.yaml", "x"], 2, "blerig: /no/such/rig.yaml"),
            (["scan", "--radio", "tcp:127.0.0.1:1"], 3, "blerig: radio tcp:127.0.0.1:1: "),
            (["probe", "--radio", "hci-user:0", "x"], 3, "blerig: radio hci-user:0: "),
            (["scan", "--radio", "hci-user:0", "--duration", "soon"], 2, "--duration: 'soon' is not a duration"),
        ])
    func badRadio(arguments: [String], status: Int32, message: String) async throws {
        let outcome = try await CommandLineTests.blerig(arguments)
        #expect(outcome.status == status)
        #expect(outcome.errors.contains(message), "\(outcome.errors)")
        #expect(outcome.output.isEmpty)
    }

    @Test("SIGINT ends a scan early: what was seen is printed, exit 130")
    func scanInterrupted() async throws {
        let (process, output, errors) = try CommandLineTests.start([
            "scan", "--radio", Self.radio, "--duration", "86400", "--json",
        ])
        // Long enough for the signal handlers to be in place, far too short for a virtual day of scanning.
        try await Task.sleep(for: .seconds(2))
        kill(process.processIdentifier, SIGINT)
        let outcome = await CommandLineTests.finish(process, output, errors)
        #expect(outcome.status == 130)
        #expect(outcome.errors.contains("blerig: interrupted: stopping the scan"))
        let document = try Self.object(outcome.output)
        #expect(document["interrupted"] as? Bool == true)
        #expect((document["duration_s"] as? Double).map { $0 > 0 && $0 < 86400 } == true)
        #expect((document["devices"] as? [Any])?.count == 4)
    }

    @Test("--help documents the radio forms and each command's exit statuses")
    func help() async throws {
        let probe = try await CommandLineTests.blerig(["probe", "--help"])
        #expect(probe.output.contains("USAGE: blerig probe --radio <spec> <address|name> [--json] [--profile-skeleton <FILE>] [--timeout <S>]"))
        #expect(probe.output.contains("hci-user:N"))
        #expect(probe.output.contains("  1    the device was not found within --timeout"))
        let scan = try await CommandLineTests.blerig(["scan", "--help"])
        #expect(scan.output.contains("USAGE: blerig scan --radio <spec> [--duration <S>] [--json]"))
        #expect(scan.output.contains("  130  SIGINT or SIGTERM ended the scan early"))
    }
}

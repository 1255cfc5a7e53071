import BLECore
import BenchCore
import DeviceProfiles
import Foundation
import Radios
import Testing
import VirtualFarm

@testable import Benches

/// One boot for the Bluetooth tests: Bumble's link on the host (hci_link.py) with the guest's controller on a
/// virtio-serial port and a served esp-point (the virtual farm's firmware on blerig's HCI host) on the other
/// controller; in the guest, hci_vhci makes that controller the kernel's hci0, and hci_session.sh runs the real
/// blerig against the board through it: blerig's own host (hci-user:0), then the kernel's stack (bluez/, with
/// bluetoothd running), and last a bluez run whose hci0 is removed under it.
actor BluetoothSession {
    static let shared = BluetoothSession()

    struct Outcome: Sendable {
        let run: Guest.Run
        let folder: String
        let airAddress: DeviceAddress

        func file(_ name: String) -> String {
            (try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)) ?? ""
        }

        func status(_ name: String) -> Int? { Int(file("\(name).rc").trimmingCharacters(in: .whitespacesAndNewlines)) }

        func json(_ name: String) throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(file("\(name).out").utf8))
            guard let document = object as? [String: Any] else {
                throw KernelTierFailure("\(name).out is not a JSON object: \(file("\(name).out").prefix(500))")
            }
            return document
        }
    }

    static let boardAddress = DeviceAddress(0x24_0A_C4_12_1A_2B, kind: .public)
    static var deviceName: String { EspPoint.advertisedName(for: boardAddress) }
    /// A second served esp-point, for the kernel path's several links at once (each board on its own controller).
    static let secondAddress = DeviceAddress(0x24_0A_C4_12_3C_4D, kind: .public)
    static var deviceNames: [String] { [boardAddress, secondAddress].map(EspPoint.advertisedName(for:)) }

    private var session: Task<Outcome, any Error>?

    func outcome() async throws -> Outcome {
        if session == nil { session = Task { try await Self.run() } }
        return try await session!.value
    }

    private static func run() async throws -> Outcome {
        try KernelTierEnvironment.require()
        let python = "\(KernelTierEnvironment.interopVenv)/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw KernelTierFailure("\(python) is missing: run make interop-deps (Bumble is the host side of hci_vhci)")
        }
        let folder = Guest.folder("bluetooth")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let socket = "\(folder)/hci.sock"
        let link = try await HostPeer.start("hci_link.py", python: python, ["--guest-socket", socket])
        do {
            let controller = try HCITransportSpec.parse(try link.field("peer_hci"))
            let boards = [("esp-01", boardAddress), ("esp-02", secondAddress)].map { id, address in
                VirtualBenchConfiguration.Board(
                    id: id, profile: .espPoint, settings: VirtualBoardSettings(address: address))
            }
            let outcome = try await ServedFarm.run(
                boards: boards, seed: 14, controller: controller, clock: WallClock()
            ) { (boards: [BenchBoard]) async throws -> Outcome in
                guard let airAddress = boards[0].match.address else {
                    throw KernelTierFailure("a served board has an address")
                }
                var consoles: [any BoardConsole] = []
                for board in boards {
                    guard let power = board.power, let console = board.console else {
                        throw KernelTierFailure("a served board has a power switch and a console")
                    }
                    try await power.on()
                    consoles.append(console)
                }
                // The bluez scripts ask for `pair` on the boards' consoles before each run that pairs anew.
                let relay = ServedConsoleRelay.start(folder: "\(folder)/bluez", consoles: consoles)
                defer { relay.cancel() }
                var guest = Guest()
                guest.ports = [("hci", socket)]
                guest.environment = ["BLERIG_DOCTOR_COMMAND": BlerigCommands.doctor]
                // The kernel path's session (two runs of three suites) doubles the guest's work.
                guest.timeout = .seconds(600)
                let run = try await guest.run(
                    "\(KernelTierEnvironment.scripts)/guest/hci_session.sh \(folder) \(KernelTierEnvironment.blerig) "
                        + deviceNames.joined(separator: " "),
                    folder: folder)
                for board in boards { try await board.power?.off() }
                return Outcome(run: run, folder: folder, airAddress: airAddress)
            }
            await link.stop()
            guard outcome.run.status == 0 else {
                throw KernelTierFailure(
                    "the Bluetooth session failed: \(outcome.run)\n\(outcome.run.consoleTail)\n"
                        + "vhci bridge: \(outcome.file("vhci.log"))\n\(link.stderrTail)")
            }
            print(
                "kernel-tier bluetooth: boot \(outcome.run.bootSeconds ?? -1) s, session \(outcome.run.commandSeconds ?? -1) s; "
                    + "guest uptime at each step: "
                    + outcome.file("times.txt").split(separator: "\n").joined(separator: ", "))
            return outcome
        } catch {
            await link.stop()
            throw error
        }
    }
}

extension KernelTier {
    @Suite struct BluetoothTests {
        @Test func blerigScanOnHciUserZeroInTheGuestFindsTheServedEspPoint() async throws {
            let outcome = try await BluetoothSession.shared.outcome()
            #expect(outcome.file("adapters.out").contains("hci0"), "blerig adapters: \(outcome.file("adapters.out"))")
            #expect(outcome.status("scan") == 0, "blerig scan: \(outcome.file("scan.err"))")
            let scan = try outcome.json("scan")
            let devices = scan["devices"] as? [[String: Any]] ?? []
            let found = devices.first { ($0["address"] as? String)?.uppercased() == "E4:0A:C4:12:1A:2B" }
            let device = try #require(found, "the esp-point's air address is not among \(devices)")
            #expect(device["address_type"] as? String == "random")
            #expect(device["name"] as? String == BluetoothSession.deviceName)
            #expect(device["connectable"] as? Bool == true)
            print("kernel-tier bluetooth: scan found \(devices.count) device(s) after \(outcome.file("scan.attempts").trimmingCharacters(in: .whitespacesAndNewlines)) attempt(s)")
        }

        @Test func blerigProbeOnHciUserZeroInTheGuestWalksTheServedEspPointsWholeTable() async throws {
            let outcome = try await BluetoothSession.shared.outcome()
            #expect(outcome.status("probe") == 0, "blerig probe: \(outcome.file("probe.err"))")
            let probe = try outcome.json("probe")
            #expect(probe["complete"] as? Bool == true, "\(probe)")
            #expect(probe["mtu"] as? Int == 247)
            let services = probe["services"] as? [[String: Any]] ?? []
            let uuids = Set(services.compactMap { ($0["uuid"] as? String)?.lowercased() })
            for service in [EspPoint.sensorService, EspPoint.commandService, EspPoint.otaService] {
                #expect(uuids.contains("\(service)".lowercased()), "\(service) is not among \(uuids)")
            }
            let characteristics = services.flatMap { $0["characteristics"] as? [[String: Any]] ?? [] }
            let characteristicUUIDs = Set(characteristics.compactMap { ($0["uuid"] as? String)?.lowercased() })
            for characteristic in [EspPoint.reading, EspPoint.command, EspPoint.otaControl] {
                #expect(characteristicUUIDs.contains("\(characteristic)".lowercased()))
            }
        }

        /// The kernel's own stack (`radio: {kind: bluez}`: mgmt, L2CAP ATT sockets) with bluetoothd running, then
        /// blerig's own host (`hci-user:0`) on the same hci0: both pass discovery, handshake and commands on the
        /// esp-point; their handshake numbers side by side.
        @Test func kindBluezAndHciUserZeroBothPassDiscoveryHandshakeAndCommandsOnTheServedEspPoint() async throws {
            let outcome = try await BluetoothSession.shared.outcome()
            let bluez = "bluez"
            print(
                "kernel-tier bluez: bluetoothd \(outcome.file("\(bluez)/bluetoothd.state"))"
                    + outcome.file("\(bluez)/adapter.txt")
                + "bluez:hci0 while hci-user:0 holds it: \(outcome.file("\(bluez)/bluez-held.err"))")
            print("kernel-tier bluez:\n\(outcome.file("\(bluez)/handshake.txt"))")
            print("kernel-tier bluez: guest uptime at each step: "
                + outcome.file("\(bluez)/times.txt").split(separator: "\n").joined(separator: ", "))
            #expect(outcome.status("bluez") == 0, "bluez_session.sh: \(outcome.file("bluez.err"))")
            // hci0 held through the user channel: bluez:hci0 says so and points to hci-user:0.
            let adapter = outcome.file("\(bluez)/adapter.txt")
            #expect(adapter.contains("hci0 while hci-user:0 scans: UP RUNNING"), "\(adapter)")
            #expect(outcome.status("\(bluez)/bluez-held") == 3, "\(outcome.file("\(bluez)/bluez-held.err"))")
            let held = outcome.file("\(bluez)/bluez-held.err")
            #expect(held.contains("another program holds it through the HCI user channel"), "\(held)")
            #expect(held.contains("hci-user:0"), "\(held)")
            // hci0 down: blerig powered it on through mgmt.
            #expect(adapter.contains("hci0 before bluez-scan: DOWN"), "\(adapter)")
            #expect(adapter.contains("hci0 after bluez-scan: UP RUNNING"), "\(adapter)")
            // bluetoothd ran beside blerig from then on and had hci0 (make kernel-deps installs Debian's bluez).
            #expect(outcome.file("\(bluez)/bluetoothd.state").hasPrefix("running"))
            #expect(outcome.file("\(bluez)/bluetoothd.log").contains("Adapter /org/bluez/hci0 registered"))

            #expect(outcome.status("\(bluez)/bluez-scan") == 0, "\(outcome.file("\(bluez)/bluez-scan.err"))")
            let scan = try outcome.json("\(bluez)/bluez-scan")
            let devices = scan["devices"] as? [[String: Any]] ?? []
            let found = devices.first { ($0["address"] as? String)?.uppercased() == "E4:0A:C4:12:1A:2B" }
            let device = try #require(found, "bluez scan: the esp-point's air address is not among \(devices)")
            #expect(device["name"] as? String == BluetoothSession.deviceName)
            #expect(outcome.status("\(bluez)/bluez-probe") == 0, "\(outcome.file("\(bluez)/bluez-probe.err"))")
            let probe = try outcome.json("\(bluez)/bluez-probe")
            #expect(probe["complete"] as? Bool == true)
            #expect(probe["mtu"] as? Int == 247)

            for run in ["bluez-run", "hci-user-run"] {
                let output = outcome.file("\(bluez)/\(run).out").suffix(3000)
                #expect(outcome.status("\(bluez)/\(run)") == 0, "\(run): \(output)")
                // Both boards at once, each on its own link.
                let cases = try JUnitCases(folder: "\(outcome.folder)/\(bluez)/\(run)")
                for board in ["esp-01", "esp-02"] {
                    for suite in ["discovery", "handshake", "commands"] {
                        let checks = cases.cases.filter { $0.board == board && $0.suite == suite }
                        #expect(!checks.isEmpty, "\(run): no \(board) \(suite) checks in junit.xml")
                        for check in checks {
                            #expect(check.outcome == "passed", "\(run): \(check)")
                        }
                    }
                }
                let counts = cases.properties("handshake.connect_ms.count").compactMap(Double.init)
                #expect(counts.count == 2 && counts.allSatisfy { $0 >= 10 }, "\(run): \(counts)")
            }
        }

        /// hci0 removed under a `kind: bluez` run (the process holding /dev/vhci killed while preflight scans for a
        /// board nobody hears): the run stops as an infrastructure failure of the radio, exit 3, and no check is
        /// blamed on the board, not even the one it had not yet heard.
        @Test func aBlueZAdapterRemovedUnderTheRunIsTheRadiosInfrastructureFailure() async throws {
            let outcome = try await BluetoothSession.shared.outcome()
            let out = outcome.file("bluez/fault-run.out")
            print("kernel-tier bluez, hci0 removed under the run:\n\(out.suffix(2500))")
            #expect(outcome.file("bluez/times.txt").contains("hci0-gone yes"), "\(outcome.file("bluez/times.txt"))")
            #expect(outcome.status("bluez/fault-run") == 3, "\(out)\(outcome.file("bluez/fault-run.err"))")
            let cases = try JUnitCases(folder: "\(outcome.folder)/bluez/fault-run")
            let broken = cases.cases.filter { $0.outcome != "passed" && !$0.outcome.hasPrefix("skipped") }
            #expect(!broken.isEmpty, "no check ended by the removal: \(cases.cases)")
            for check in broken {
                #expect(check.outcome.hasPrefix("error infrastructure"), "\(check)")
                #expect(check.outcome.contains("radio 'radio' (bluez hci0) failed"), "\(check)")
                #expect(check.outcome.contains("hci0 was removed under the run (mgmt Index Removed)"), "\(check)")
            }
        }

        /// Debian's 6.1.192 BUGs on an L2CAP socket closed after its link went down (docs/radios.md); it killed a
        /// blerig thread and hung the guest in two runs of the tier on 2026-11-27. Over the whole session (the probe
        /// and a run of two boards through the kernel's stack, some forty links, each ended by blerig), the guest's
        /// kernel reports no BUG and no oops.
        @Test func theGuestKernelReportsNoBugOverTheSession() async throws {
            let outcome = try await BluetoothSession.shared.outcome()
            let console = outcome.file("console.log")
            #expect(!console.isEmpty, "no console.log in \(outcome.folder)")
            let markers = ["kernel BUG at", "BUG: ", "Oops", "general protection fault", "list_del corruption"]
            let reports = console.split(separator: "\n").filter { line in markers.contains { line.contains($0) } }
            #expect(reports.isEmpty, "the guest's kernel: \(reports.prefix(10).joined(separator: "\n"))")
        }

        /// `blerig doctor` in the guest, on Debian's kernel: hci0 (hci_vhci), dummy_hcd's root hub and the gadget's
        /// ttyACM0, and every binding of the rig resolved, so it exits 0.
        @Test func blerigDoctorInTheGuestReportsTheAdapterTheHubAndThePort() async throws {
            let outcome = try await BluetoothSession.shared.outcome()
            let report = outcome.file("doctor.out")
            print("kernel-tier blerig doctor:\n\(report)\(outcome.file("doctor.err"))")
            #expect(outcome.status("doctor") == 0, "\(report)\(outcome.file("doctor.err"))")
            #expect(report.contains("[ok] the kernel has Bluetooth: socket(AF_BLUETOOTH) opens"), "\(report)")
            #expect(report.contains("[ok] adapter hci0"), "\(report)")
            #expect(report.contains("[ok] hub 1 (1 port): per-port power switching"), "\(report)")
            #expect(report.contains("[ok] /dev/ttyACM0 usb:1-1:"), "\(report)")
            #expect(report.contains("[ok] radio 'radio'"), "\(report)")
            #expect(report.contains("[ok] board 'esp-01' serial /dev/ttyACM0"), "\(report)")
            #expect(report.contains("[ok] board 'esp-01' power hub 1 port 1"), "\(report)")
            #expect(!report.contains("[problem]"), "\(report)")
        }
    }
}

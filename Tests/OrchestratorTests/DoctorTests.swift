import BoardControl
import Foundation
import Glibc
import Testing

@testable import Benches

/// `blerig doctor` against fake hosts built in a temporary directory: what it reports, and that each problem
/// comes with its fix.
@Suite("blerig doctor")
struct DoctorTests {
    static func findings(_ report: DoctorReport, _ level: DoctorReport.Level) -> [DoctorReport.Finding] {
        report.findings.filter { $0.level == level }
    }

    static func text(_ report: DoctorReport) -> String { report.lines.joined(separator: "\n") }

    @Test func aKernelWithoutBluetoothAndWithoutUSBSaysSoWithWhatToDo() throws {
        let machine = DoctorFakeHost()
        machine.socketError = EAFNOSUPPORT
        let report = try Doctor.examine(rigFile: nil, host: machine.host)
        let problems = Self.findings(report, .problem)
        let bluetooth = try #require(problems.first { $0.text.contains("this kernel has no Bluetooth") }, "\(Self.text(report))")
        #expect(bluetooth.text.contains("EAFNOSUPPORT") && bluetooth.text.contains("no /sys/class/bluetooth"))
        #expect(bluetooth.fix?.contains("modprobe bluetooth") == true)
        let usb = try #require(problems.first { $0.text.contains("there is no USB bus here") }, "\(Self.text(report))")
        #expect(usb.fix?.contains("--device /dev/bus/usb") == true)
        #expect(!report.hasUnresolvedBindings)
        #expect(report.lines.last == "2 problems, 3 warnings")
    }

    @Test func adaptersSayWhetherUpOrHeldAndWhoHasHCISockets() throws {
        let machine = DoctorFakeHost()
        machine.adapters = [
            DoctorFakeHost.adapter(0, up: true, running: true), DoctorFakeHost.adapter(1, up: false, running: true),
            DoctorFakeHost.adapter(2, up: false, running: false),
        ]
        machine.file("proc/net/hci", "sk RefCnt Rmem Wmem User Inode Parent\nffff 2 0 0 0 5551 0\n")
        machine.process(120, ["/usr/libexec/bluetooth/bluetoothd"])
        machine.process(200, ["/opt/blerig/blerig", "scan", "--radio", "hci-user:1"], fds: ["socket:[5551]"])
        let report = try Doctor.examine(rigFile: nil, host: machine.host)
        let text = Self.text(report)
        #expect(text.contains("[ok] adapter hci0  00:1A:7D:DA:71:10  USB  up running  LE: up, managed by bluetoothd"), "\(text)")
        #expect(text.contains("hci1") && text.contains("held through the HCI user channel (HCI sockets open in pid 200)"))
        #expect(text.contains("hci2  00:1A:7D:DA:71:12  USB  down  LE: down and free: ready for hci-user:2"))
        #expect(text.contains("bluetoothd runs (pid 120)"))
        #expect(text.contains("Bluetooth HCI sockets are open in pid 200 (blerig scan --radio hci-user:1)"))
    }

    @Test func aSerialPortHeldByAnotherProgramNamesItAndTheFix() throws {
        let machine = DoctorFakeHost()
        machine.usbDevice("1", vendor: "1d6b", product: "0002", hub: 4)
        let board = machine.usbDevice("1-3", vendor: "303a", product: "1001", serial: "F4:12")
        machine.acm("ttyACM0", at: "1-3", device: board)
        machine.process(300, ["minicom", "-D", "/dev/ttyACM0"], fds: [machine.path("dev/ttyACM0")])
        let report = try Doctor.examine(rigFile: nil, host: machine.host)
        let held = try #require(report.findings.first { $0.text.contains("ttyACM0") }, "\(Self.text(report))")
        #expect(held.level == .warning)
        #expect(held.text.contains("usb:1-3:1.0 id:303a:1001 serial:F4:12"))
        #expect(held.text.contains("held by pid 300 (minicom -D /dev/ttyACM0)"))
        #expect(held.fix?.contains("close it") == true)
    }

    @Test func hubsSayWhetherTheySwitchPortsOneByOne() throws {
        let machine = DoctorFakeHost()
        machine.usbDevice("1", vendor: "1d6b", product: "0002", hub: 2)
        machine.usbDevice("1-1", vendor: "2109", product: "2817", hub: 4)
        machine.usbDevice("1-2", vendor: "05e3", product: "0608", hub: 4)
        machine.hubDescriptors = [
            "1": DoctorFakeHost.hubDescriptor(ports: 2, characteristics: 0x0001),
            "1-1": DoctorFakeHost.hubDescriptor(ports: 4, characteristics: 0x00A9),
        ]
        let report = try Doctor.examine(rigFile: nil, host: machine.host)
        let text = Self.text(report)
        #expect(text.contains("[ok] hub 1 (2 ports): per-port power switching; switched through the ports' sysfs disable files"), "\(text)")
        #expect(text.contains("[ok] hub 1-1 (4 ports): per-port power switching"))
        // No descriptor for 1-2: usbfs refused (EACCES), and the fix names the udev rules.
        let unknown = try #require(report.findings.first { $0.text.hasPrefix("hub 1-2") })
        #expect(unknown.level == .warning && unknown.fix?.contains("99-blerig.rules") == true)
    }

    @Test func gangedHubIsReportedAndARigPortOnItDoesNotResolve() throws {
        let machine = DoctorFakeHost()
        machine.usbDevice("1", vendor: "1d6b", product: "0002", hub: 1)
        machine.usbDevice("1-1", vendor: "05e3", product: "0608", hub: 4)
        machine.hubDescriptors = [
            "1": DoctorFakeHost.hubDescriptor(ports: 1, characteristics: 0x0001),
            "1-1": DoctorFakeHost.hubDescriptor(ports: 4, characteristics: 0x0000),
        ]
        let rig = try Self.rig(in: machine, boards: "  - {id: a, profile: esp-point, match: {name: A}, power: {hub: \"1-1\", port: 2}}")
        let report = try Doctor.examine(rigFile: rig, host: machine.host)
        let text = Self.text(report)
        #expect(text.contains("hub 1-1 (4 ports): ganged power switching (all ports at once)"), "\(text)")
        let binding = try #require(report.findings.first { $0.text.contains("board 'a' power hub 1-1 port 2") })
        #expect(binding.unresolvedBinding && binding.fix?.contains("per-port power switching") == true)
    }

    @Test func aRigsBindingsResolveOrMakeTheDoctorFail() throws {
        let machine = DoctorFakeHost()
        machine.adapters = [DoctorFakeHost.adapter(0, up: true, running: true)]
        machine.usbDevice("1", vendor: "1d6b", product: "0002", hub: 4)
        machine.hubDescriptors = ["1": DoctorFakeHost.hubDescriptor(ports: 4, characteristics: 0x0001)]
        let board = machine.usbDevice("1-3", vendor: "303a", product: "1001", serial: "F4:12")
        machine.acm("ttyACM0", at: "1-3", device: board)
        let good = """
              - {id: esp-01, profile: esp-point, match: {name: A}, serial: {port: /dev/ttyACM0}, power: {hub: "1", port: 3}}
              - {id: esp-02, profile: esp-point, match: {name: B}, serial: {port: "serial:F4:12"}}
            """
        let resolved = try Doctor.examine(rigFile: try Self.rig(in: machine, boards: good), host: machine.host)
        #expect(!resolved.hasUnresolvedBindings, "\(Self.text(resolved))")
        let text = Self.text(resolved)
        #expect(text.contains("[ok] radio 'radio' (3:8): hci0"), "\(text)")
        #expect(text.contains("board 'esp-01' serial /dev/ttyACM0 (6:64) → \(machine.path("dev/ttyACM0")) usb:1-3:1.0"))
        #expect(text.contains("[ok] board 'esp-01' power hub 1 port 3 (6:93): per-port power switching"))

        let bad = """
              - {id: esp-01, profile: esp-point, match: {name: A}, serial: {port: "serial:NOPE"}, power: {hub: "2-1", port: 1}}
            """
        let failed = try Doctor.examine(
            rigFile: try Self.rig(in: machine, boards: bad, radio: "{kind: hci, transport: \"hci-user:3\"}"),
            host: machine.host)
        let unresolved = failed.findings.filter(\.unresolvedBinding)
        #expect(unresolved.count == 3, "\(Self.text(failed))")
        #expect(unresolved.allSatisfy { $0.fix != nil })
        #expect(unresolved.contains { $0.text.contains("adapter hci3 does not exist (adapters here: hci0)") })
        #expect(unresolved.contains { $0.text.contains("serial:NOPE") && $0.text.contains("no serial port answers") })
        #expect(unresolved.contains { $0.text.contains("no USB hub at 2-1 (hubs here: 1)") })
        #expect(failed.lines.last?.hasSuffix("3 rig bindings not resolved") == true)
    }

    @Test func aRigThatDoesNotLoadIsAnError() throws {
        let machine = DoctorFakeHost()
        machine.file("bad.yaml", "rig: x\nradio: {kind: warp}\n")
        #expect(throws: Doctor.RigError.self) { try Doctor.examine(rigFile: machine.path("bad.yaml"), host: machine.host) }
    }

    @Test func missingCapabilitiesAndUdevRulesAreWarningsWithTheirFix() throws {
        let machine = DoctorFakeHost()
        let report = try Doctor.examine(rigFile: nil, host: machine.host)
        let warnings = Self.findings(report, .warning)
        #expect(warnings.contains { $0.text.contains("lacks CAP_NET_ADMIN and CAP_NET_RAW") && $0.fix?.contains("setcap") == true })
        #expect(warnings.contains { $0.text.contains("/opt/blerig/blerig has no file capabilities") })
        #expect(warnings.contains { $0.text.contains("99-blerig.rules is not installed") && $0.fix?.contains("udevadm") == true })
    }

    @Test func grantedCapabilitiesAndTheShippedRulesAreOK() throws {
        let machine = DoctorFakeHost()
        machine.file("proc/self/status", "CapEff:\t0000000000003000\n")
        // getcap: cap_net_admin,cap_net_raw=ep (VFS_CAP_REVISION_2, effective flag, permitted 0x3000).
        machine.fileCapabilities = FileCapabilities(xattr: [0x01, 0, 0, 0x02, 0, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        machine.file("ci/99-blerig.rules", "SUBSYSTEM==\"tty\"\n")
        machine.file("etc/udev/rules.d/99-blerig.rules", "SUBSYSTEM==\"tty\"\n")
        var report = try Doctor.examine(rigFile: nil, host: machine.host)
        let oks = Self.findings(report, .ok).map(\.text)
        #expect(oks.contains("this process has CAP_NET_ADMIN and CAP_NET_RAW (hci-user:N)"))
        #expect(oks.contains("/opt/blerig/blerig carries cap_net_admin,cap_net_raw=ep (getcap)"))
        #expect(oks.contains { $0.hasSuffix("99-blerig.rules is installed and matches \(machine.path("ci/99-blerig.rules"))") })
        machine.file("etc/udev/rules.d/99-blerig.rules", "SUBSYSTEM==\"usb\"\n")
        report = try Doctor.examine(rigFile: nil, host: machine.host)
        #expect(Self.findings(report, .warning).contains { $0.text.contains("differs from the shipped") })
    }

    static func rig(in machine: DoctorFakeHost, boards: String, radio: String = "{kind: bluez, adapter: hci0}") throws
        -> String
    {
        let text = "rig: doctor-test\n\nradio: \(radio)\n\nboards:\n\(boards)\n\nsuites:\n  - discovery\n"
        machine.file("rig.yaml", text)
        return machine.path("rig.yaml")
    }
}

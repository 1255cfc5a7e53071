import BLECore
import BenchCore
import Glibc
import Testing

@testable import Radios

struct BlueZCallFailure: Sendable, CustomTestStringConvertible {
    var call: BlueZFailure.Call
    var errno: Int32
    var code: HCITransportError.Code
    var words: [String]
    var fix: String?
    var testDescription: String { "\(call.rawValue) fails with \(Errno(errno).name)" }
}

private let setcap = BlueZFailure.capabilityFix("/usr/bin/blerig")
private let board = DeviceAddress(0xE4_0A_C4_12_1A_2B, kind: .random)

private let callFailures = [
    BlueZCallFailure(
        call: .controlSocket, errno: EAFNOSUPPORT, code: .unavailable,
        words: ["kernel has no Bluetooth", "EAFNOSUPPORT"],
        fix: "load it with `sudo modprobe bluetooth`, or boot a kernel built with CONFIG_BT; "
            + "in a container, the host's kernel must provide it"),
    BlueZCallFailure(
        call: .l2capSocket, errno: EPROTONOSUPPORT, code: .unavailable, words: ["lacks LE L2CAP sockets"],
        fix: "load it with `sudo modprobe bluetooth`, or boot a kernel built with CONFIG_BT and CONFIG_BT_LE"),
    BlueZCallFailure(
        call: .bindControl, errno: EPERM, code: .permission,
        words: ["refused blerig bind(HCI_CHANNEL_CONTROL) on hci0", "EPERM"], fix: setcap),
    BlueZCallFailure(
        call: .security, errno: EACCES, code: .permission, words: ["setsockopt(BT_SECURITY)", "EACCES"], fix: setcap),
    BlueZCallFailure(
        call: .connect, errno: EBUSY, code: .busy,
        words: ["bluetoothd", "already holds the ATT channel of hci0's link to E4:0A:C4:12:1A:2B"],
        fix: "`bluetoothctl disconnect E4:0A:C4:12:1A:2B`, and stop bluetoothd connecting to it: `bluetoothctl "
            + "remove E4:0A:C4:12:1A:2B` (or untrust it)"),
    BlueZCallFailure(
        call: .bindATT, errno: EBUSY, code: .busy, words: ["hci0 is busy"], fix: "wait for the other user, or retry"),
    BlueZCallFailure(
        call: .connect, errno: ENETDOWN, code: .unavailable, words: ["hci0 is down or gone", "ENETDOWN"],
        fix: "`sudo btmgmt --index 0 power on`; `blerig adapters` shows what the kernel sees"),
    BlueZCallFailure(
        call: .bindATT, errno: ENODEV, code: .unavailable, words: ["hci0 is down or gone", "ENODEV"],
        fix: "`sudo btmgmt --index 0 power on`; `blerig adapters` shows what the kernel sees"),
    BlueZCallFailure(call: .mtus, errno: EINVAL, code: .io, words: ["getsockopt(BT_SNDMTU, BT_RCVMTU) failed"]),
]

@Suite("Each failure of the kernel path says what to do")
struct BlueZFailureTests {
    @Test("a system call's errno becomes a message with its fix", arguments: callFailures)
    func callFailure(failure: BlueZCallFailure) {
        let error = BlueZFailure.call(
            failure.call, Errno(failure.errno), adapter: 0, peer: board, executable: "/usr/bin/blerig")
        #expect(error.code == failure.code)
        for word in failure.words { #expect(error.message.contains(word), "\(error.message)") }
        #expect(error.fix == failure.fix)
    }

    @Test(
        "a mgmt status becomes a message with its fix",
        arguments: [
            (Mgmt.Status.permissionDenied, HCITransportError.Code.permission, "needs CAP_NET_ADMIN", setcap),
            (.rfkilled, .unavailable, "blocked by rfkill", "`sudo rfkill unblock bluetooth`"),
            (.notPowered, .unavailable, "hci0 is powered off", "`sudo btmgmt --index 0 power on`"),
            (.busy, .busy, "hci0 is busy", "another program is changing it (bluetoothd, btmgmt): retry, or stop that program"),
        ])
    func commandFailure(status: Mgmt.Status, code: HCITransportError.Code, words: String, fix: String) {
        let error = BlueZFailure.command(
            MgmtCommandError(opcode: .setPowered, index: 0, failure: .status(status)), adapter: 0,
            executable: "/usr/bin/blerig")
        #expect(error.code == code)
        #expect(error.message.contains(words), "\(error.message)")
        #expect(error.fix == fix)
    }

    @Test("an adapter held through the HCI user channel points to hci-user:N, not bluez")
    func heldByUserChannel() {
        let error = BlueZFailure.missing(0, existing: [0], managed: [])
        #expect(error.code == .busy)
        #expect(error.message.contains("holds it through the HCI user channel (blerig with hci-user:0"))
        #expect(error.fix?.contains("`hci-user:0` instead of `bluez:hci0`") == true)
    }

    @Test("a missing adapter names the ones there are, or says there are none")
    func missingAdapter() {
        #expect(BlueZFailure.missing(2, existing: [0, 1], managed: [0, 1]).message
            == "adapter hci2 does not exist; the adapters here are hci0, hci1")
        #expect(BlueZFailure.missing(2, existing: [0, 1], managed: [0, 1]).fix?.contains("bluez:hci0") == true)
        #expect(BlueZFailure.missing(0, existing: [], managed: []).message.contains("no Bluetooth adapter"))
    }

    /// The real system call on this machine, whose kernel has no Bluetooth.
    @Test(
        "on a kernel without Bluetooth, opening bluez:hci0 says so and how to fix it",
        .enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func realKernelWithoutBluetooth() async throws {
        #expect(throws: Errno(EAFNOSUPPORT)) { try SystemBlueZSockets().openControlSocket() }
        #expect(throws: Errno(EAFNOSUPPORT)) { try SystemBlueZSockets().openL2CAPSocket() }
        do {
            _ = try await BlueZCentral.open(adapter: 0)
            Issue.record("opened hci0 on a kernel without Bluetooth")
        } catch {
            #expect(error.code == .unavailable)
            #expect(
                error.message
                    == "this machine's kernel has no Bluetooth: socket(AF_BLUETOOTH) failed: Address family not "
                    + "supported by protocol (EAFNOSUPPORT, errno 97)")
            #expect(error.fix?.hasPrefix("load it with `sudo modprobe bluetooth`, or boot a kernel built with CONFIG_BT") == true)
        }
    }
}

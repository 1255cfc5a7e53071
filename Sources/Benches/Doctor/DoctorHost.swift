import BoardControl
import Glibc
import Radios

/// Everything `blerig doctor` looks at, injected: the kernel's trees (sysfs, /dev, /proc, /etc), the Bluetooth
/// sockets, the hubs' usbfs requests, the executable's file capabilities. ``system`` is the host as it is; tests
/// give a temporary tree and fakes.
public struct DoctorHost: Sendable {
    public var paths: SystemPaths
    /// `/proc`: the processes that hold devices, bluetoothd, this process's capabilities and the HCI sockets.
    public var proc: String
    /// Where installed udev rules live (`/etc/udev/rules.d`).
    public var udevRulesDirectory: String
    /// The shipped rules file (`ci/udev/99-blerig.rules` in the checkout), to compare the installed one with.
    public var shippedUdevRules: String
    public var sockets: any BluetoothSockets
    public var hubControl: any HubControl
    /// The file capabilities (`getcap`) of an executable.
    public var fileCapabilities: @Sendable (String) -> FileCapabilities?
    /// The running blerig, for the `setcap` fix.
    public var executable: String
    public var userID: UInt32

    public init(
        paths: SystemPaths = SystemPaths(), proc: String = "/proc", udevRulesDirectory: String = "/etc/udev/rules.d",
        shippedUdevRules: String = UdevRules.file, sockets: any BluetoothSockets = SystemBluetoothSockets(),
        hubControl: any HubControl = UsbfsHubControl(),
        fileCapabilities: @escaping @Sendable (String) -> FileCapabilities? = FileCapabilities.read,
        executable: String = DoctorHost.currentExecutable(), userID: UInt32 = getuid()
    ) {
        self.paths = paths
        self.proc = proc
        self.udevRulesDirectory = udevRulesDirectory
        self.shippedUdevRules = shippedUdevRules
        self.sockets = sockets
        self.hubControl = hubControl
        self.fileCapabilities = fileCapabilities
        self.executable = executable
        self.userID = userID
    }

    public static var system: DoctorHost { DoctorHost() }

    public var processes: ProcFS { ProcFS(root: proc) }

    /// `/dev/ttyACM0` as written in a rig, under ``paths``' `/dev` (the same path on a host).
    func device(_ path: String) -> String {
        path.hasPrefix("/dev/") ? paths.dev + path.dropFirst(4) : path
    }

    /// The program's path from `/proc/self/exe`.
    public static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "blerig" }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Linux capabilities as bit numbers (`linux/capability.h`), and a set of them as the kernel writes it.
public struct Capabilities: Sendable, Hashable {
    public var bits: UInt64

    public init(bits: UInt64) { self.bits = bits }

    public static let netAdmin = 12
    public static let netRaw = 13

    public func contains(_ capability: Int) -> Bool { bits & (1 << UInt64(capability)) != 0 }

    /// `CapEff:\t0000003fffffffff` from `/proc/PID/status`.
    public init?(statusLine line: Substring) {
        guard let value = line.split(separator: "\t").last.flatMap({ UInt64($0, radix: 16) }) else { return nil }
        bits = value
    }
}

/// The `security.capability` extended attribute of a file, as `getcap` shows it (`cap_net_admin,cap_net_raw=ep`).
public struct FileCapabilities: Sendable, Hashable {
    public var permitted: Capabilities
    /// The effective flag: the permitted set is raised when the program starts.
    public var effective: Bool

    public init(permitted: Capabilities, effective: Bool) {
        self.permitted = permitted
        self.effective = effective
    }

    /// Reads `struct vfs_cap_data` (`linux/capability.h`): magic_etc, then permitted and inheritable for each
    /// 32-bit half; bit 0 of magic_etc is the effective flag. Nil for a file without one or too short a value.
    public init?(xattr bytes: [UInt8]) {
        guard bytes.count >= 12 else { return nil }
        func word(_ offset: Int) -> UInt64 {
            (0..<4).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
        }
        let low = word(4)
        let high = bytes.count >= 20 ? word(12) : 0
        permitted = Capabilities(bits: low | high << 32)
        effective = word(0) & 1 != 0
    }

    /// The executable's capabilities, through getxattr(2) (looked up in libc: Swift's Glibc module leaves out
    /// sys/xattr.h); nil when it has none.
    public static func read(_ path: String) -> FileCapabilities? {
        typealias GetXattr = @convention(c) (
            UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int
        ) -> Int
        guard let symbol = dlsym(nil, "getxattr") else { return nil }
        let getxattr = unsafeBitCast(symbol, to: GetXattr.self)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { getxattr(path, "security.capability", $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return FileCapabilities(xattr: Array(buffer.prefix(count)))
    }
}

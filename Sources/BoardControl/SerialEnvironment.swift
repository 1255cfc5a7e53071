/// Everything board control touches on the host, injected: the serial system calls, the process table, where
/// lock files go, and where sysfs and /dev are (a temporary tree in tests).
public struct SerialEnvironment: Sendable {
    public var system: any SerialSystem
    public var processes: any ProcessTable
    public var lockDirectories: [String]
    public var paths: SystemPaths

    public init(
        system: any SerialSystem = GlibcSerialSystem(), processes: any ProcessTable = ProcFS(),
        lockDirectories: [String] = PortLock.defaultDirectories, paths: SystemPaths = SystemPaths()
    ) {
        self.system = system
        self.processes = processes
        self.lockDirectories = lockDirectories
        self.paths = paths
    }

    /// The host as it is.
    public static let host = SerialEnvironment()
}

/// Where the kernel's trees are: `/sys` and `/dev` on a host, a temporary directory in tests.
public struct SystemPaths: Sendable, Hashable {
    public var sys: String
    public var dev: String

    public init(sys: String = "/sys", dev: String = "/dev") {
        self.sys = sys
        self.dev = dev
    }
}

/// The udev rules blerig ships for ports, hubs and the HCI user channel, named in every permission error.
public enum UdevRules {
    public static let file = "ci/udev/99-blerig.rules"
    public static let install =
        "sudo install -m 644 \(file) /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger"
}

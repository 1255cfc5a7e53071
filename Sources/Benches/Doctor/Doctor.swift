import Foundation
import Glibc
import Orchestrator

/// `blerig doctor`: what a rig host has and lacks for real boards (the kernel's Bluetooth, adapters and who holds
/// them, bluetoothd, capabilities, serial ports and who holds them, USB hubs and how they switch power, udev
/// rules), and with a rig, each of its bindings resolved on this host. Every problem comes with its fix.
public enum Doctor {
    /// Why the doctor could not examine a rig: the file does not load (exit 2).
    public struct RigError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Examines the host, and `rigFile`'s bindings when one is given.
    public static func examine(rigFile: String?, host: DoctorHost = .system) throws(RigError) -> DoctorReport {
        let rig: RigConfig?
        if let rigFile {
            do { rig = try RigFile.load(contentsOf: rigFile, knownSuites: Campaign.suiteNames) } catch {
                throw RigError(description: "\(error)")
            }
        } else {
            rig = nil
        }
        let bluetooth = bluetooth(host)
        let serial = serialPorts(host)
        let hubs = hubs(host)
        var sections = [
            DoctorReport.Section("Host", [DoctorReport.Finding(.info, hostLine(host))]), bluetooth.section,
            serial.section, hubs.section, permissions(host),
        ]
        if let rig, let rigFile {
            sections.append(
                Self.rig(rig, file: rigFile, host: host, seen: HostSeen(adapters: bluetooth.adapters, hubs: hubs.hubs)))
        }
        return DoctorReport(sections: sections)
    }

    /// `Linux 6.1.0-56-amd64 x86_64, blerig /path/to/blerig, uid 0`.
    static func hostLine(_ host: DoctorHost) -> String {
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(field(name.sysname)) \(field(name.release)) \(field(name.machine)), blerig \(host.executable), "
            + "uid \(host.userID)"
    }
}

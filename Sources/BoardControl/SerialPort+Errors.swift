import BenchCore
import Glibc

/// What each failure of a serial port means, and what to do: every message names the port.
extension SerialPort {
    static func lockFailure(_ error: PortLockError, path: String) -> BenchError {
        switch error {
        case let .held(_, lockFile, owner):
            BenchError(
                .busy,
                "serial port \(path) is in use by \(owner) (lock file \(lockFile)): stop it, or wait for it to "
                    + "finish; a lock file whose owner died is taken over")
        case .io(let error):
            BenchError(.permission, "serial port \(path): cannot take its lock: \(error)")
        }
    }

    static func openFailure(
        _ error: SystemCallError, path: String, device: String, processes: any ProcessTable
    ) -> BenchError {
        switch error.code {
        case ENOENT:
            BenchError(
                .missing,
                "no serial port \(path): is the board plugged in and powered? `ls /dev/serial/by-id/` lists the "
                    + "serial ports (blerig names them in the rig by by-id path, usb:LOCATION, serial: or id:)")
        case ENXIO, ENODEV:
            BenchError(.missing, "serial port \(path) has no device behind it (\(error.reason)): plug the board in")
        case EACCES, EPERM:
            BenchError(
                .permission,
                "no permission to open serial port \(path) (\(error.reason)): install \(UdevRules.file) "
                    + "(\(UdevRules.install)) or add the user to the dialout group, then log in again")
        case EBUSY:
            busy(path: path, device: device, processes: processes, how: "holds it exclusively (TIOCEXCL)")
        default:
            BenchError(.io, "cannot open serial port \(path): \(error)")
        }
    }

    static func configureFailure(
        _ error: SystemCallError, path: String, device: String, processes: any ProcessTable
    ) -> BenchError {
        switch error.code {
        case EWOULDBLOCK where error.call == "flock":
            busy(path: path, device: device, processes: processes, how: "has locked it (flock)")
        case ENOTTY:
            BenchError(.unsupported, "\(path) is not a serial port (\(error))")
        case EINVAL where error.call.hasPrefix("TCSETS2"):
            BenchError(
                .unsupported,
                "serial port \(path) cannot run at the baud asked for: \(error.call); choose a rate its USB "
                    + "bridge supports")
        default:
            BenchError(.io, "cannot configure serial port \(path): \(error)")
        }
    }

    private static func busy(
        path: String, device: String, processes: any ProcessTable, how: String
    ) -> BenchError {
        let holders = processes.holders(of: device).filter { $0 != processes.currentProcess }
        let who = holders.isEmpty ? "another program" : holders.map { processes.describe($0) }.joined(separator: ", ")
        return BenchError(
            .busy,
            "serial port \(path) is busy: \(who) \(how); close it (a serial monitor, ModemManager, another blerig) "
                + "and try again")
    }

    /// The port went away under a read or a write.
    func gone(_ how: String) -> BenchError {
        BenchError(
            .gone,
            "serial port \(path) went away (\(how)): the board was unplugged, re-enumerated after a reset, or its hub "
                + "port lost power")
    }

    func failure(_ error: SystemCallError, doing: String) -> BenchError {
        switch error.code {
        case EIO, ENXIO, ENODEV, ESHUTDOWN, EPIPE, EBADF: gone(error.reason)
        default: BenchError(.io, "\(doing) serial port \(path) failed: \(error)")
        }
    }

    func modemFailure(_ error: SystemCallError) -> BenchError {
        switch error.code {
        case ENOTTY, EINVAL:
            // esptool: "Chip was NOT reset. Setting RTS/DTR lines is not supported for port ..."
            BenchError(
                .unsupported,
                "\(path) cannot set DTR/RTS (\(error)): the board was NOT reset; give it reset: none in the rig, or "
                    + "use a USB bridge with modem lines")
        default: failure(error, doing: "setting the modem lines of")
        }
    }
}

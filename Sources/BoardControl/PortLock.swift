import Glibc

/// A serial port's lock file, as minicom, screen, lockdev and other blerigs understand it: `LCK..ttyACM0` in the
/// lock directory (`/run/lock`, else `/var/lock`), holding the owner's pid as ten ASCII digits and a newline (the
/// HDB UUCP format), and held with flock(2) while the port is open, so a crashed owner frees it at once.
///
/// A lock file left by a process that no longer lives is stale and taken over; a live owner's is refused with
/// its pid and command line.
public final class PortLock: Sendable {
    /// The lock file.
    public let path: String
    private let descriptor: Int32

    /// Where lock files go, in order of preference (FHS: `/run/lock`, formerly `/var/lock`).
    public static let defaultDirectories = ["/run/lock", "/var/lock"]

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// `LCK..ttyACM0` for `/dev/ttyACM0`.
    public static func fileName(for device: String) -> String { "LCK..\(FileText.lastComponent(device))" }

    /// Takes the lock of `device` (the resolved device path) in the first writable directory; nil when no
    /// directory is writable (the port's own flock and TIOCEXCL still guard it).
    public static func acquire(
        device: String, directories: [String] = defaultDirectories, processes: any ProcessTable
    ) throws(PortLockError) -> PortLock? {
        guard let directory = directories.first(where: { access($0, W_OK) == 0 }) else { return nil }
        let path = "\(directory)/\(fileName(for: device))"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .io(.current("open \(path)")) }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let owner = Self.owner(in: descriptor)
            close(descriptor)
            throw .held(
                device: device, lockFile: path, owner: owner.map { processes.describe($0) } ?? "another process")
        }
        // Locked by us; a pid in it is someone who does not use flock (or a crashed owner).
        if let owner = owner(in: descriptor), owner != processes.currentProcess, processes.isAlive(owner) {
            close(descriptor)
            throw .held(device: device, lockFile: path, owner: processes.describe(owner))
        }
        let text = Array(Self.format(pid: processes.currentProcess).utf8)
        guard ftruncate(descriptor, 0) == 0,
            text.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) == text.count
        else {
            let error = SystemCallError.current("write \(path)")
            close(descriptor)
            throw .io(error)
        }
        return PortLock(path: path, descriptor: descriptor)
    }

    /// `      1234\n`.
    static func format(pid: Int32) -> String {
        let digits = String(pid)
        return String(repeating: " ", count: max(0, 10 - digits.count)) + digits + "\n"
    }

    private static func owner(in descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return Int32(text.trimmingWhitespace())
    }

    /// Removes the lock file and lets go of it.
    public func release() {
        unlink(path)
        close(descriptor)
    }
}

/// Why a port's lock could not be taken.
public enum PortLockError: Error, Sendable, Hashable, CustomStringConvertible {
    case held(device: String, lockFile: String, owner: String)
    case io(SystemCallError)

    public var description: String {
        switch self {
        case let .held(device, lockFile, owner): "\(device) is locked by \(owner) (\(lockFile))"
        case .io(let error): "the port's lock file: \(error)"
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

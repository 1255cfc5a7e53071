import BLECore
import DeviceProfiles

/// One console line as it arrived, stamped with the boot it belongs to. Boards print
/// `BOOT ... boot_id=5f3a9c01` first thing after every reset; every later line carries that id until the next
/// `BOOT`, so a waiter can ignore lines left over from an earlier boot.
public struct ConsoleEntry: Sendable, Hashable {
    public var at: RigInstant
    /// The line without its line break.
    public var text: String
    /// The boot the line belongs to; nil before the first `BOOT` line seen.
    public var boot: UInt32?

    public init(at: RigInstant, text: String, boot: UInt32?) {
        self.at = at
        self.text = text
        self.boot = boot
    }

    /// The line as the device contract reads it.
    public var line: ConsoleLine { ConsoleLine(parsing: text) }
}

/// Tags console lines with their boot: every console driver feeds its raw lines through one of these.
public struct BootTracker: Sendable {
    public private(set) var currentBoot: UInt32?

    public init() {}

    /// The entry for a line that arrived at `at`; a `BOOT` line starts a new boot.
    public mutating func entry(_ text: String, at: RigInstant) -> ConsoleEntry {
        if case let .boot(_, _, _, bootID) = ConsoleLine(parsing: text) { currentBoot = bootID }
        return ConsoleEntry(at: at, text: text, boot: currentBoot)
    }
}

/// One of an esp-point's two app partitions (ESP-IDF's `ota_0` and `ota_1`), printed `A` and `B` on the console
/// (`BOOT … bank=A`, `OTA committed bank=B`). An update always writes the bank that is not running.
enum AppBank: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `ota_0`: the factory image's bank, and the one a blank `otadata` boots.
    case a = 0
    /// `ota_1`.
    case b = 1

    /// The other bank: the one an update writes while this one runs.
    var other: AppBank { self == .a ? .b : .a }

    /// The letter the console prints.
    var name: String { self == .a ? "A" : "B" }

    var description: String { name }
}

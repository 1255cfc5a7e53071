/// The level of a firmware log line, `[10234] W/LOG: …` (docs/board-contract.md, "The serial console"): ESP-IDF's
/// `esp_log_level_t` as its `ESP_LOGx` macros print it, one letter. Every virtual firmware logs in this format.
enum ConsoleLogLevel: Character, Sendable, Hashable, CaseIterable {
    /// `ESP_LOGE`: something failed (a rejected table, a failed verify, a self-test failure).
    case error = "E"
    /// `ESP_LOGW`: refused or dropped (a request before authentication, a full log ring, an injected fault).
    case warning = "W"
    /// `ESP_LOGI`: what the firmware did.
    case info = "I"
    /// `ESP_LOGD`.
    case debug = "D"
    /// `ESP_LOGV`.
    case verbose = "V"

    /// The letter in the line.
    var letter: Character { rawValue }
}

/// Text for HTML and SVG: every board-supplied string goes through ``escaped(_:)``.
enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as entities, control characters made visible (`\x07`): safe in element text
    /// and in quoted attribute values.
    static func escaped(_ text: String) -> String {
        VisibleText.visible(text).replacingEvery(entities)
    }

    private static let entities = CharacterReplacements([
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;",
    ])

    /// A number for SVG coordinates: at most two decimals, no exponent.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        return NumberText.significant(rounded, digits: 12)
    }
}

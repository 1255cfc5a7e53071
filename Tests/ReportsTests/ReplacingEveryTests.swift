import Testing

@testable import Reports

@Suite("String.replacingEvery")
struct ReplacingEveryTests {
    static let escapes = CharacterReplacements([
        "\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\r\n": "\\n", "\r": " ",
    ])

    @Test("each key is replaced wherever it occurs, in one pass, beside any other text")
    func replacesKeys() {
        #expect("plain text 42".replacingEvery(Self.escapes) == "plain text 42")
        #expect("a\\b\"c\nd\r\ne\rf".replacingEvery(Self.escapes) == "a\\\\b\\\"c\\nd\\ne f")
        #expect("温度\n🔋\"".replacingEvery(Self.escapes) == "温度\\n🔋\\\"")
        #expect("".replacingEvery(Self.escapes) == "")
    }

    @Test("a character canonically equal to a key is replaced too, as Character comparison says")
    func canonicalEquivalents() {
        // U+037E GREEK QUESTION MARK is canonically ";"; U+212A KELVIN SIGN is "K".
        #expect("a\u{37E}b".replacingEvery(CharacterReplacements([";": ","])) == "a,b")
        #expect("3 \u{212A}".replacingEvery(CharacterReplacements(["K": "kelvin"])) == "3 kelvin")
    }
}

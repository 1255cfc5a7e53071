import Foundation
import Testing

@testable import Reports

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("XML escaping")
struct XMLEscapingTests {
    static let table: [(input: String, text: String, attribute: String)] = [
        ("plain", "plain", "plain"),
        ("&", "&amp;", "&amp;"),
        ("<", "&lt;", "&lt;"),
        (">", "&gt;", "&gt;"),
        ("\"", "&quot;", "&quot;"),
        ("'", "&apos;", "&apos;"),
        ("]]>", "]]&gt;", "]]&gt;"),
        ("&amp;", "&amp;amp;", "&amp;amp;"),
        ("\t", "\t", "&#9;"),
        ("\n", "\n", "&#10;"),
        ("\r", "&#13;", "&#13;"),
        ("\r\n", "&#13;\n", "&#13;&#10;"),
        ("\u{0}", "\\x00", "\\x00"),
        ("\u{7}", "\\x07", "\\x07"),
        ("\u{B}\u{C}", "\\x0B\\x0C", "\\x0B\\x0C"),
        ("\u{1B}[0m", "\\x1B[0m", "\\x1B[0m"),
        ("\u{1F}", "\\x1F", "\\x1F"),
        ("\u{7F}", "\\x7F", "\\x7F"),
        ("\u{85}", "\\x85", "\\x85"),
        ("\u{9F}", "\\x9F", "\\x9F"),
        ("\u{A0}", "\u{A0}", "\u{A0}"),
        ("\u{FFFE}\u{FFFF}", "\\u{FFFE}\\u{FFFF}", "\\u{FFFE}\\u{FFFF}"),
        ("\u{FFFD}", "\u{FFFD}", "\u{FFFD}"),
        ("Grüße 温度 🔋 e\u{301}", "Grüße 温度 🔋 e\u{301}", "Grüße 温度 🔋 e\u{301}"),
        ("\u{10FFFF}", "\u{10FFFF}", "\u{10FFFF}"),
        // Markup right beside multi-byte characters (the escaping cuts UTF-8 at the markup), and a C1 control
        // beside "£°" (C2 A3 C2 B0) and U+FFFC (EF BF BC), whose lead bytes replaced scalars share.
        ("é<ü>&😀\"温'\r\n", "é&lt;ü&gt;&amp;😀&quot;温&apos;&#13;\n", "é&lt;ü&gt;&amp;😀&quot;温&apos;&#13;&#10;"),
        ("£°\u{85}\u{FFFC}\u{FFFE}", "£°\\x85\u{FFFC}\\u{FFFE}", "£°\\x85\u{FFFC}\\u{FFFE}"),
    ]

    @Test("each character is escaped for text and for attributes", arguments: table)
    func escapingTable(input: String, text: String, attribute: String) {
        #expect(XMLEscaping.text(input) == text)
        #expect(XMLEscaping.attribute(input) == attribute)
    }

    @Test("every scalar XML 1.0 forbids is replaced and nothing else below U+00A0 is")
    func forbiddenScalars() {
        for value in UInt32(0)...0xA0 {
            let scalar = Unicode.Scalar(value)!
            let allowedInXML =
                value == 0x09 || value == 0x0A || value == 0x0D || (0x20...0x7E).contains(value)
                || value == 0xA0
            #expect((VisibleText.replacement(for: scalar) == nil) == allowedInXML, "U+\(String(value, radix: 16))")
        }
    }

    #if canImport(FoundationXML)
        @Test("a parser reads back exactly the visible form of every nasty string", arguments: SampleRuns.nastyStrings)
        func parsesBack(input: String) throws {
            var xml = XMLWriter()
            xml.start("root", [("value", input)])
            xml.element("text", text: input)
            xml.end()
            let document = try XMLDocument(xmlString: xml.output, options: [.nodePreserveWhitespace])
            let root = try #require(document.rootElement())
            let expected = VisibleText.visible(input)
            #expect(root.attribute(forName: "value")?.stringValue == expected)
            #expect(root.elements(forName: "text").first?.stringValue == expected)
        }
    #endif
}

/// A small, append-only writer for indented XML. It escapes every attribute value and every piece of text it is
/// given (see ``XMLEscaping``), so callers pass raw strings and cannot forget.
struct XMLWriter {
    private(set) var output = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    private var open: [String] = []

    typealias Attributes = [(name: String, value: String?)]

    /// A document: the XML declaration, then what is written.
    init() {}

    /// A fragment to ``append(_:)`` to a document inside `depth` open elements: no declaration, indented to fit.
    init(fragmentAtDepth depth: Int) {
        output = ""
        open = Array(repeating: "", count: depth)
    }

    /// Appends a fragment written at the depth this writer is at.
    mutating func append(_ fragment: String) {
        output += fragment
    }

    /// Opens `<name attributes>`; attributes whose value is nil are left out.
    mutating func start(_ name: String, _ attributes: Attributes = []) {
        output += indentation + "<" + name + render(attributes) + ">\n"
        open.append(name)
    }

    mutating func end() {
        let name = open.removeLast()
        output += indentation + "</" + name + ">\n"
    }

    /// `<name attributes/>`.
    mutating func empty(_ name: String, _ attributes: Attributes = []) {
        output += indentation + "<" + name + render(attributes) + "/>\n"
    }

    /// `<name attributes>text</name>`, or `<name attributes/>` when `text` is empty. The text is written as it
    /// is (escaped), with no indentation added inside it, so whitespace-sensitive content survives.
    mutating func element(_ name: String, _ attributes: Attributes = [], text: String) {
        guard !text.isEmpty else { return empty(name, attributes) }
        output += indentation + "<" + name + render(attributes) + ">" + XMLEscaping.text(text) + "</" + name + ">\n"
    }

    private var indentation: String { String(repeating: "  ", count: open.count) }

    private func render(_ attributes: Attributes) -> String {
        attributes.reduce(into: "") { text, attribute in
            guard let value = attribute.value else { return }
            text += " " + attribute.name + "=\"" + XMLEscaping.attribute(value) + "\""
        }
    }
}

/// A YAML node of a rig file with the place it was written: a small value tree the loader builds from libyaml's
/// events (``RigNodeComposer``) and then reads with ``RigMappingReader``.
///
/// Scalars keep their text and whether they were quoted; the reader decides their type from the key they belong
/// to, so `name: 1234` is a string, `baud: "115200"` is not a number, and `no` is never read as false. Suite options
/// stay in this form (``SuiteSelection/options``) so each suite can read them later and still report
/// `file:line:column`.
///
/// Mapping keys are always scalars; duplicate keys have already been reported, and YAML merge keys (`<<: *anchor`)
/// have been applied, when a tree reaches its reader.
public struct RigNode: Hashable, Sendable {
    public enum Content: Hashable, Sendable {
        case scalar(Scalar)
        case sequence([RigNode])
        case mapping([Entry])
    }

    /// A scalar's text as written (after YAML unescaping) and whether it was quoted (or tagged `!!str`).
    public struct Scalar: Hashable, Sendable {
        public var text: String
        public var isQuoted: Bool

        public init(_ text: String, isQuoted: Bool = false) {
            self.text = text
            self.isQuoted = isQuoted
        }

        /// A plain `~`, `null` (any case) or nothing at all.
        public var isNull: Bool { !isQuoted && ["", "~", "null", "Null", "NULL"].contains(text) }
    }

    /// One key and its value in a mapping.
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var keyLocation: SourceLocation
        public var value: RigNode

        public init(key: String, keyLocation: SourceLocation, value: RigNode) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    public var content: Content
    /// Where the node starts: the first character of a scalar (its quote if quoted), the `{` or `[` of a flow
    /// collection, the first key of a block mapping, the first `-` of a block list.
    public var location: SourceLocation

    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    public static func scalar(_ text: String, quoted: Bool = false, at location: SourceLocation) -> RigNode {
        RigNode(.scalar(Scalar(text, isQuoted: quoted)), at: location)
    }

    /// An empty mapping at `location`, e.g. the options of a suite selected without options.
    public static func emptyMapping(at location: SourceLocation) -> RigNode { RigNode(.mapping([]), at: location) }

    public var scalar: Scalar? { if case .scalar(let scalar) = content { scalar } else { nil } }
    public var elements: [RigNode]? { if case .sequence(let elements) = content { elements } else { nil } }
    public var entries: [Entry]? { if case .mapping(let entries) = content { entries } else { nil } }

    /// True for a null scalar (`~`, `null`, or a key with no value).
    public var isNull: Bool { scalar?.isNull ?? false }

    /// The value of `key` in a mapping, nil if absent or if this is not a mapping.
    public subscript(key: String) -> RigNode? { entries?.first { $0.key == key }?.value }

    /// What the node is, for messages: `'fast'`, `the string "5"`, `nothing`, `a list`, `a mapping`.
    public var summary: String {
        switch content {
        case .scalar(let scalar) where scalar.isNull: return "nothing"
        case .scalar(let scalar):
            let text = RigWording.excerpt(scalar.text)
            return scalar.isQuoted ? "the string \"\(text)\"" : "'\(text)'"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

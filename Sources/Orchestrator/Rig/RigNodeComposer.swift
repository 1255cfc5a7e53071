/// Builds one document's ``RigNode`` tree from libyaml's events, in one pass: events in, a tree out.
///
/// What YAML's composer would do, with the rig file's rules:
/// - anchors and aliases: an alias stands for a copy of the node its anchor names (RigNode is a value, so the copy
///   shares storage); an alias inside the node it names is refused;
/// - merge keys: `<<: *defaults` or `<<: [*a, *b]` fill in the keys a mapping does not write itself, earlier
///   sources first;
/// - duplicate keys: every one is recorded in `diagnostics` at its second (third, ...) occurrence, naming the
///   first, and the first value is kept, so the caller goes on to report the rest of the file;
/// - limits: more than ``nodeLimit`` nodes (every alias counting the nodes it repeats, which stops "billion
///   laughs") or nesting deeper than ``depthLimit`` (aliases included) stop the composer with one `too-large`
///   issue where the limit was passed;
/// - one document: a second one, or none at all, is an issue.
///
/// Problems that stop the reading are thrown; all others are recorded.
struct RigNodeComposer {
    /// The most nodes a rig file may expand to. A real rig has a few hundred.
    static let nodeLimit = 100_000
    /// The deepest nesting a rig file may have. A real rig nests about six levels.
    static let depthLimit = 64
    static let stringTag = "tag:yaml.org,2002:str"

    let file: String
    let diagnostics: RigDiagnostics
    /// Just past the text's last character: no location lies beyond it.
    let end: YAMLMark

    /// The collections being built, outermost first.
    private var frames: [Frame] = []
    /// Completed anchored nodes by anchor; an anchor being built is absent until it completes.
    private var anchors: [String: Anchored] = [:]
    private var nodeCount = 0
    private var documents = 0
    private var root: RigNode?

    init(file: String, diagnostics: RigDiagnostics, end: YAMLMark) {
        self.file = file
        self.diagnostics = diagnostics
        self.end = end
    }

    /// Takes the next event; returns the document's root once the stream ends.
    mutating func consume(_ event: YAMLEvent) throws(RigFileIssue) -> RigNode? {
        switch event {
        case .streamStart, .documentEnd:
            return nil
        case .documentStart(let mark):
            documents += 1
            guard documents == 1 else {
                throw RigFileIssue(
                    .syntax, "a second YAML document starts here; a rig file holds one", at: location(mark))
            }
            return nil
        case .streamEnd:
            guard let root else {
                throw RigFileIssue(
                    .emptyFile, "the file holds no YAML document (it is empty)",
                    at: location(YAMLMark(line: 1, column: 1)))
            }
            return root
        case .scalar(let text, let anchor, let tag, let isPlain, let mark):
            let at = location(mark)
            try count(1, at: at)
            try checkDepth(frames.count + 1, at: at)
            let node = RigNode.scalar(text, quoted: !isPlain || tag == Self.stringTag, at: at)
            complete(Completed(node: node, writtenAt: at, height: 1), anchor: anchor, weight: 1)
        case .alias(let anchor, let mark):
            let at = location(mark)
            guard let target = anchors[anchor] else {
                if frames.contains(where: { $0.anchor == anchor }) {
                    throw RigFileIssue(
                        .syntax,
                        "YAML syntax error: alias \(RigWording.quoted("*" + anchor)) is used inside the node it names",
                        at: at)
                }
                throw RigFileIssue(.syntax, "YAML syntax error: found undefined alias", at: at)
            }
            try checkDepth(frames.count + target.height, at: at)
            try count(target.weight, at: at)
            complete(Completed(node: target.node, writtenAt: at, height: target.height), anchor: nil, weight: 0)
        case .sequenceStart(let anchor, let mark), .mappingStart(let anchor, let mark):
            let at = location(mark)
            try count(1, at: at)
            try checkDepth(frames.count + 1, at: at)
            if let anchor { anchors[anchor] = nil }
            var frame = Frame(location: at, anchor: anchor, countAtStart: nodeCount - 1)
            if case .mappingStart = event { frame.mapping = MappingBuilder() }
            frames.append(frame)
        case .sequenceEnd, .mappingEnd:
            guard let frame = frames.popLast() else { return nil }
            let content: RigNode.Content = frame.mapping.map { .mapping($0.entries) } ?? .sequence(frame.elements)
            complete(
                Completed(
                    node: RigNode(content, at: frame.location), writtenAt: frame.location,
                    height: frame.childHeight + 1),
                anchor: frame.anchor, weight: nodeCount - frame.countAtStart)
        }
        return nil
    }

    /// How many collections are open.
    var depth: Int { frames.count }

    private func location(_ mark: YAMLMark) -> SourceLocation {
        let mark = mark.clamped(to: end)
        return SourceLocation(file: file, line: mark.line, column: mark.column)
    }

    /// Counts `nodes` more nodes, throwing once the total passes ``nodeLimit``.
    private mutating func count(_ nodes: Int, at location: SourceLocation) throws(RigFileIssue) {
        nodeCount += nodes
        guard nodeCount <= Self.nodeLimit else {
            throw RigFileIssue(
                .tooLarge,
                "the file is too large: it passes \(Self.nodeLimit) YAML nodes here (an alias counts every node "
                    + "it repeats)", at: location)
        }
    }

    private func checkDepth(_ depth: Int, at location: SourceLocation) throws(RigFileIssue) {
        guard depth <= Self.depthLimit else {
            throw RigFileIssue(
                .tooLarge, "the file is too large: nested deeper than \(Self.depthLimit) levels here",
                at: location)
        }
    }

    /// Hands a finished node to the collection it belongs to, or makes it the root.
    private mutating func complete(_ completed: Completed, anchor: String?, weight: Int) {
        if let anchor {
            anchors[anchor] = Anchored(node: completed.node, weight: weight, height: completed.height)
        }
        guard !frames.isEmpty else {
            root = completed.node
            return
        }
        let last = frames.count - 1
        frames[last].childHeight = max(frames[last].childHeight, completed.height)
        if frames[last].mapping == nil {
            frames[last].elements.append(completed.node)
        } else {
            frames[last].mapping?.add(completed, diagnostics: diagnostics)
        }
    }

    /// A node just finished: the node, where it was written (an alias's own place, for keys) and its height.
    struct Completed {
        var node: RigNode
        var writtenAt: SourceLocation
        var height: Int
    }

    private struct Anchored {
        var node: RigNode
        /// The nodes it expands to.
        var weight: Int
        var height: Int
    }

    /// A collection being built. Elements live in stored properties (not enum payloads) so appends stay in place.
    private struct Frame {
        var location: SourceLocation
        var anchor: String?
        /// The node count before this collection.
        var countAtStart: Int
        var childHeight = 0
        var elements: [RigNode] = []
        /// Set for a mapping.
        var mapping: MappingBuilder?
    }
}

/// The entries of one mapping as its keys and values arrive: duplicate keys and merge keys handled.
struct MappingBuilder {
    private var explicit: [RigNode.Entry] = []
    /// The index in `explicit` of each key.
    private var index: [String: Int] = [:]
    private var merged: [RigNode.Entry] = []
    private var mergedKeys: Set<String> = []
    private var pendingKey: RigNodeComposer.Completed?

    /// Explicit keys in the order written, then merged keys that are not written explicitly.
    var entries: [RigNode.Entry] { explicit + merged.filter { index[$0.key] == nil } }

    /// Takes a key, or the value of the key before it.
    mutating func add(_ completed: RigNodeComposer.Completed, diagnostics: RigDiagnostics) {
        guard let key = pendingKey else {
            pendingKey = completed
            return
        }
        pendingKey = nil
        let value = completed.node
        guard let scalar = key.node.scalar else {
            diagnostics.record(.wrongType, "a key must be a name, found \(key.node.summary)", at: key.writtenAt)
            return
        }
        if scalar.text == "<<", !scalar.isQuoted {
            merge(value, diagnostics: diagnostics)
        } else if let first = index[scalar.text] {
            diagnostics.record(
                .duplicateKey,
                "duplicate key \(RigWording.quoted(scalar.text)) "
                    + "(first at \(explicit[first].keyLocation.lineAndColumn))",
                at: key.writtenAt)
        } else {
            index[scalar.text] = explicit.count
            explicit.append(RigNode.Entry(key: scalar.text, keyLocation: key.writtenAt, value: value))
        }
    }

    /// YAML merge keys: `<<: *defaults` or `<<: [*a, *b]`; earlier sources win, explicit keys win over all.
    private mutating func merge(_ source: RigNode, diagnostics: RigDiagnostics) {
        for source in source.elements ?? [source] {
            guard let entries = source.entries else {
                diagnostics.record(
                    .wrongType, "a merge key '<<' takes a mapping or a list of mappings, found \(source.summary)",
                    at: source.location)
                continue
            }
            for entry in entries where mergedKeys.insert(entry.key).inserted { merged.append(entry) }
        }
    }
}

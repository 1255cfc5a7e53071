import Yams

/// Building a ``RigNode`` tree from YAML text with Yams' representation tree, which keeps line and column.
extension RigNode {
    /// Parses `text` as one YAML document located in `file`.
    ///
    /// Syntax errors, an empty document and a second document throw. Duplicate keys are recorded in `diagnostics`
    /// at the second occurrence and the tree keeps the first, so the caller can go on and report every other
    /// problem in the file as well. (Yams stops at the first duplicate key and names only one occurrence; the
    /// parser renames that key in a copy of the text to a private-use placeholder of the same length, which keeps
    /// every line and column, parses again and restores the name in the tree.)
    public static func parse(yaml text: String, file: String, diagnostics: RigDiagnostics) throws(RigFileError)
        -> RigNode
    {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
        var source = text
        var renamed: [Position: String] = [:]
        while true {
            let root: Node?
            do {
                root = try Yams.compose(yaml: source)
            } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
                let position = Position(line: context.mark.line, column: context.mark.column)
                if let key = duplicates.first, renamed[position] == nil, renamed.count < 1_000,
                    let patched = KeyRenaming.rename(key, at: position, in: source, attempt: renamed.count)
                {
                    source = patched
                    renamed[position] = key
                    continue
                }
                let name = duplicates.first ?? "?"
                throw RigFileError(
                    RigFileIssue(
                        .duplicateKey, "duplicate key '\(name)'",
                        at: SourceLocation(file: file, line: position.line, column: position.column)))
            } catch let error as YamlError {
                throw RigFileError(syntaxIssue(error, file: file, text: text))
            } catch {
                throw RigFileError(
                    RigFileIssue(.syntax, "YAML error: \(error)", at: SourceLocation(file: file, line: 1, column: 1)))
            }
            guard let root else {
                throw RigFileError(
                    RigFileIssue(
                        .emptyFile, "the file holds no YAML document (it is empty)",
                        at: SourceLocation(file: file, line: 1, column: 1)))
            }
            var converter = Converter(file: file, renamed: renamed, diagnostics: diagnostics)
            return converter.convert(root)
        }
    }

    /// A line and column as libyaml counts them, both from 1.
    struct Position: Hashable {
        var line: Int
        var column: Int
    }

    /// Turns Yams' nodes into ``RigNode``s: restores renamed keys, reports duplicate keys, applies merge keys.
    private struct Converter {
        let file: String
        let renamed: [Position: String]
        let diagnostics: RigDiagnostics
        /// Bounds the work on alias expansion ("billion laughs").
        var budget = 250_000

        init(file: String, renamed: [Position: String], diagnostics: RigDiagnostics) {
            self.file = file
            self.renamed = renamed
            self.diagnostics = diagnostics
        }

        func location(_ mark: Mark?) -> SourceLocation {
            SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
        }

        mutating func convert(_ node: Node) -> RigNode {
            budget -= 1
            guard budget >= 0 else {
                if budget == -1 {
                    diagnostics.record(
                        .syntax, "the document expands to too many nodes (aliases nested too deep?)",
                        at: location(node.mark))
                }
                return .scalar("", at: location(node.mark))
            }
            switch node {
            case .scalar(let scalar):
                let quoted = scalar.style != .plain || scalar.tag.rawValue == Tag.Name.str.rawValue
                return .scalar(scalar.string, quoted: quoted, at: location(scalar.mark))
            case .sequence(let sequence):
                return RigNode(.sequence(sequence.map { convert($0) }), at: location(sequence.mark))
            case .mapping(let mapping):
                return RigNode(.mapping(entries(of: mapping)), at: location(mapping.mark))
            case .alias(let alias):
                diagnostics.record(.syntax, "unresolved alias '*\(alias.anchor.rawValue)'", at: location(alias.mark))
                return .scalar("", at: location(alias.mark))
            }
        }

        mutating func entries(of mapping: Node.Mapping) -> [Entry] {
            var explicit: [Entry] = []
            var merged: [Entry] = []
            for (key, value) in mapping {
                guard case .scalar(let scalar) = key else {
                    diagnostics.record(
                        .wrongType, "a key must be a name, found \(convert(key).summary)",
                        at: location(key.mark))
                    continue
                }
                let keyLocation = location(scalar.mark)
                let position = Position(line: keyLocation.line, column: keyLocation.column)
                let name = renamed[position] ?? scalar.string
                if name == "<<", scalar.style == .plain {
                    merge(convert(value), into: &merged)
                } else if let first = explicit.first(where: { $0.key == name }) {
                    diagnostics.record(
                        .duplicateKey,
                        "duplicate key '\(name)' (first at \(first.keyLocation.lineAndColumn))", at: keyLocation)
                } else {
                    explicit.append(Entry(key: name, keyLocation: keyLocation, value: convert(value)))
                }
            }
            return explicit + merged.filter { entry in !explicit.contains { $0.key == entry.key } }
        }

        /// YAML merge keys: `<<: *defaults` or `<<: [*a, *b]`; earlier sources win, explicit keys win over all.
        func merge(_ source: RigNode, into merged: inout [Entry]) {
            let sources = source.elements ?? [source]
            for source in sources {
                guard let entries = source.entries else {
                    diagnostics.record(
                        .wrongType,
                        "a merge key '<<' takes a mapping or a list of mappings, found \(source.summary)",
                        at: source.location)
                    continue
                }
                for entry in entries where !merged.contains(where: { $0.key == entry.key }) { merged.append(entry) }
            }
        }
    }
}

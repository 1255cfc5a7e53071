internal import CYaml

/// One event of a YAML stream as libyaml's parser reports it, with the place it starts.
///
/// Scalars carry their text after unescaping, their anchor and tag as written (tags expanded: `!!str` is
/// `tag:yaml.org,2002:str`), and whether they were plain (unquoted, not a block scalar).
enum YAMLEvent: Equatable {
    case streamStart
    case streamEnd
    case documentStart(at: YAMLMark)
    case documentEnd
    case alias(anchor: String, at: YAMLMark)
    case scalar(text: String, anchor: String?, tag: String?, isPlain: Bool, at: YAMLMark)
    case sequenceStart(anchor: String?, at: YAMLMark)
    case sequenceEnd
    case mappingStart(anchor: String?, at: YAMLMark)
    case mappingEnd
}

/// A position as libyaml reports it, converted to 1-based line and column (columns in Unicode scalars).
struct YAMLMark: Hashable {
    var line: Int
    var column: Int

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    init(_ mark: yaml_mark_t) { self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1) }

    /// This mark, or `end` if it lies past it.
    func clamped(to end: YAMLMark) -> YAMLMark {
        (line, column) > (end.line, end.column) ? end : self
    }
}

/// Why libyaml stopped: its own problem and context strings, and where.
struct YAMLParseFailure: Error, Equatable {
    enum Stage: Equatable {
        /// Decoding the input: `byteOffset` and `value` (the offending character) say where and what.
        case reader
        case scanner
        case parser
        /// libyaml could not allocate memory.
        case memory
    }

    var stage: Stage
    /// libyaml's sentence, e.g. `did not find expected ',' or ']'`.
    var problem: String
    /// Where the problem is; for reader problems, the start of the file (``byteOffset`` is exact there).
    var mark: YAMLMark
    /// Reader problems: the UTF-8 offset of the offending character in the input.
    var byteOffset: Int
    /// Reader problems: the offending character's value, or -1.
    var value: Int32
    /// libyaml's context, e.g. `while parsing a flow sequence`, and where that construct starts.
    var context: String?
    var contextMark: YAMLMark?
}

/// The events of one YAML text, pulled one at a time from libyaml's parser (`yaml_parser_parse`).
///
/// libyaml is the copy Yams vendors as its C target `CYaml`, which the Orchestrator reaches through its dependency
/// on the Yams product; `internal import` keeps it out of the Orchestrator's interface.
///
/// A thin shell around the C parser: it owns the parser and a copy of the input, turns each `yaml_event_t` into a
/// ``YAMLEvent`` and a parser failure into a ``YAMLParseFailure``. Meaning (anchors, duplicate keys, merge keys)
/// is ``RigNodeComposer``'s job. After a failure or ``YAMLEvent/streamEnd`` libyaml only repeats itself, so the
/// caller stops there.
final class YAMLEventReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>
    private let initialized: Bool

    /// A reader over `bytes`, UTF-8 text (libyaml also skips a leading byte order mark).
    init(bytes: [UInt8]) {
        parser = .allocate(capacity: 1)
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        initialized = yaml_parser_initialize(parser) != 0
        if initialized {
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
        }
    }

    deinit {
        if initialized { yaml_parser_delete(parser) }
        parser.deallocate()
        input.deallocate()
    }

    /// The next event, or why there is none.
    func next() throws(YAMLParseFailure) -> YAMLEvent {
        guard initialized else { throw failure() }
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else { throw failure() }
        defer { yaml_event_delete(&event) }
        let mark = YAMLMark(event.start_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT:
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(at: mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", at: mark)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text =
                scalar.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self)
                }
                ?? ""
            return .scalar(
                text: text, anchor: Self.string(scalar.anchor), tag: Self.string(scalar.tag),
                isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE, at: mark)
        case YAML_SEQUENCE_START_EVENT:
            return .sequenceStart(anchor: Self.string(event.data.sequence_start.anchor), at: mark)
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            return .mappingStart(anchor: Self.string(event.data.mapping_start.anchor), at: mark)
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        default:
            // YAML_NO_EVENT: libyaml emits it only after the stream has ended.
            return .streamEnd
        }
    }

    /// The parser's error state as a failure.
    private func failure() -> YAMLParseFailure {
        let state = parser.pointee
        guard initialized, state.error != YAML_MEMORY_ERROR, state.error != YAML_NO_ERROR else {
            return YAMLParseFailure(
                stage: .memory, problem: "out of memory", mark: YAMLMark(line: 1, column: 1), byteOffset: 0,
                value: -1)
        }
        let stage: YAMLParseFailure.Stage =
            switch state.error {
            case YAML_READER_ERROR: .reader
            case YAML_SCANNER_ERROR: .scanner
            default: .parser
            }
        let context = state.context.map { String(cString: $0) }
        return YAMLParseFailure(
            stage: stage, problem: state.problem.map { String(cString: $0) } ?? "unknown problem",
            mark: stage == .reader ? YAMLMark(line: 1, column: 1) : YAMLMark(state.problem_mark),
            byteOffset: Int(state.problem_offset), value: state.problem_value,
            context: context, contextMark: context == nil ? nil : YAMLMark(state.context_mark))
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

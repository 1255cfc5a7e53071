import Foundation
import Synchronization

/// The recorded events of one run, in the order they were appended. Boards run concurrently and append from
/// their own tasks; the log keeps one total order (each board's events stay in the order that board emitted
/// them). Reports read a snapshot, ``events``, or a log decoded from its JSON Lines file.
public final class RunLog: Sendable {
    private let storage: Mutex<[RunEvent]>

    public init(_ events: [RunEvent] = []) {
        storage = Mutex(events)
    }

    public func append(_ event: RunEvent) {
        storage.withLock { $0.append(event) }
    }

    /// The events so far, in order.
    public var events: [RunEvent] { storage.withLock { $0 } }

    public var count: Int { storage.withLock { $0.count } }

    /// The log as JSON Lines: one event per line, each line ending in `\n`.
    public func jsonLines() throws(RunLogError) -> String {
        let encoder = RunEvent.lineEncoder()
        var text = ""
        for event in events {
            text += try event.jsonLine(using: encoder)
            text += "\n"
        }
        return text
    }

    /// Reads a log written by ``jsonLines()`` (or appended line by line with ``RunEvent/jsonLine()``). Blank
    /// lines and a `\r` before a line's `\n` are allowed; anything else that is not an event is an error naming
    /// the line.
    public convenience init(jsonLines text: String) throws(RunLogError) {
        try self.init(jsonLines: Data(text.utf8))
    }

    public convenience init(jsonLines data: Data) throws(RunLogError) {
        let decoder = RunEvent.lineDecoder()
        var events: [RunEvent] = []
        // Split on LF bytes, not on Swift's notion of a line: U+2028 and friends are legal inside JSON strings.
        for (index, rawLine) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { continue }
            events.append(try RunEvent(jsonLine: Data(line), lineNumber: index + 1, using: decoder))
        }
        self.init(events)
    }
}

extension RunEvent {
    /// The event as one line of JSON, without the trailing newline. Keys are sorted so equal events give equal
    /// lines; control characters are escaped, so the line never contains a raw line break.
    public func jsonLine() throws(RunLogError) -> String {
        try jsonLine(using: Self.lineEncoder())
    }

    /// Decodes one line written by ``jsonLine()``.
    public init(jsonLine: String) throws(RunLogError) {
        try self.init(jsonLine: Data(jsonLine.utf8), lineNumber: nil, using: Self.lineDecoder())
    }

    /// Sorted keys, unescaped slashes, and non-finite numbers as strings (`"NaN"`, `"+Inf"`, `"-Inf"`).
    public static func lineEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        return encoder
    }

    static func lineDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        return decoder
    }

    /// The event as one line of JSON with an encoder made by ``lineEncoder()`` (reuse one for many events).
    public func jsonLine(using encoder: JSONEncoder) throws(RunLogError) -> String {
        do {
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        } catch {
            throw RunLogError(line: nil, problem: "could not encode the \(name) event: \(error)")
        }
    }

    init(jsonLine: Data, lineNumber: Int?, using decoder: JSONDecoder) throws(RunLogError) {
        do {
            self = try decoder.decode(RunEvent.self, from: jsonLine)
        } catch let error as Swift.DecodingError {
            throw RunLogError(line: lineNumber, problem: RunLogError.describe(error))
        } catch {
            throw RunLogError(line: lineNumber, problem: "\(error)")
        }
    }
}

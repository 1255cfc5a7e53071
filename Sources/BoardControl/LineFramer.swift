/// Cuts a console's byte stream into lines, incrementally: a line ends at CR, LF or CRLF (a CRLF split across two
/// reads is still one line end), and the line break is not part of the line. Bytes that are not UTF-8 become
/// U+FFFD. A line longer than ``maximumLength`` bytes is cut there, so a board that prints without line breaks
/// cannot grow memory without bound.
public struct LineFramer: Sendable {
    public static let maximumLength = 4096

    private var pending: [UInt8] = []
    /// The last byte fed was a CR: an LF right after it ends nothing.
    private var afterCR = false

    public init() {}

    /// The lines `bytes` completes, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
        var lines: [String] = []
        // An array, a slice or a buffer is walked as a buffer: iterating a sequence of unknown type from this module
        // goes through its iterator's witness a byte at a time, which allocated for every byte.
        let walked: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            for byte in buffer { take(byte, into: &lines) }
        }
        if walked == nil {
            for byte in bytes { take(byte, into: &lines) }
        }
        return lines
    }

    private mutating func take(_ byte: UInt8, into lines: inout [String]) {
        if afterCR {
            afterCR = false
            if byte == 0x0A { return }
        }
        switch byte {
        case 0x0D:
            afterCR = true
            lines.append(take())
        case 0x0A:
            lines.append(take())
        default:
            pending.append(byte)
            if pending.count >= Self.maximumLength { lines.append(take()) }
        }
    }

    /// The unfinished line, emptied: what a board printed before it stopped without a line break.
    public mutating func flush() -> String? {
        afterCR = false
        return pending.isEmpty ? nil : take()
    }

    private mutating func take() -> String {
        defer { pending.removeAll(keepingCapacity: true) }
        return String(decoding: pending, as: UTF8.self)
    }
}

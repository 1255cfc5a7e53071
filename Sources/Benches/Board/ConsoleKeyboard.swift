/// What the keys typed into `blerig console` do, as a pure state machine: printable keys collect a line (echoed),
/// Enter sends it, Backspace takes back a key, Ctrl-] leaves (telnet's and picocom's way out), and Ctrl-D on an
/// empty line leaves too.
public struct ConsoleKeyboard: Sendable {
    public enum Action: Sendable, Hashable {
        /// Print these bytes (the echo of what was typed).
        case echo([UInt8])
        /// Type this line on the board's console.
        case send(String)
        case quit
    }

    /// Ctrl-].
    public static let escape: UInt8 = 0x1D

    private var line: [UInt8] = []
    private var afterCR = false

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Action] {
        var actions: [Action] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case Self.escape:
                actions.append(.quit)
                return actions
            case 0x04 where line.isEmpty:
                actions.append(.quit)
                return actions
            case 0x0D, 0x0A:
                afterCR = byte == 0x0D
                actions.append(.echo([0x0D, 0x0A]))
                actions.append(.send(String(decoding: line, as: UTF8.self)))
                line = []
            case 0x7F, 0x08:
                guard !line.isEmpty else { continue }
                // Drop a whole UTF-8 scalar: continuation bytes first.
                while let last = line.popLast(), last & 0xC0 == 0x80 {}
                actions.append(.echo([0x08, 0x20, 0x08]))
            case 0x20..., 0x09:
                line.append(byte)
                actions.append(.echo([byte]))
            default:
                continue
            }
        }
        return actions
    }
}

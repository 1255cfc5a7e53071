import BLECore
import ConsoleFraming
import DeviceProfiles
import FuzzSupport

/// A board's serial console (docs/board-contract.md, "The serial console"): `LineFramer` cuts the byte stream into
/// lines and `ConsoleLine(parsing:)` reads each.
///
/// The input fed to a framer at once and to another in fuzzer-chosen chunks gives the same lines; no line holds a
/// CR or LF or more than `LineFramer.maximumLength` bytes of input. Each line parses (parsing never fails), and a
/// line the contract describes prints back as text that parses to the same line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConsole(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    var whole = LineFramer()
    var lines = whole.feed(bytes)
    if let rest = whole.flush() { lines.append(rest) }

    var pieces = LineFramer()
    var pieceLines: [String] = []
    for chunk in chunks(of: bytes, sizes: bytes.reversed()) { pieceLines += pieces.feed(chunk) }
    if let rest = pieces.flush() { pieceLines.append(rest) }
    invariant(lines == pieceLines, "\(hex(bytes)): at once \(lines), in chunks \(pieceLines)")

    for line in lines {
        // A CR or LF byte anywhere, even inside a CRLF grapheme (a Character search for "\r" would not see that one).
        invariant(
            !line.utf8.contains { $0 == 0x0D || $0 == 0x0A }, "a line with a line break: \(line.debugDescription)")
        // Each input byte becomes at most one U+FFFD (3 bytes) or itself.
        invariant(
            line.utf8.count <= 3 * LineFramer.maximumLength, "a line of \(line.utf8.count) bytes: \(line.prefix(80))")
        checkParses(line)
    }
    // The whole input as one line too, as a log reader that splits elsewhere would hand it over.
    checkParses(String(decoding: bytes, as: UTF8.self))
    return 0
}

private func checkParses(_ line: String) {
    let parsed = ConsoleLine(parsing: line)
    if case let .other(text) = parsed {
        invariant(text == line, "\(line.debugDescription) kept as \(text.debugDescription)")
        return
    }
    let printed = parsed.description
    let again = ConsoleLine(parsing: printed)
    invariant(again == parsed, "\(line.debugDescription) parsed to \(parsed), printed \(printed.debugDescription), "
        + "which parses to \(again)")
}

/// What every fuzz target shares (docs/fuzzing.md): reading libFuzzer's input, and stopping the run when an
/// invariant breaks so that libFuzzer keeps the input as a crash (`crash-<sha1>` in the working directory).

/// libFuzzer's input as bytes.
public func fuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the process with `message` when `condition` is false. A decoder that throws is fine; a decoder that
/// returns something its own encoder does not reproduce, or a framer that loses bytes, is a bug libFuzzer must see.
public func invariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    guard !condition() else { return }
    fatalError("invariant broken: \(message())", file: file, line: line)
}

/// Lowercase hex, for messages: `0a0300`.
public func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

/// Splits `bytes` into chunks whose sizes come from `sizes` in turn (each taken as 1...16), so a stream decoder
/// can be fed the same input in pieces that the fuzzer chooses.
public func chunks(of bytes: [UInt8], sizes: [UInt8]) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    var start = 0
    var next = 0
    while start < bytes.count {
        let size = sizes.isEmpty ? 1 : Int(sizes[next % sizes.count] % 16) + 1
        next += 1
        let end = min(bytes.count, start + size)
        result.append(bytes[start..<end])
        start = end
    }
    return result
}

import BLECore

extension DecodingError {
    /// The byte offset the error names.
    public var offset: Int {
        switch self {
        case let .truncated(_, _, _, _, at), let .trailingBytes(_, _, at), let .invalidValue(_, _, _, at): at
        }
    }
}

/// A decoding error must say where: an offset inside the `count` bytes it was given (or just past them, for input
/// that ended too early), and a description that names something.
public func checkDecodingError(
    _ error: DecodingError, inputCount count: Int, file: StaticString = #fileID, line: UInt = #line
) {
    invariant(
        (0...count).contains(error.offset), "\(error) names byte \(error.offset) of \(count)", file: file, line: line)
    invariant(!error.description.isEmpty, "an empty description for \(error)", file: file, line: line)
}

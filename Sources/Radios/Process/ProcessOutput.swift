import Foundation
import Synchronization

/// What a child process wrote, line by line, kept in bounded memory: the first lines (startup, where the
/// reasons for most failures are) and the most recent ones, with a count of the lines dropped between them.
/// Optionally every byte also goes to a file, unbounded, for a run's reports.
///
/// Lines are numbered from 0 in the order they arrived; a line keeps its number even after older lines were
/// dropped, so a reader can poll ``lines(from:)`` with the number it has reached.
public final class ProcessOutput: Sendable {
    /// A line longer than this is cut (with a marker) so that a process printing without newlines cannot grow
    /// the buffer.
    public let maximumLineLength: Int

    private struct State {
        var head: [String] = []
        var headBytes = 0
        /// The most recent lines are `tail[tailFirst...]`; the ones before `tailFirst` were dropped and are cleared
        /// in batches, so dropping a line costs no shift of the rest.
        var tail: [String] = []
        var tailFirst = 0
        var tailStart = 0
        var tailBytes = 0
        var count = 0
        var partial: [UInt8] = []
        var finished = false
        var fileError: String?
    }

    private let headLimit: Int
    private let tailLimit: Int
    private let file: Int32?
    private let state = Mutex(State())

    /// - Parameters:
    ///   - headLimit: bytes of the first lines to keep.
    ///   - tailLimit: bytes of the most recent lines to keep.
    ///   - maximumLineLength: bytes of one line to keep; the rest of the line is dropped.
    ///   - file: also append everything to this file (created if needed); nil keeps it in memory only.
    public init(
        headLimit: Int = 16 * 1024, tailLimit: Int = 48 * 1024, maximumLineLength: Int = 4096, file: String? = nil
    ) throws(SpawnError) {
        self.headLimit = headLimit
        self.tailLimit = tailLimit
        self.maximumLineLength = maximumLineLength
        if let file {
            let fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw SpawnError("cannot open \(file) for a process log: \(SpawnError.errno())") }
            self.file = fd
        } else {
            self.file = nil
        }
    }

    deinit { if let file { close(file) } }

    /// How many lines have arrived (dropped ones included).
    public var lineCount: Int { state.withLock { $0.count } }

    /// True once the process closed its end (it exited, or closed the stream).
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// The lines numbered `index` and later that are still held, and the number to ask for next time. Lines
    /// dropped from memory are skipped.
    public func lines(from index: Int) -> (lines: [String], next: Int) {
        state.withLock { state in
            var result: [String] = []
            if index < state.head.count { result += state.head[max(0, index)...] }
            let fromTail = max(index, state.tailStart) - state.tailStart
            let kept = state.tail[state.tailFirst...]
            if fromTail < kept.count { result += kept.dropFirst(fromTail) }
            return (result, state.count)
        }
    }

    /// Everything held, as text: the first lines, a marker for dropped lines if any, the most recent lines, and
    /// a last line without its newline yet.
    public var text: String {
        state.withLock { state in
            var lines = state.head
            let dropped = state.tailStart - state.head.count
            if dropped > 0 { lines.append("[… \(dropped) lines not kept …]") }
            lines += state.tail[state.tailFirst...]
            if !state.partial.isEmpty { lines.append(String(decoding: state.partial, as: UTF8.self)) }
            if let fileError = state.fileError { lines.append("[\(fileError)]") }
            return lines.joined(separator: "\n")
        }
    }

    /// The last `count` lines (the unfinished one included), for quoting in an error.
    public func excerpt(lastLines count: Int = 20) -> String {
        state.withLock { state in
            var lines = Array((state.head + state.tail[state.tailFirst...]).suffix(count))
            if !state.partial.isEmpty { lines.append(String(decoding: state.partial, as: UTF8.self)) }
            return lines.suffix(count).joined(separator: "\n")
        }
    }

    /// Takes bytes as the process wrote them, a line at a time rather than a byte at a time. Called by the reader
    /// thread only.
    func append(_ bytes: UnsafeRawBufferPointer) {
        if let file { writeToFile(file, bytes) }
        state.withLock { state in
            var rest = bytes[...]
            while !rest.isEmpty {
                let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
                extend(&state.partial, with: rest[..<(newline ?? rest.endIndex)])
                guard let newline else { break }
                add(&state, String(decoding: state.partial, as: UTF8.self))
                state.partial.removeAll(keepingCapacity: true)
                rest = rest[(newline + 1)...]
            }
        }
    }

    /// Adds a piece of a line to `partial`, up to ``maximumLineLength`` bytes; a line that would grow beyond that
    /// gets a marker instead, once.
    private func extend(_ partial: inout [UInt8], with piece: Slice<UnsafeRawBufferPointer>) {
        guard !piece.isEmpty else { return }
        if partial.count < maximumLineLength {
            let room = maximumLineLength - partial.count
            partial.append(contentsOf: piece.prefix(room))
            if piece.count > room { partial += Self.cutMarker }
        } else if partial.count == maximumLineLength {
            partial += Self.cutMarker
        }
    }

    private static let cutMarker = Array(" [line cut]".utf8)

    /// The stream ended. Called by the reader thread only.
    func finish() {
        state.withLock { state in
            if !state.partial.isEmpty { add(&state, String(decoding: state.partial, as: UTF8.self)) }
            state.partial = []
            state.finished = true
        }
    }

    private func add(_ state: inout State, _ line: String) {
        let line = line.hasSuffix("\r") ? String(line.dropLast()) : line
        state.count += 1
        if state.tail.isEmpty, state.headBytes + line.utf8.count <= headLimit {
            state.head.append(line)
            state.headBytes += line.utf8.count + 1
            state.tailStart = state.count
            return
        }
        state.tail.append(line)
        state.tailBytes += line.utf8.count + 1
        while state.tailBytes > tailLimit, state.tail.count - state.tailFirst > 1 {
            state.tailBytes -= state.tail[state.tailFirst].utf8.count + 1
            state.tail[state.tailFirst] = ""
            state.tailFirst += 1
            state.tailStart += 1
        }
        if state.tailFirst >= 64, state.tailFirst * 2 >= state.tail.count {
            state.tail.removeFirst(state.tailFirst)
            state.tailFirst = 0
        }
    }

    private func writeToFile(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let reason = SpawnError.errno()
                state.withLock { state in
                    if state.fileError == nil { state.fileError = "writing the log file failed: \(reason)" }
                }
                return
            }
            offset += written
        }
    }
}

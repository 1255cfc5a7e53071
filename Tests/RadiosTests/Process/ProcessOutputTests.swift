import Foundation
import Testing

@testable import Radios

@Suite struct ProcessOutputTests {
    func feed(_ output: ProcessOutput, _ text: String) {
        Array(text.utf8).withUnsafeBytes { output.append($0) }
    }

    @Test("lines are split wherever the chunks break, CRLF lines lose their CR, the last line arrives at EOF")
    func lines() throws {
        let output = try ProcessOutput()
        for chunk in ["fir", "st\r\nsec", "ond\n", "\nthi", "rd"] { feed(output, chunk) }
        #expect(output.lines(from: 0).lines == ["first", "second", ""])
        #expect(output.text == "first\nsecond\n\nthird")
        #expect(!output.isFinished)
        output.finish()
        #expect(output.isFinished)
        #expect(output.lines(from: 1) == (["second", "", "third"], 4))
    }

    @Test("memory is bounded: the first and the latest lines are kept, the ones between counted, numbers kept")
    func bounded() throws {
        let output = try ProcessOutput(headLimit: 40, tailLimit: 40)
        for index in 0..<100 { feed(output, "line \(index)\n") }
        #expect(output.lineCount == 100)
        let (kept, next) = output.lines(from: 0)
        #expect(next == 100)
        #expect(kept.first == "line 0")
        #expect(kept.last == "line 99")
        #expect(kept.count < 20)
        #expect(output.lines(from: 98).lines == ["line 98", "line 99"])
        #expect(output.text.contains("lines not kept"))
        #expect(output.excerpt(lastLines: 2) == "line 98\nline 99")
    }

    @Test("a line without end is cut, not grown")
    func longLine() throws {
        let output = try ProcessOutput(maximumLineLength: 10)
        feed(output, String(repeating: "x", count: 1000) + "\nnext\n")
        #expect(output.lines(from: 0).lines == ["xxxxxxxxxx [line cut]", "next"])
    }

    @Test("a log file gets every byte, unbounded")
    func file() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "output-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try ProcessOutput(headLimit: 10, tailLimit: 10, file: path)
        let text = (0..<50).map { "line \($0)\n" }.joined()
        feed(output, text)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }
}

@Suite struct ProcessTableTests {
    @Test("a stat line parses even when the name holds spaces and parentheses")
    func statParsing() throws {
        let entry = try #require(ProcessTable.Entry(stat: "4242 (my (odd) name) S 1 4240 4240 0 -1 4194560 97 0\n"))
        #expect(entry == ProcessTable.Entry(pid: 4242, parent: 1, group: 4240, state: "S", name: "my (odd) name"))
        #expect(entry.isAlive)
        #expect(ProcessTable.Entry(stat: "12 (z) Z 1 12 12")?.isAlive == false)
        #expect(ProcessTable.Entry(stat: "garbage") == nil)
    }

    @Test("this process is in the table, in its own group")
    func selfIsListed() {
        let me = ProcessTable.snapshot().first { $0.pid == getpid() }
        #expect(me?.group == getpgrp())
        #expect(me?.parent == getppid())
    }
}

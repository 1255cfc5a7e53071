import BLECore
import Foundation
import Synchronization
import Testing

@testable import Orchestrator

/// Report directories: created by the run, unique, checked before anything runs; report files that fail say where.
@Suite("Run directories and report files")
struct RunDirectoryTests {
    static let date = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("runs started in the same second get different directories, each created by its run")
    func uniqueInTheSameSecond() throws {
        let root = CampaignTests.outputRoot()
        let runs = try (0..<50).map { _ in try RunDirectory.create(under: root, rig: "r", seed: 42, at: Self.date) }
        #expect(Set(runs.map(\.path)).count == 50)
        for run in runs {
            #expect(run.runID.hasPrefix("r-20261118T"))
            #expect(run.runID.contains("-s42-"))
            #expect(FileManager.default.fileExists(atPath: run.path + "/captures"))
        }
    }

    @Test(
        "a report root that cannot be a directory is refused with the path and why",
        arguments: [("file", "is a file, not a directory"), ("/dev/full", "not a directory"), ("", "must be a path")])
    func badRoot(kind: String, expected: String) throws {
        let root = kind == "file" ? try RigTesting.temporaryFile([1, 2, 3], name: "not-a-directory") : kind
        #expect {
            try RunDirectory.create(under: root, rig: "r", seed: nil, at: Self.date)
        } throws: { error in
            (error as? OutputError)?.message.contains(expected) == true
        }
        let nested = kind == "file" ? root + "/below" : nil
        if let nested {
            #expect {
                try RunDirectory.create(under: nested, rig: "r", seed: nil, at: Self.date)
            } throws: { error in
                (error as? OutputError)?.message == "\(root) is a file, not a directory"
            }
        }
    }

    @Test("a report file on a full disk keeps its bytes and says which file and why")
    func fullDisk() throws {
        let directory = try RunDirectory.create(under: CampaignTests.outputRoot(), rig: "r", seed: nil, at: Self.date)
        let path = directory.file("console/full.log")
        let file = try AppendFile(creating: path, threshold: 16)
        try file.append(Array("first line\n".utf8))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
        #expect(throws: OutputError(path: path, message: "No space left on device")) {
            try file.append(Array("second line, past the threshold\n".utf8))
        }
        // Nothing was lost: once the disk takes bytes again, everything arrives in order.
        try FileManager.default.removeItem(atPath: path)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        try file.flush()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first line\nsecond line, past the threshold\n")
    }

    @Test("with a writer thread a full buffer reaches the disk without the appending thread writing it")
    func writerThread() throws {
        let directory = try RunDirectory.create(under: CampaignTests.outputRoot(), rig: "r", seed: nil, at: Self.date)
        let failures = Mutex<[OutputError]>([])
        let writer = OutputWriter { error in failures.withLock { $0.append(error) } }
        let path = directory.file("console/threaded.log")
        let file = try AppendFile(creating: path, threshold: 16, writer: writer)
        var expected = ""
        for n in 0..<200 {
            let line = "line \(n)\n"
            expected += line
            try file.append(Array(line.utf8))
        }
        writer.drain()
        // What passed the threshold is on disk in order; the rest waits for a flush.
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(expected.hasPrefix(written) && written.count >= expected.count - 16)
        try file.flushSoon()
        writer.stop()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
        #expect(failures.withLock { $0 }.isEmpty)
    }

    @Test("captures keep packets in batches and encode them, in order, into the board's file and the radio's")
    func capturesInBatches() throws {
        let directory = try RunDirectory.create(under: CampaignTests.outputRoot(), rig: "r", seed: nil, at: Self.date)
        let failures = Mutex<[OutputError]>([])
        let writer = OutputWriter { error in failures.withLock { $0.append(error) } }
        let captures = try CaptureFiles(
            directory: directory, boards: ["b1"], radios: ["hci0"], writer: writer,
            failed: { error in failures.withLock { $0.append(error) } })
        let board = DeviceAddress(0xC0_11_22_33_44_55, kind: .random)
        captures.register(board, as: "b1")
        captures.start(unixTimeAtOrigin: .seconds(1_795_000_000))
        try captures.flush()  // the headers, as a run writes them at its start
        let count = CaptureFiles.batch * 3 + 5
        func packet(_ n: Int) -> HCI.H4Packet {
            HCI.H4Packet(type: .aclData, body: [0x40, 0x20, 2, 0, UInt8(n & 0xFF), UInt8(n >> 8)])
        }
        func record(_ n: Int) {
            // Every third packet concerns no board (controller set-up, scanning): the radio's capture only.
            captures.record(
                radio: "hci0", peer: n % 3 == 0 ? nil : board, packet: packet(n),
                direction: n % 2 == 0 ? .hostToController : .controllerToHost,
                at: RigInstant(sinceOrigin: .milliseconds(Int64(n))))
        }
        func records(_ name: String) throws -> [BTSnoop.Record] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
            return try BTSnoop.Capture(decoding: Array(bytes)).records
        }
        // Less than a batch is kept as it came, not encoded, not written.
        for n in 0..<CaptureFiles.batch - 1 { record(n) }
        writer.drain()
        #expect(try records("captures/radio-hci0.btsnoop").isEmpty)
        // Full batches go on to the files on the writer's thread, the rest at the flush.
        for n in CaptureFiles.batch - 1..<count { record(n) }
        try captures.flush()
        writer.stop()
        let whole = try records("captures/radio-hci0.btsnoop")
        #expect(whole.map(\.data) == (0..<count).map { [HCI.PacketType.aclData.rawValue] + packet($0).body })
        #expect(whole.map { $0.flags.contains(.received) } == (0..<count).map { $0 % 2 == 1 })
        #expect(zip(whole, whole.dropFirst()).allSatisfy { $0.timestamp + 1000 == $1.timestamp })
        let boardOnly = (0..<count).filter { $0 % 3 != 0 }
        #expect(try records("captures/b1.btsnoop").map(\.data) == boardOnly.map { [0x02] + packet($0).body })
        #expect(failures.withLock { $0 }.isEmpty)
    }

    @Test("a write the writer thread cannot make goes to its handler with the path, and the bytes stay")
    func writerThreadFailure() throws {
        let directory = try RunDirectory.create(under: CampaignTests.outputRoot(), rig: "r", seed: nil, at: Self.date)
        let failures = Mutex<[OutputError]>([])
        let writer = OutputWriter { error in failures.withLock { $0.append(error) } }
        let path = directory.file("console/full.log")
        let file = try AppendFile(creating: path, threshold: 16, writer: writer)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
        try file.append(Array("more than sixteen bytes\n".utf8))
        writer.stop()
        #expect(failures.withLock { $0 } == [OutputError(path: path, message: "No space left on device")])
        #expect(file.takeBuffered() == Array("more than sixteen bytes\n".utf8))
    }

    @Test(
        "a run's captures and consoles are created at the same time; each part's failure is thrown, the first's first")
    func bothAtOnceRunsTogetherAndThrows() throws {
        // Each part waits for the other to have started: done one after the other, the first would wait in vain.
        let started = DispatchGroup()
        started.enter()
        started.enter()
        let (a, b) = try bothAtOnce(
            { () throws(OutputError) -> (Int, Bool) in
                started.leave()
                return (1, started.wait(timeout: .now() + 10) == .success)
            },
            { () throws(OutputError) -> (String, Bool) in
                started.leave()
                return ("two", started.wait(timeout: .now() + 10) == .success)
            })
        #expect(a == (1, true) && b == ("two", true))

        let first = OutputError(path: "captures/b1.btsnoop", message: "File exists")
        let second = OutputError(path: "console/b1.log", message: "Permission denied")
        #expect(throws: first) {
            _ = try bothAtOnce({ () throws(OutputError) -> Int in throw first }, { () throws(OutputError) in 2 })
        }
        #expect(throws: second) {
            _ = try bothAtOnce({ () throws(OutputError) in 1 }, { () throws(OutputError) -> Int in throw second })
        }
        #expect(throws: first) {
            _ = try bothAtOnce(
                { () throws(OutputError) -> Int in throw first }, { () throws(OutputError) -> Int in throw second })
        }
    }

    @Test("an existing file is never written into: report files are created fresh")
    func neverReuses() throws {
        let path = try RigTesting.temporaryFile(Array("keep me".utf8), name: "run.jsonl")
        #expect(throws: OutputError(path: path, message: "File exists")) { try AppendFile(creating: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }
}

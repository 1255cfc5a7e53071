import CentralStack
import Foundation

/// A fresh directory for one test's queue files, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init(_ label: String = "sync") {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("blerig-\(label)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// A 14-byte esp-point reading record with `seq` (docs/board-contract.md, esp-point "Reading").
func record(_ seq: UInt32, unixTime: UInt32 = 1_700_000_000) -> [UInt8] {
    var bytes: [UInt8] = []
    for value in [seq, unixTime] {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
    bytes += [0xF4, 0x07, 0x88, 0x13, 0x74, 0x0E]
    return bytes
}

/// Runs the sqlite3 command-line shell (not our code, not GRDB) on `path` and returns its output lines.
func sqlite3(_ path: String, _ sql: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", "-batch", "-noheader", path, sql]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

/// Runs `executable` with `arguments`; returns its exit status.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

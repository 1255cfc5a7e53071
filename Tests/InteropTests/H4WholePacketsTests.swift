import Foundation
import Radios
import Testing

extension Interop {
    /// rootcanal sends each packet's H4 indicator in a send(2) of its own; libBlerigLoopback.so, preloaded into the
    /// rootcanal blerig starts, makes each packet one TCP segment on the HCI port (and turns Nagle off there), so a
    /// host is woken once per packet, not twice (docs/radios.md). Segments are counted by the receiving kernel.
    @Suite("rootcanal's HCI packets as whole segments")
    struct H4WholePackets {
        /// HCI_Read_BD_ADDR, and the length of its Command Complete with the H4 indicator.
        static let readAddress: [UInt8] = [0x01, 0x09, 0x10, 0x00]
        static let addressComplete = 1 + 2 + 4 + 6

        @Test("blerig's rootcanal sends each HCI packet as one TCP segment, its H4 indicator with the packet")
        func rootcanalSendsWholePackets() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let host = try TCPTestClient(port: rootcanal.hciPort)
                let before = try host.dataSegmentsIn()
                try host.send([0x01, 0x03, 0x0C, 0x00])
                #expect(try host.read(7) == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
                // Each command sent once the previous one's event is in: the events cannot share a segment.
                for _ in 0..<9 {
                    try host.send(Self.readAddress)
                    let event = try host.read(Self.addressComplete)
                    #expect(Array(event[..<7]) == [0x04, 0x0E, 0x0A, 0x01, 0x09, 0x10, 0x00])
                }
                // Without the library, 20: each indicator alone, then its packet.
                #expect(try host.dataSegmentsIn() - before == 10)
            }
        }

        /// A server in Python, which sends like rootcanal (an indicator, then its packet, Nagle on), with the library
        /// preloaded and `BLERIG_H4_PORT` naming `h4Port`. It prints its port and whether its accepted connection has
        /// TCP_NODELAY, then sends `packets` events, each after a byte from the client.
        static func server(
            h4Port: (UInt16) -> UInt16, packets: Int
        ) throws -> (process: Process, port: UInt16, lines: LineReader) {
            let script = """
                import os, socket, sys
                s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
                print(s.getsockname()[1], flush=True)
                c, _ = s.accept()
                print(c.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY), flush=True)
                for _ in range(int(sys.argv[2])):
                    c.recv(1)
                    c.send(b"\\x04"); c.send(b"\\x0e\\x04\\x01\\x03\\x0c\\x00")
                c.recv(1)
                """
            let port = try RootcanalPorts.free().hci
            let process = Process()
            process.executableURL = URL(filePath: try InteropEnvironment.venv().python)
            process.arguments = ["-c", script, String(port), String(packets)]
            var environment = ProcessInfo.processInfo.environment
            environment["LD_PRELOAD"] = try LoopbackLibrary.locate(executable: RootcanalCampaign.binary).path
            environment[LoopbackLibrary.h4PortVariable] = String(h4Port(port))
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let lines = LineReader(out.fileHandleForReading)
            guard let listening = lines.next().flatMap(UInt16.init), listening == port else {
                process.terminate()
                throw TestFailure("the Python server did not listen on \(port)")
            }
            return (process, port, lines)
        }

        /// What the client saw: the server's TCP_NODELAY and the data segments of `packets` events.
        static func exchange(h4Port: (UInt16) -> UInt16, packets: Int = 5) throws -> (noDelay: String, segments: UInt32) {
            let (process, port, lines) = try server(h4Port: h4Port, packets: packets)
            defer {
                // A failed exchange leaves the server waiting for its client: it goes with its client's socket.
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
            }
            let client = try TCPTestClient(port: port)
            let noDelay = lines.next() ?? "nothing"
            let before = try client.dataSegmentsIn()
            for _ in 0..<packets {
                try client.send([0])
                #expect(try client.read(7) == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
            }
            let segments = try client.dataSegmentsIn() - before
            try client.send([0])
            return (noDelay, segments)
        }

        @Test("the library joins indicator and packet, and sets TCP_NODELAY, on the port it is given and no other")
        func onlyTheNamedPort() throws {
            try #require(FileManager.default.isExecutableFile(atPath: RootcanalCampaign.binary), "swift build --build-tests")
            let named = try Self.exchange(h4Port: { $0 })
            #expect(named.noDelay == "1")
            #expect(named.segments == 5)
            let other = try Self.exchange(h4Port: { $0 == 65535 ? 1 : $0 + 1 })
            #expect(other.noDelay == "0")
            #expect(other.segments == 10)
        }
    }
}

/// Lines from a pipe, read as they come.
final class LineReader {
    private let handle: FileHandle
    private var held: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let newline = held.firstIndex(of: 0x0A) {
                let line = String(decoding: held[..<newline], as: UTF8.self)
                held.removeFirst(newline + 1)
                return line
            }
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return nil }
            held += chunk
        }
    }
}

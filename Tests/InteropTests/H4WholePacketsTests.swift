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

        /// A server in Python that sends the way rootcanal does (an indicator, then its packet, with Nagle on), with
        /// the library preloaded and `BLERIG_H4_PORT` naming `h4Port(its port)`. It prints its port, then whether
        /// its accepted connection has TCP_NODELAY, then sends `packets` events, each after a byte from the client.
        /// Returns what the client saw: that line and the data segments of the events.
        static func exchange(
            in scope: InteropScope, h4Port: (UInt16) -> UInt16, packets: Int = 5
        ) async throws -> (noDelay: String, segments: UInt32) {
            let script = """
                import socket, sys
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
            var environment = ProcessInfo.processInfo.environment
            environment["LD_PRELOAD"] = try LoopbackLibrary.locate(executable: RootcanalCampaign.binary).path
            environment[LoopbackLibrary.h4PortVariable] = String(h4Port(port))
            let server = try SupervisedProcess.start(
                try InteropEnvironment.venv().python, ["-c", script, String(port), String(packets)],
                environment: environment, stdout: try ProcessOutput(), stderr: try ProcessOutput(), grace: .seconds(1))
            scope.track("the Python server", server.pid, marker: ["-c", script]) { await server.stop() }
            guard try await line(0, of: server) == String(port) else {
                throw TestFailure("the Python server did not listen on \(port): \(server.stderr.excerpt())")
            }
            let client = try TCPTestClient(port: port)
            let noDelay = try await line(1, of: server)
            let before = try client.dataSegmentsIn()
            for _ in 0..<packets {
                try client.send([0])
                #expect(try client.read(7) == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
            }
            let segments = try client.dataSegmentsIn() - before
            try client.send([0])
            return (noDelay, segments)
        }

        /// Line `index` of `process`'s output, once it is there (at most 10 s).
        static func line(_ index: Int, of process: SupervisedProcess) async throws -> String {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(10))
            while clock.now < deadline {
                if let line = process.stdout.lines(from: index).lines.first { return line }
                if process.exit != nil { break }
                try await clock.sleep(for: .milliseconds(10))
            }
            throw TestFailure("the Python server printed no line \(index + 1): \(process.stderr.excerpt())")
        }

        @Test("the library joins indicator and packet, and sets TCP_NODELAY, on the port it is given and no other")
        func onlyTheNamedPort() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: RootcanalCampaign.binary), "swift build --build-tests")
            try await withInteropScope { scope in
                let named = try await Self.exchange(in: scope, h4Port: { $0 })
                #expect(named.noDelay == "1")
                #expect(named.segments == 5)
                let other = try await Self.exchange(in: scope, h4Port: { $0 == 65535 ? 1 : $0 + 1 })
                #expect(other.noDelay == "0")
                #expect(other.segments == 10)
            }
        }

        @Test("blerig's central on a rootcanal without the library: reads wake at the first byte, and no step waits")
        func centralAgainstIndicatorsAlone() async throws {
            try await withInteropScope { scope in
                var options = RootcanalProcess.Options()
                options.wholePackets = false
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-Split", rootcanal: options)
                let transport = try #require(stage.host.stack.transport as? TCPTransport)
                let clock = ContinuousClock()
                var handshakes: [Duration] = []
                var packets = 0
                let readsBefore = transport.reads
                for _ in 0..<5 {
                    let began = clock.now
                    let connection = try await stage.central.connect(to: stage.address, timeout: .seconds(5))
                    _ = try await connection.exchangeMTU(preferred: 247)
                    let services = try await connection.discoverPrimaryServices(nil)
                    for service in services { _ = try await connection.discoverCharacteristics(of: service) }
                    handshakes.append(began.duration(to: clock.now))
                    await connection.disconnect()
                    // A Command Status and its event for the connection and the disconnection; a completed-packets
                    // event and a response for each request (one more for each discovery's end).
                    packets += 4 + 2 * (1 + 1 + services.count + 1 + services.count)
                }
                #expect(transport.peerSending == .waitsForACKs)
                // Each indicator alone, then its packet: more reads than packets.
                #expect(transport.reads - readsBefore > packets)
                // About two ticks a step, as on blerig's rootcanal (20-25 ms); a read held for the coalescing window
                // at every step took 96 ms for bench hci's handshake.
                let median = handshakes.sorted()[handshakes.count / 2]
                #expect(median < .milliseconds(60), "handshakes took \(handshakes)")
            }
        }
    }
}

import BenchCore
import BLECore
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import Radios

/// A listening socket on 127.0.0.1 standing in for rootcanal's HCI port.
final class TestListener {
    let descriptor: Int32
    let port: UInt16

    init(backlog: Int32 = 4) throws {
        let descriptor = socket(AF_INET, SocketType.stream | SocketType.closeOnExec, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, backlog) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(descriptor)
            throw Errno.current
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    /// The next connection, with TCP_NODELAY so each write leaves as one segment; with `nagle`, left as it comes,
    /// as rootcanal's own: a short write then waits for the ACK of the one before it.
    func accept(nagle: Bool = false) -> Int32 {
        let connection = Glibc.accept(descriptor, nil, nil)
        var on: Int32 = nagle ? 0 : 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return connection
    }

    func close() { Glibc.close(descriptor) }
}

/// One stream of controller output and ways of cutting it into writes.
enum DripFeed {
    static let packets = [
        Packets.resetComplete, Packets.acl([1, 2, 3, 4, 5]), Packets.acl(Array(10..<19)), Packets.disconnectionComplete,
    ]
    static let bytes = packets.flatMap(\.encoded)

    struct Chunking: Sendable, CustomTestStringConvertible {
        var name: String
        var sizes: [Int]
        var testDescription: String { name }
    }

    /// The stream is an event (7 bytes), two ACL packets (10 and 14 bytes) and an event (7 bytes).
    static let chunkings = [
        Chunking(name: "one byte at a time", sizes: Array(repeating: 1, count: bytes.count)),
        Chunking(name: "events split inside their headers", sizes: [2, 5, 24, 2, 5]),
        Chunking(name: "the two ACL packets back to back in one write", sizes: [7, 24, 7]),
        Chunking(name: "odd chunks across packet boundaries", sizes: [3, 7, 5, 11, 3, 9]),
        Chunking(name: "everything in one write", sizes: [bytes.count]),
    ]

    /// Writes the stream in `sizes` pieces, pausing between them so each tends to arrive in a read of its own.
    static func write(to descriptor: Int32, in sizes: [Int]) {
        #expect(sizes.reduce(0, +) == bytes.count)
        var offset = 0
        for size in sizes {
            writeAll(descriptor, Array(bytes[offset..<offset + size]))
            offset += size
            usleep(2000)
        }
    }
}

extension TransportIO {
    @Suite struct TCPTransportTests {
        @Test("packets arrive whole and in order however the stream is cut", arguments: DripFeed.chunkings)
        func dripFedStream(_ chunking: DripFeed.Chunking) throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                let controller = listener.accept()
                defer { Glibc.close(controller) }
                let recorder = TransportRecorder()
                recorder.start(transport)
                DripFeed.write(to: controller, in: chunking.sizes)
                #expect(recorder.packets(count: DripFeed.packets.count) == DripFeed.packets)
                transport.close()
                #expect(recorder.closings.count == 1 && recorder.closings.first! == nil)
            }
        }

        @Test("each packet is written whole: indicator, header, parameters")
        func sendWritesPackets() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "localhost", port: listener.port)
                defer { transport.close() }
                let controller = listener.accept()
                defer { Glibc.close(controller) }
                try transport.send(Packets.reset)
                try transport.send(Packets.acl([7, 8, 9]))
                let expected = Packets.reset.encoded + Packets.acl([7, 8, 9]).encoded
                #expect(readExactly(controller, expected.count) == expected)
                #expect(expected == [0x01, 0x03, 0x0C, 0x00, 0x02, 0x40, 0x20, 0x03, 0x00, 7, 8, 9])
            }
        }

        @Test("sends from many threads at once do not interleave")
        func concurrentSends() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                defer { transport.close() }
                let controller = listener.accept()
                defer { Glibc.close(controller) }
                let threads = 8
                let perThread = 40
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    for index in 0..<perThread {
                        let payload =
                            [UInt8(thread), UInt8(index)] + Array(repeating: UInt8(thread), count: index % 17)
                        #expect(throws: Never.self) { try transport.send(Packets.acl(payload)) }
                    }
                }
                let total = (0..<threads).reduce(0) { sum, _ in
                    sum + (0..<perThread).reduce(0) { $0 + 1 + 4 + 2 + $1 % 17 }
                }
                var parser = HCI.H4Parser()
                let packets = try parser.feed(readExactly(controller, total))
                #expect(packets.count == threads * perThread)
                for thread in 0..<threads {
                    let mine = packets.filter { $0.body[4] == UInt8(thread) }
                    #expect(mine.map { Int($0.body[5]) } == Array(0..<perThread), "thread \(thread)'s packets in order")
                    #expect(mine.allSatisfy { $0.body.dropFirst(6).allSatisfy { $0 == UInt8(thread) } })
                }
            }
        }

        @Test("TCP_NODELAY is on")
        func noDelay() throws {
            let listener = try TestListener()
            defer { listener.close() }
            let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
            defer { transport.close() }
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            #expect(getsockopt(transport.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0)
            #expect(value == 1)
        }

        /// Linux's answer to getsockopt(TCP_QUICKACK): 1 while the socket acknowledges at once, 0 in "pingpong" mode,
        /// where an ACK waits to ride on the next write (rootcanal then holds the packet body behind its indicator).
        private static func quickAck(_ descriptor: Int32) -> Int32 {
            var value: Int32 = -1
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_QUICKACK, &value, &length)
            return value
        }

        @Test("a read the host answered is acknowledged by the answer; one it did not answer, at once")
        func acknowledgesUnansweredReads() throws {
            let listener = try TestListener()
            defer { listener.close() }
            let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
            let controller = listener.accept()
            defer { Glibc.close(controller) }
            // What getsockopt says as each packet is delivered, that is after the previous read's re-arm, if any.
            let seen = Mutex<[Int32]>([])
            let recorder = TransportRecorder()
            recorder.start(transport) { packet in
                seen.withLock { $0.append(Self.quickAck(transport.descriptor)) }
                // Packets with an odd first byte are answered at once, as a host answers an ATT request.
                if packet.body[4] % 2 == 1 { try? transport.send(Packets.acl([0xAA])) }
            }
            let firsts: [UInt8] = [2, 1, 3, 5, 2]
            for (index, first) in firsts.enumerated() {
                writeAll(controller, Packets.acl([first]).encoded)
                #expect(recorder.packets(count: index + 1).count == index + 1)
                if first % 2 == 1 { #expect(readExactly(controller, 6) == Packets.acl([0xAA]).encoded) }
            }
            transport.close()
            // Each answer (sent within the delayed-ACK window of its packet) puts Linux in pingpong mode, where the
            // next read sends no ACK of its own; a read nothing answered takes it out, which sends its ACK.
            #expect(seen.withLock { $0 } == [1, 1, 0, 0, 0])
            // A read answered after one that was not: quick ACKs on again.
            let again = TransportRecorder()
            let transport2 = try TCPTransport(host: "127.0.0.1", port: listener.port)
            let controller2 = listener.accept()
            defer { Glibc.close(controller2) }
            let seen2 = Mutex<[Int32]>([])
            again.start(transport2) { packet in
                seen2.withLock { $0.append(Self.quickAck(transport2.descriptor)) }
                if packet.body[4] % 2 == 1 { try? transport2.send(Packets.acl([0xAA])) }
            }
            for (index, first) in [UInt8(1), 2, 4].enumerated() {
                writeAll(controller2, Packets.acl([first]).encoded)
                #expect(again.packets(count: index + 1).count == index + 1)
                if first % 2 == 1 { #expect(readExactly(controller2, 6) == Packets.acl([0xAA]).encoded) }
            }
            transport2.close()
            #expect(seen2.withLock { $0 } == [1, 0, 1])
        }

        @Test("against a controller that sends each H4 indicator alone with Nagle on, as rootcanal does, no packet waits")
        func nagleController() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(
                    host: "127.0.0.1", port: listener.port, connectTimeout: .seconds(5), coalescingWindow: .seconds(30))
                let controller = listener.accept(nagle: true)
                defer {
                    transport.close()
                    Glibc.close(controller)
                }
                // The host allows coalescing from the first packet, and answers every ACL packet.
                let recorder = TransportRecorder()
                recorder.start(transport) { packet in
                    transport.coalesceShortPackets(true, atLeast: 0)
                    if packet.type == .aclData { try? transport.send(Packets.acl([0xAA])) }
                }
                let clock = ContinuousClock()
                let began = clock.now
                let packets = [Packets.resetComplete, Packets.resetComplete, Packets.acl([1]), Packets.completedPackets]
                    + (0..<6).map { Packets.acl([UInt8($0)]) } + [Packets.completedPackets, Packets.disconnectionComplete]
                for (index, packet) in packets.enumerated() {
                    // The indicator alone, then the rest: Nagle holds the rest until the indicator is acknowledged.
                    let bytes = packet.encoded
                    writeAll(controller, [bytes[0]])
                    writeAll(controller, Array(bytes[1...]))
                    #expect(recorder.packets(count: index + 1, within: .seconds(20)).count == index + 1)
                    if packet.type == .aclData { #expect(readExactly(controller, 6) == Packets.acl([0xAA]).encoded) }
                }
                #expect(recorder.packets == packets)
                #expect(transport.peerSending == .waitsForACKs)
                // A delayed ACK costs 40 ms a packet or more, the window 30 s; twelve packets without either are fast.
                #expect(began.duration(to: clock.now) < .seconds(2))
            }
        }

        @Test("the controller closing the connection ends the transport as disconnected; sends then fail the same way")
        func endOfStream() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                let controller = listener.accept()
                let recorder = TransportRecorder()
                recorder.start(transport)
                writeAll(controller, Packets.resetComplete.encoded)
                Glibc.close(controller)
                let error = try #require(recorder.closedError())
                #expect(recorder.packets == [Packets.resetComplete])
                #expect(error.code == .disconnected)
                #expect(error.message == "controller at tcp:127.0.0.1:\(listener.port) closed the connection")
                #expect(throws: error) { try transport.send(Packets.reset) }
                transport.close()
                #expect(recorder.closings.count == 1)
            }
        }

        @Test("a reset connection is reported as disconnected")
        func connectionReset() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                defer { transport.close() }
                let controller = listener.accept()
                let recorder = TransportRecorder()
                recorder.start(transport)
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(controller, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                Glibc.close(controller)
                let error = recorder.closedError()
                #expect(error?.code == .disconnected)
                #expect(error?.message == "controller at tcp:127.0.0.1:\(listener.port) reset the connection")
            }
        }

        @Test("bytes that are not H4 end the transport with a framing error")
        func framingLost() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                let controller = listener.accept()
                defer { Glibc.close(controller) }
                let recorder = TransportRecorder()
                recorder.start(transport)
                writeAll(controller, Packets.resetComplete.encoded)
                #expect(recorder.packets(count: 1) == [Packets.resetComplete])
                writeAll(controller, [0xFF, 0x00])
                let error = try #require(recorder.closedError())
                #expect(error.code == .framing)
                #expect(
                    error.message == "controller at tcp:127.0.0.1:\(listener.port) sent bytes that are not H4: "
                        + "H4 stream: invalid packet indicator at byte 7: 0xff is not 0x01–0x05; framing is lost")
                #expect(error.fix?.contains("not its test channel") == true)
                transport.close()
            }
        }

        @Test("packets complete before the bad byte of the same read are delivered before the framing error")
        func goodPacketsBeforeFramingLoss() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                let controller = listener.accept()
                defer { Glibc.close(controller) }
                let recorder = TransportRecorder()
                recorder.start(transport)
                writeAll(controller, Packets.resetComplete.encoded + Packets.resetComplete.encoded + [0xFF, 0x00])
                #expect(recorder.packets(count: 2) == [Packets.resetComplete, Packets.resetComplete])
                #expect(try #require(recorder.closedError()).code == .framing)
                transport.close()
            }
        }

        @Test("close unblocks the waiting reader, and closed(nil) has run when close returns")
        func closeUnblocksReader() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                let controller = listener.accept()
                defer { Glibc.close(controller) }
                let recorder = TransportRecorder()
                recorder.start(transport)
                usleep(20_000)
                transport.close()
                #expect(recorder.closings.count == 1 && recorder.closings.first! == nil)
                transport.close()
                #expect(recorder.closings.count == 1, "close is idempotent")
                #expect(throws: HCITransportError(.disconnected, "tcp:127.0.0.1:\(listener.port) is closed")) {
                    try transport.send(Packets.reset)
                }
            }
        }

        @Test("close from the packet callback, on the reader thread, does not wait for itself")
        func closeFromReaderThread() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                let controller = listener.accept()
                defer { Glibc.close(controller) }
                let recorder = TransportRecorder()
                recorder.start(transport) { _ in transport.close() }
                writeAll(controller, Packets.resetComplete.encoded + Packets.disconnectionComplete.encoded)
                #expect(recorder.closedError() == nil)
                #expect(recorder.packets == [Packets.resetComplete], "no packet after close")
                transport.close()
            }
        }

        /// A connected transport whose reader may coalesce from its first delivered packet on, as an HCI stack
        /// allows it on the reader thread after each packet (`allowed` says whether it does).
        private static func coalescing(
            window: Duration, allowed: @escaping @Sendable () -> Bool = { true },
            atLeast: @escaping @Sendable () -> Int = { 0 }
        ) throws -> (TestListener, TCPTransport, Int32, TransportRecorder) {
            let listener = try TestListener()
            let transport = try TCPTransport(
                host: "127.0.0.1", port: listener.port, connectTimeout: .seconds(5), coalescingWindow: window)
            let controller = listener.accept()
            let recorder = TransportRecorder()
            recorder.start(transport) { _ in transport.coalesceShortPackets(allowed(), atLeast: atLeast()) }
            // Reads wake at the first byte until four packets have shown that each comes in one segment.
            for count in 1...4 {
                writeAll(controller, Packets.resetComplete.encoded)
                #expect(recorder.packets(count: count).count == count)
            }
            #expect(transport.peerSending == .wholePackets)
            return (listener, transport, controller, recorder)
        }

        /// Runs `body` with a transport from ``coalescing(window:allowed:atLeast:)`` and the controller's end of its
        /// connection, closes both, and checks that no descriptor leaked.
        private static func withCoalescing(
            window: Duration, allowed: @escaping @Sendable () -> Bool = { true },
            atLeast: @escaping @Sendable () -> Int = { 0 },
            _ body: (TCPTransport, Int32, TransportRecorder) throws -> Void
        ) throws {
            try expectNoLeakedDescriptors {
                let (listener, transport, controller, recorder) = try coalescing(
                    window: window, allowed: allowed, atLeast: atLeast)
                defer {
                    transport.close()
                    Glibc.close(controller)
                    listener.close()
                }
                try body(transport, controller, recorder)
            }
        }

        @Test("while the host allows it, a completed-packets event waits for the packet behind it: one read for both")
        func shortPacketWaitsForTheNext() throws {
            try Self.withCoalescing(window: .seconds(30)) { transport, controller, recorder in
                writeAll(controller, Packets.completedPackets.encoded)
                usleep(100_000)
                #expect(recorder.packets.count == 4, "the 8-byte event alone does not wake the reader")
                let response = Packets.acl([0x0B, 0x2A, 0x00])
                writeAll(controller, response.encoded)
                #expect(
                    recorder.packets(count: 6, within: .seconds(10)).suffix(2) == [Packets.completedPackets, response])
                #expect(transport.reads == 5)
            }
        }

        @Test("a short packet with nothing behind it comes out when the window ends, and the next one at once")
        func shortPacketAloneAfterTheWindow() throws {
            let window = Duration.milliseconds(300)
            try Self.withCoalescing(window: window) { transport, controller, recorder in
                let clock = ContinuousClock()
                let began = clock.now
                writeAll(controller, Packets.disconnectionComplete.encoded)
                #expect(recorder.packets(count: 5).last == Packets.disconnectionComplete)
                #expect(began.duration(to: clock.now) >= window * 0.9, "held for the window, not delivered at once")
                // Nothing more: the next coalescing read meets its window empty, and reads wake at the first byte
                // until a packet comes.
                usleep(600_000)
                let next = clock.now
                writeAll(controller, Packets.completedPackets.encoded)
                #expect(recorder.packets(count: 6).last == Packets.completedPackets)
                #expect(next.duration(to: clock.now) < window * 0.9, "not held again after an empty window")
                #expect(transport.peerSending == .wholePackets, "one held window is a lone packet, not a stall")
            }
        }

        @Test("short packets that wait out the window twice in a row end coalescing: the controller may be holding what follows")
        func heldWindowsEndCoalescing() throws {
            let window = Duration.milliseconds(300)
            try Self.withCoalescing(window: window) { transport, controller, recorder in
                let clock = ContinuousClock()
                for count in 5...6 {
                    let began = clock.now
                    writeAll(controller, Packets.completedPackets.encoded)
                    #expect(recorder.packets(count: count).count == count)
                    #expect(began.duration(to: clock.now) >= window * 0.9, "held for the window")
                }
                #expect(transport.peerSending == .waitsForACKs)
                let began = clock.now
                writeAll(controller, Packets.completedPackets.encoded)
                #expect(recorder.packets(count: 7).count == 7)
                #expect(began.duration(to: clock.now) < window * 0.9, "delivered at once")
            }
        }

        @Test("a short packet held now and then, among reads that met their bytes, leaves coalescing on")
        func occasionalHeldWindowKeepsCoalescing() throws {
            let window = Duration.milliseconds(300)
            try Self.withCoalescing(window: window) { transport, controller, recorder in
                let clock = ContinuousClock()
                // Longer than a short packet: it meets the read's bytes alone.
                let response = Packets.acl([0x0B, 0x2A, 0x00, 0x01, 0x02])
                var count = 4
                // A slow moment, three answers in time, and another slow moment: as a loaded bench goes.
                for packet in [Packets.completedPackets, response, response, response, Packets.completedPackets] {
                    writeAll(controller, packet.encoded)
                    count += 1
                    #expect(recorder.packets(count: count).count == count)
                }
                #expect(transport.peerSending == .wholePackets, "two held windows apart are a slow controller")
                // Still coalescing: the next short packet waits for what follows it.
                let began = clock.now
                writeAll(controller, Packets.completedPackets.encoded)
                usleep(100_000)
                #expect(recorder.packets.count == count, "the short packet waits")
                writeAll(controller, response.encoded)
                #expect(recorder.packets(count: count + 2, within: .seconds(10)).count == count + 2)
                #expect(began.duration(to: clock.now) < window * 0.9, "the packet behind it ended the wait")
            }
        }

        @Test("held reads end coalescing once they outweigh the reads that met their bytes, two for one")
        func heldWindowsWeighed() {
            var nagle = HeldWindows()
            // A controller that holds the answer behind each short packet: held, then the answer, over and over.
            #expect([true, false, true, false, true].map { nagle.count(held: $0) } == [false, false, false, false, true])
            var twice = HeldWindows()
            #expect([true, true].map { twice.count(held: $0) } == [false, true])
            var loaded = HeldWindows()
            // One held read in four, for a long run, never does.
            let pattern = (0..<1000).map { $0 % 4 == 0 }
            #expect(!pattern.map { loaded.count(held: $0) }.contains(true))
            var slow = HeldWindows()
            // One in two does.
            #expect((0..<6).map { slow.count(held: $0 % 2 == 0) }.contains(true))
        }

        @Test("while the host awaits the rest of a fragmented response, the reader waits for all of it: one read")
        func restOfAResponseInOneRead() throws {
            let fragments = (0..<3).map { Packets.acl([UInt8](repeating: UInt8($0), count: 27)) }
            let rest = fragments.map(\.encoded.count).reduce(0, +)
            // The host says after every packet that it needs all three fragments.
            try Self.withCoalescing(window: .seconds(30), atLeast: { rest }) { transport, controller, recorder in
                let reads = transport.reads
                for fragment in fragments {
                    writeAll(controller, fragment.encoded)
                    usleep(20_000)
                }
                #expect(recorder.packets(count: 7, within: .seconds(10)).suffix(3) == fragments[...])
                #expect(transport.reads == reads + 1, "the three fragments in one read")
            }
        }

        @Test("a fragment already in when the reader starts to wait for the rest counts toward it: no window sat out")
        func fragmentAlreadyInCounts() throws {
            let fragments = (0..<3).map { Packets.acl([UInt8](repeating: UInt8($0), count: 27)) }
            let rest = fragments.map(\.encoded.count).reduce(0, +)
            // (deliveries so far, the controller's socket once the test has it)
            let seen = Mutex<(Int, Int32?)>((0, nil))
            // At the fifth delivery the host asks for all three fragments. The first is then already in the socket
            // when the reader starts to wait: the delivery writes it and gives it time to arrive.
            try Self.withCoalescing(
                window: .seconds(30),
                atLeast: {
                    let (count, controller) = seen.withLock { state in
                        state.0 += 1
                        return state
                    }
                    guard count == 5, let controller else { return 0 }
                    writeAll(controller, fragments[0].encoded)
                    usleep(50_000)
                    return rest
                }
            ) { transport, controller, recorder in
                seen.withLock { $0.1 = controller }
                let reads = transport.reads
                // Longer than a short packet, so that it wakes the reader at once.
                writeAll(controller, Packets.acl([9, 9, 9, 9, 9]).encoded)
                #expect(recorder.packets(count: 5).count == 5)
                usleep(100_000)
                for fragment in fragments.dropFirst() {
                    writeAll(controller, fragment.encoded)
                    usleep(20_000)
                }
                #expect(recorder.packets(count: 8, within: .seconds(10)).suffix(3) == fragments[...])
                #expect(transport.reads == reads + 2, "the packet, then the three fragments in one read")
            }
        }

        @Test("when the host does not allow it, a short packet wakes the reader at once")
        func shortPacketNotHeldWhenNotAllowed() throws {
            try Self.withCoalescing(window: .seconds(30), allowed: { false }) { transport, controller, recorder in
                writeAll(controller, Packets.completedPackets.encoded)
                #expect(recorder.packets(count: 5, within: .seconds(10)).last == Packets.completedPackets)
            }
        }

        @Test("close ends a reader held in a coalescing read")
        func closeEndsACoalescingRead() throws {
            try expectNoLeakedDescriptors {
                let (listener, transport, controller, recorder) = try Self.coalescing(window: .seconds(30))
                defer {
                    Glibc.close(controller)
                    listener.close()
                }
                writeAll(controller, Packets.completedPackets.encoded)
                usleep(50_000)
                let clock = ContinuousClock()
                let began = clock.now
                transport.close()
                #expect(began.duration(to: clock.now) < .seconds(10))
                #expect(recorder.closings.count == 1 && recorder.closings.first! == nil)
            }
        }

        @Test("a transport closed before it started reports closed(nil) at start and holds no descriptor")
        func closedBeforeStart() throws {
            try expectNoLeakedDescriptors {
                let listener = try TestListener()
                defer { listener.close() }
                let transport = try TCPTransport(host: "127.0.0.1", port: listener.port)
                transport.close()
                let recorder = TransportRecorder()
                recorder.start(transport)
                #expect(recorder.closings.count == 1 && recorder.closings.first! == nil)
                let controller = listener.accept()
                Glibc.close(controller)
            }
        }

        @Test("a refused connection asks whether rootcanal is running on that port")
        func refused() throws {
            let port = try {
                let listener = try TestListener()
                listener.close()
                return listener.port
            }()
            expectNoLeakedDescriptors {
                #expect {
                    try TCPTransport(host: "127.0.0.1", port: port)
                } throws: { error in
                    let error = error as? HCITransportError
                    return error?.code == .unavailable
                        && error?.message.hasPrefix("nothing listens at tcp:127.0.0.1:\(port): Connection refused")
                            == true
                        && error?.fix?.contains("is rootcanal running on that port?") == true
                }
            }
        }

        @Test("a listener that never answers times out after the connect timeout")
        func connectTimeout() throws {
            try expectNoLeakedDescriptors {
                // With a backlog of 0 the one queued connection fills the accept queue; further SYNs are dropped.
                let listener = try TestListener(backlog: 0)
                defer { listener.close() }
                let filler = try TCPTransport(host: "127.0.0.1", port: listener.port)
                defer { filler.close() }
                let started = ContinuousClock.now
                #expect {
                    try TCPTransport(host: "127.0.0.1", port: listener.port, connectTimeout: .milliseconds(200))
                } throws: { error in
                    let error = error as? HCITransportError
                    return error?.code == .unavailable
                        && error?.message == "no answer from tcp:127.0.0.1:\(listener.port) within 0.2 seconds"
                }
                #expect(ContinuousClock.now - started < .seconds(1))
            }
        }

        @Test("a tcp spec opens a TCP transport")
        func specOpens() throws {
            let listener = try TestListener()
            defer { listener.close() }
            let transport = try HCITransportSpec.parse("tcp:127.0.0.1:\(listener.port)").open()
            defer { transport.close() }
            #expect(transport is TCPTransport)
            #expect(transport.description == "tcp:127.0.0.1:\(listener.port)")
        }
    }
}

@Suite struct TCPConnectFailureTests {
    @Test(
        "each connect failure is explained",
        arguments: [
            (ECONNREFUSED, HCITransportError.Code.unavailable, "rootcanal"),
            (ETIMEDOUT, .unavailable, "firewall"),
            (EHOSTUNREACH, .unavailable, "host name or address"),
            (EADDRINUSE, .io, nil),
        ] as [(Int32, HCITransportError.Code, String?)])
    func connectFailures(errno: Int32, code: HCITransportError.Code, fix: String?) {
        let error = TCPTransport.connectFailed(Errno(errno), spec: .tcp(host: "10.0.0.2", port: 6402))
        #expect(error.code == code)
        #expect(error.message.contains("tcp:10.0.0.2:6402"))
        #expect(error.message.contains(Errno(errno).name))
        #expect(fix.map { error.fix?.contains($0) == true } ?? (error.fix == nil))
    }
}

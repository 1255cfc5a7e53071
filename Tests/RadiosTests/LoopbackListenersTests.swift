import Foundation
import Testing

@testable import Radios

/// Reading the kernel's listening sockets, and the library that keeps rootcanal's on loopback.
@Suite("Loopback listeners")
struct LoopbackListenersTests {
    /// Rows as the kernel prints them (x86-64): 127.0.0.1:16401 and 0.0.0.0:6402 listening, one connection.
    static let tcp = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:4011 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
           1: 00000000:1902 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0 100 0 0 10 0
           2: 0100007F:4011 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1
        """
    /// ::1:6402 and :::6403 listening.
    static let tcp6 = """
          sl  local_address                         remote_address                        st
           0: 00000000000000000000000001000000:1902 00000000000000000000000000000000:0000 0A 0 0 0
           1: 00000000000000000000000000000000:1903 00000000000000000000000000000000:0000 0A 0 0 0
           2: 0000000000000000FFFF00000100007F:1904 00000000000000000000000000000000:0000 0A 0 0 0
        """

    @Test("IPv4 rows: loopback and wildcard listeners, connections left out")
    func ipv4() {
        let listeners = LoopbackListeners.parse(Self.tcp)
        #expect(listeners.map(\.description) == ["127.0.0.1:16401", "0.0.0.0:6402"])
        #expect(listeners.map(\.isLoopback) == [true, false])
        let table = LoopbackListeners(listeners: listeners)
        #expect(table.exposed(on: [16401, 6402]).map(\.port) == [6402])
        #expect(table.exposed(on: [16401]).isEmpty)
    }

    @Test("IPv6 rows: ::1 and ::ffff:127.0.0.1 are loopback, :: is not")
    func ipv6() {
        let listeners = LoopbackListeners.parse(Self.tcp6)
        #expect(listeners.map(\.isLoopback) == [true, false, true])
        #expect(listeners.map(\.description) == ["[0:0:0:0:0:0:0:1]:6402", "[0:0:0:0:0:0:0:0]:6403", "[::ffff:127.0.0.1]:6404"])
    }

    @Test("the kernel's own tables read: a socket this test listens on 0.0.0.0 is exposed, one on 127.0.0.1 is not")
    func liveTables() throws {
        func listening(on address: UInt32) throws -> (Int32, UInt16) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_addr.s_addr = address.bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &sin) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            try #require(ok, "bind/listen failed")
            return (fd, UInt16(bigEndian: sin.sin_port))
        }
        let (wild, wildPort) = try listening(on: 0)
        let (loop, loopPort) = try listening(on: 0x7F00_0001)
        defer { close(wild); close(loop) }
        let exposed = LoopbackListeners.current().exposed(on: [wildPort, loopPort])
        #expect(exposed.map(\.port) == [wildPort])
    }

    @Test("the library goes first in LD_PRELOAD, keeping what was there")
    func preloading() {
        let library = LoopbackLibrary(path: "/x/libBlerigLoopback.so")
        #expect(library.preloading(into: [:])["LD_PRELOAD"] == "/x/libBlerigLoopback.so")
        #expect(library.preloading(into: ["LD_PRELOAD": "/y/a.so"])["LD_PRELOAD"] == "/x/libBlerigLoopback.so:/y/a.so")
    }

    @Test("without the library blerig refuses to start rootcanal and says how to get it")
    func missingLibrary() {
        #expect(throws: RootcanalError.self) {
            try LoopbackLibrary.locate(environment: [:], executable: "/nonexistent/bin/blerig")
        }
        do {
            _ = try LoopbackLibrary.locate(environment: [:], executable: "/nonexistent/bin/blerig")
        } catch {
            #expect(error.code == .notInstalled)
            #expect(error.description.contains("cannot keep rootcanal on 127.0.0.1"))
        }
    }
}

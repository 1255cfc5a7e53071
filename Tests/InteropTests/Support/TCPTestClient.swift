import Foundation
import Radios

/// A plain blocking TCP client for tests that speak to rootcanal's ports byte by byte, as a host would.
final class TCPTestClient {
    let port: UInt16
    fileprivate let fd: Int32

    /// Connects to 127.0.0.1:`port`; every read waits at most `timeout`.
    init(port: UInt16, timeout: Duration = .seconds(2)) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestFailure("connect to 127.0.0.1:\(port): \(reason)")
        }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw TestFailure("send to port \(port) failed") }
    }

    /// Reads exactly `count` bytes, or throws when the peer closes or the timeout passes.
    func read(_ count: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while result.count < count {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count - result.count, 0) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw TestFailure(
                    "port \(port) gave \(result.count) of \(count) bytes: \(got == 0 ? "closed" : "timed out")")
            }
            result += buffer[..<got]
        }
        return result
    }
}

extension TCPTestClient {
    /// The TCP segments with data this socket has received (`tcpi_data_segs_in` of TCP_INFO, as blerig's transport
    /// reads it): how the peer's bytes were cut on the wire.
    func dataSegmentsIn() throws -> UInt32 {
        guard let segments = TCPTransport.dataSegmentsIn(fd) else {
            throw TestFailure("TCP_INFO on port \(port) gives no tcpi_data_segs_in: \(String(cString: strerror(errno)))")
        }
        return segments
    }
}

/// A test's own failure, with what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

import Foundation

/// The four TCP ports rootcanal serves.
public struct RootcanalPorts: Sendable, Hashable, CustomStringConvertible {
    /// The test channel: topology and timer commands (see ``RootcanalTestChannel``).
    public var test: UInt16
    /// HCI over TCP, H4 framing: every connection is a new controller with its own address.
    public var hci: UInt16
    /// Link-layer bridge for BR/EDR devices.
    public var link: UInt16
    /// Link-layer bridge for LE devices.
    public var linkBLE: UInt16

    public init(test: UInt16, hci: UInt16, link: UInt16, linkBLE: UInt16) {
        self.test = test
        self.hci = hci
        self.link = link
        self.linkBLE = linkBLE
    }

    /// rootcanal's own defaults.
    public static let defaults = RootcanalPorts(test: 6401, hci: 6402, link: 6403, linkBLE: 6404)

    public var all: [UInt16] { [test, hci, link, linkBLE] }

    /// rootcanal's flags for these ports.
    public var arguments: [String] {
        ["-test_port", "\(test)", "-hci_port", "\(hci)", "-link_port", "\(link)", "-link_ble_port", "\(linkBLE)"]
    }

    public var description: String { "test \(test), hci \(hci), link \(link), link-ble \(linkBLE)" }

    /// Four distinct ports that are free right now: the kernel's choice for four sockets bound to port 0 at
    /// once, read back and released. They are picked on every address (0.0.0.0), the stricter test: a port
    /// free there is free on 127.0.0.1, where rootcanal listens (see ``LoopbackLibrary``). Another process may still take one before rootcanal binds it: the
    /// launcher notices and retries.
    public static func free() throws(RootcanalError) -> RootcanalPorts {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [UInt16] = []
        for _ in 0..<4 {
            let fd = socket(AF_INET, SocketType.stream | SocketType.closeOnExec, 0)
            guard fd >= 0 else { throw failure("socket") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = INADDR_ANY
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
                }
            }
            guard bound else { throw failure("bind") }
            ports.append(UInt16(bigEndian: address.sin_port))
        }
        return RootcanalPorts(test: ports[0], hci: ports[1], link: ports[2], linkBLE: ports[3])
    }

    private static func failure(_ call: String) -> RootcanalError {
        RootcanalError(.spawnFailed, "cannot pick free ports for rootcanal: \(call) failed: \(SpawnError.errno())")
    }
}

import Foundation
import Radios
import Testing

extension Interop {
    @Suite("rootcanal launcher")
    struct RootcanalLauncher {
        @Test("rootcanal starts on four free ports, answers list on its test channel and runs a 1 ms tick")
        func startsOnFreePorts() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                #expect(Set(rootcanal.ports.all).count == 4)
                #expect(Set(rootcanal.ports.all).isDisjoint(with: RootcanalPorts.defaults.all))
                #expect(rootcanal.hciSpec == "tcp:127.0.0.1:\(rootcanal.ports.hci)")
                let topology = try await rootcanal.testChannel.list()
                #expect(topology.devices.isEmpty)
                #expect(topology.phys.map(\.kind) == ["BR_EDR", "LOW_ENERGY"])
                // start() already set and verified the 1 ms tick; a second command proves the channel stays in step.
                try await rootcanal.testChannel.setTimerPeriod(.milliseconds(1))
                let log = try #require(rootcanal.log).text
                #expect(log.contains("Listening on: \(rootcanal.ports.hci)"))
                #expect(rootcanal.startupTime < .seconds(10))
            }
        }

        @Test("a host on the HCI port gets Command Complete for HCI_Reset and becomes an LE device")
        func hciResetGetsCommandComplete() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let host = try TCPTestClient(port: rootcanal.hciPort)
                try host.send([0x01, 0x03, 0x0C, 0x00])
                let event = try host.read(7)
                // H4 event, Command Complete (0x0E), 4 parameter bytes, credits, opcode 0x0C03, status success.
                #expect(event[0] == 0x04 && event[1] == 0x0E && event[2] == 4)
                #expect(event[4] == 0x03 && event[5] == 0x0C && event[6] == 0x00)
                let topology = try await rootcanal.testChannel.list()
                #expect(topology.devices.count == 1)
                #expect(topology.devices.first?.address?.count == 17)
                #expect(topology.lowEnergy?.devices == [topology.devices[0].index])
            }
        }

        @Test("two rootcanals at once get their own ports and their own devices")
        func twoAtOnce() async throws {
            try await withInteropScope { scope in
                async let first = scope.rootcanal()
                async let second = scope.rootcanal()
                let both = try await [first, second]
                #expect(Set(both[0].ports.all).isDisjoint(with: both[1].ports.all))
                var hosts: [TCPTestClient] = []
                for rootcanal in both {
                    let host = try TCPTestClient(port: rootcanal.hciPort)
                    try host.send([0x01, 0x03, 0x0C, 0x00])
                    #expect(try host.read(7)[1] == 0x0E)
                    hosts.append(host)
                }
                for rootcanal in both { #expect(try await rootcanal.testChannel.list().devices.count == 1) }
            }
        }

        @Test("a port another process holds is reported with rootcanal's own words, and nothing is left running")
        func takenPortIsDetected() async throws {
            let holder = try PortHolder()
            var ports = try RootcanalPorts.free()
            ports.hci = holder.port
            var options = RootcanalProcess.Options()
            options.ports = ports
            do {
                let rootcanal = try await RootcanalProcess.start(options)
                await rootcanal.stop()
                Issue.record("rootcanal started on port \(holder.port), which another socket holds")
            } catch {
                #expect(error.code == .portInUse)
                #expect(error.message.contains("port \(holder.port)"))
                #expect(error.log?.contains("Address already in use") == true)
            }
            #expect(InteropScope.livingProcesses(withArguments: ["-hci_port", "\(holder.port)"]).isEmpty)
        }

        @Test("attaching to a running rootcanal takes over its test channel; stopping the attachment leaves it running")
        func attaches() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                // rootcanal has one test channel client at a time: while the launcher holds it, attach fails.
                await #expect(throws: RootcanalError.self) {
                    try await RootcanalProcess.attach(ports: rootcanal.ports, timeout: .milliseconds(300))
                }
                rootcanal.testChannel.close()
                let attached = try await RootcanalProcess.attach(ports: rootcanal.ports)
                #expect(attached.process == nil && attached.log == nil)
                #expect(try await attached.testChannel.list().phys.count == 2)
                await attached.stop()
                #expect(rootcanal.process?.exit == nil)
                let again = try await RootcanalProcess.attach(ports: rootcanal.ports, timerPeriod: nil)
                #expect(try await again.testChannel.list().phys.count == 2)
                await again.stop()
            }
        }

        @Test("devices move off and back onto the LE phy; a device that does not exist is refused")
        func movesDevicesBetweenPhys() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let host = try TCPTestClient(port: rootcanal.hciPort)
                try host.send([0x01, 0x03, 0x0C, 0x00])
                _ = try host.read(7)
                let channel = rootcanal.testChannel
                let device = try #require(try await channel.list().devices.first).index
                let le = try #require(try await channel.list().lowEnergy).index
                try await channel.deleteDeviceFromPhy(device: device, phy: le)
                #expect(try await channel.list().lowEnergy?.devices == [])
                try await channel.addDeviceToPhy(device: device, phy: le)
                #expect(try await channel.list().lowEnergy?.devices == [device])
                await #expect(throws: RootcanalError.self) { try await channel.addDeviceToPhy(device: 9, phy: le) }
            }
        }
    }
}

/// A listening socket on a free port, held until released: "another process" holding a port.
final class PortHolder {
    let port: UInt16
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, ok else {
            close(fd)
            throw TestFailure("cannot hold a port: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }

    /// True when nothing listens on `port` any more: it can be bound again.
    static func isFree(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

import BenchCore
import BLECore
import Glibc
import Testing

@testable import Radios

/// A pseudo-terminal: the transport opens the slave's path as its serial port, and the test plays the controller
/// on the master side.
final class TestPTY {
    let master: Int32
    let path: String
    private var slave: Int32

    init() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw Errno.current }
        var name = [CChar](repeating: 0, count: 128)
        guard ttyname_r(slave, &name, name.count) == 0 else { throw Errno.current }
        self.master = master
        self.slave = slave
        path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Closes the test's own slave descriptor once the transport has the port open, so that closing the master
    /// is seen as the device going away.
    func releaseSlave() {
        if slave >= 0 { Glibc.close(slave) }
        slave = -1
    }

    func close() {
        releaseSlave()
        Glibc.close(master)
    }
}

extension TransportIO {
    @Suite struct UARTTransportTests {
        @Test("packets cross a pty both ways")
        func packetsBothWays() throws {
            try expectNoLeakedDescriptors {
                let pty = try TestPTY()
                defer { pty.close() }
                let transport = try UARTTransport(path: pty.path, baud: 1_000_000)
                pty.releaseSlave()
                let recorder = TransportRecorder()
                recorder.start(transport)
                writeAll(pty.master, Packets.resetComplete.encoded)
                #expect(recorder.packets(count: 1) == [Packets.resetComplete])
                try transport.send(Packets.reset)
                try transport.send(Packets.acl([1, 2, 3]))
                let expected = Packets.reset.encoded + Packets.acl([1, 2, 3]).encoded
                #expect(readExactly(pty.master, expected.count) == expected)
                transport.close()
                #expect(recorder.closings.count == 1 && recorder.closings.first! == nil)
            }
        }

        @Test("packets arrive whole and in order however the serial stream is cut", arguments: DripFeed.chunkings)
        func dripFed(_ chunking: DripFeed.Chunking) throws {
            try expectNoLeakedDescriptors {
                let pty = try TestPTY()
                defer { pty.close() }
                let transport = try UARTTransport(path: pty.path, baud: 921_600)
                pty.releaseSlave()
                let recorder = TransportRecorder()
                recorder.start(transport)
                DripFeed.write(to: pty.master, in: chunking.sizes)
                #expect(recorder.packets(count: DripFeed.packets.count) == DripFeed.packets)
                transport.close()
            }
        }

        @Test("the port is raw, 8N1, at the requested rate, with RTS/CTS unless flow=none")
        func portSettings() throws {
            let pty = try TestPTY()
            defer { pty.close() }
            for (baud, speed, flowControl) in [
                (1_000_000, speed_t(B1000000), UARTTransport.FlowControl.rtsCts), (115_200, speed_t(B115200), .none),
            ] {
                let transport = try UARTTransport(path: pty.path, baud: baud, flowControl: flowControl)
                defer { transport.close() }
                var settings = termios()
                #expect(tcgetattr(transport.descriptor, &settings) == 0)
                #expect(cfgetispeed(&settings) == speed && cfgetospeed(&settings) == speed)
                #expect((settings.c_cflag & tcflag_t(CRTSCTS) != 0) == (flowControl == .rtsCts))
                #expect(settings.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
                #expect(settings.c_cflag & tcflag_t(CSIZE | PARENB | CSTOPB) == tcflag_t(CS8))
                #expect(settings.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0)
                #expect(settings.c_iflag & tcflag_t(IXON | ICRNL) == 0)
                #expect(settings.c_oflag & tcflag_t(OPOST) == 0)
                withUnsafeBytes(of: settings.c_cc) { cc in
                    #expect(cc[Int(VMIN)] == 1 && cc[Int(VTIME)] == 0)
                }
            }
        }

        @Test("bytes waiting in the port before it opened are dropped, so the stream starts on a packet boundary")
        func staleInputFlushed() throws {
            try expectNoLeakedDescriptors {
                let pty = try TestPTY()
                defer { pty.close() }
                writeAll(pty.master, [0xFF, 0x0E, 0x04])
                usleep(5000)
                let transport = try UARTTransport(path: pty.path)
                pty.releaseSlave()
                let recorder = TransportRecorder()
                recorder.start(transport)
                writeAll(pty.master, Packets.resetComplete.encoded)
                #expect(recorder.packets(count: 1) == [Packets.resetComplete])
                transport.close()
                #expect(recorder.closings.count == 1 && recorder.closings.first! == nil)
            }
        }

        @Test("a closed master side is the device going away")
        func masterClosed() throws {
            try expectNoLeakedDescriptors {
                let pty = try TestPTY()
                let transport = try UARTTransport(path: pty.path)
                pty.releaseSlave()
                let recorder = TransportRecorder()
                recorder.start(transport)
                writeAll(pty.master, Packets.resetComplete.encoded)
                #expect(recorder.packets(count: 1) == [Packets.resetComplete])
                pty.close()
                let error = try #require(recorder.closedError())
                #expect(error.code == .disconnected)
                #expect(error.message.hasPrefix("serial port \(pty.path) went away"))
                #expect(error.fix?.contains("/dev/serial/by-id/") == true)
                #expect(throws: error) { try transport.send(Packets.reset) }
                transport.close()
            }
        }

        @Test("bytes that are not H4 (a wrong baud rate) end the transport with a framing error")
        func framingLost() throws {
            try expectNoLeakedDescriptors {
                let pty = try TestPTY()
                defer { pty.close() }
                let transport = try UARTTransport(path: pty.path, baud: 115_200, flowControl: .none)
                pty.releaseSlave()
                let recorder = TransportRecorder()
                recorder.start(transport)
                writeAll(pty.master, [0x04, 0x0E, 0x01, 0x00, 0x80, 0x7F])
                let error = try #require(recorder.closedError())
                #expect(error.code == .framing)
                #expect(error.message.contains("0x80 is not 0x01–0x05; framing is lost"))
                #expect(error.fix == "check that its firmware speaks HCI over H4 at 115200 baud with no flow control")
                transport.close()
            }
        }

        @Test("a port another transport holds is busy")
        func exclusive() throws {
            try expectNoLeakedDescriptors {
                let pty = try TestPTY()
                defer { pty.close() }
                let first = try UARTTransport(path: pty.path)
                defer { first.close() }
                #expect(throws: HCITransportError.self) {
                    do throws(HCITransportError) {
                        _ = try UARTTransport(path: pty.path)
                    } catch {
                        #expect(error.code == .busy)
                        #expect(error.message == "\(pty.path) is in use by another program")
                        throw error
                    }
                }
            }
        }

        @Test("a missing port, a file that is not a tty and an unknown rate are each explained")
        func openFailures() {
            expectNoLeakedDescriptors {
                #expect(
                    throws: HCITransportError(
                        .unavailable, "no such serial port /dev/blerig-no-such-port",
                        fix:
                            "is the controller plugged in? `ls /dev/serial/by-id/` lists the serial ports")
                ) {
                    try UARTTransport(path: "/dev/blerig-no-such-port")
                }
                #expect(throws: HCITransportError(.invalidSpec, "/dev/null is not a serial port")) {
                    try UARTTransport(path: "/dev/null")
                }
                #expect {
                    try UARTTransport(path: "/dev/ttyACM0", baud: 1234)
                } throws: { error in
                    let error = error as? HCITransportError
                    return error?.code == .invalidSpec
                        && error?.message.hasPrefix("uart:/dev/ttyACM0@1234: 1234 is not a baud rate") == true
                }
            }
        }

        @Test("a uart spec opens a UART transport")
        func specOpens() throws {
            let pty = try TestPTY()
            defer { pty.close() }
            let transport = try HCITransportSpec.parse("uart:\(pty.path)@115200,flow=none").open()
            defer { transport.close() }
            #expect(transport is UARTTransport)
            #expect(transport.description == "uart:\(pty.path)@115200,flow=none")
        }
    }
}

@Suite struct UARTExplanationTests {
    @Test(
        "each open(2) failure is explained",
        arguments: [
            (ENOENT, HCITransportError.Code.unavailable, "ls /dev/serial/by-id/"),
            (EACCES, .permission, "add the user to the dialout group (`sudo usermod -aG dialout $USER`)"),
            (EPERM, .permission, "dialout"),
            (EBUSY, .busy, "ModemManager"),
            (ENXIO, .unavailable, "plug the controller back in"),
            (EISDIR, .io, nil),
        ] as [(Int32, HCITransportError.Code, String?)])
    func openFailures(errno: Int32, code: HCITransportError.Code, fix: String?) {
        let error = UARTTransport.openFailed(Errno(errno), path: "/dev/ttyACM0")
        #expect(error.code == code)
        #expect(error.message.contains("/dev/ttyACM0"))
        #expect(fix.map { error.fix?.contains($0) == true } ?? (error.fix == nil))
    }

    @Test("settings the port did not keep are reported: the speed, RTS/CTS")
    func refusedSettings() {
        var asked = termios()
        UARTTransport.makeRaw(&asked, speed: speed_t(B1000000), flowControl: .rtsCts)
        #expect(
            UARTTransport.refused(
                asked, speed: speed_t(B1000000), baud: 1_000_000, flowControl: .rtsCts, path: "/dev/x") == nil)

        var slower = asked
        cfsetspeed(&slower, speed_t(B115200))
        let speed = UARTTransport.refused(
            slower, speed: speed_t(B1000000), baud: 1_000_000, flowControl: .rtsCts, path: "/dev/x")
        #expect(speed?.message == "/dev/x cannot be set to 1000000 baud")

        var noFlow = asked
        noFlow.c_cflag &= ~tcflag_t(CRTSCTS)
        let flow = UARTTransport.refused(
            noFlow, speed: speed_t(B1000000), baud: 1_000_000, flowControl: .rtsCts, path: "/dev/x")
        #expect(flow?.message == "/dev/x does not support RTS/CTS flow control")
        #expect(flow?.fix?.contains(",flow=none") == true)
        #expect(
            UARTTransport.refused(noFlow, speed: speed_t(B1000000), baud: 1_000_000, flowControl: .none, path: "/dev/x")
                == nil)
    }
}

import Radios
import Testing

@Suite struct RootcanalStartupLogTests {
    static let ports = RootcanalPorts(test: 17401, hci: 17402, link: 17403, linkBLE: 17404)
    static func line(_ text: String) -> String {
        "root-canal I 11-23 17:39:24.178 posix_async_socket_server.cc:79    \(text)"
    }

    /// rootcanal 1.10's start, abridged.
    static let start = [
        line("starting rootcanal"), line("Listening on: 17401 (3)"), line("Listening on: 17403 (4)"),
        line("Listening on: 17404 (5)"), line("Opening an HCI with port 17402"), line("Listening on: 17402 (6)"),
        line("Test channel SetUp() successful"), line("initialize: Finished"),
    ]

    @Test("ready once every port is listening and initialisation finished, not a line before")
    func readyAtTheEnd() {
        var log = RootcanalStartupLog(expecting: Self.ports)
        for line in Self.start.dropLast() {
            log.feed(line)
            #expect(log.status == .starting)
        }
        #expect(log.unconfirmed.isEmpty)
        log.feed(Self.start.last!)
        #expect(log.status == .ready)
    }

    @Test("a port rootcanal could not bind is reported, though rootcanal keeps going")
    func portInUse() {
        var log = RootcanalStartupLog(expecting: Self.ports)
        let taken = Self.line(
            "Error binding test channel listener socket to port: 17402, Address already in use")
        for line in Self.start { log.feed(line.contains("17402 (6)") ? taken : line) }
        #expect(log.status == .portsInUse([17402]))
        #expect(log.unconfirmed == [17402])
    }

    @Test("another rootcanal's ports do not count")
    func otherPorts() {
        var log = RootcanalStartupLog(expecting: RootcanalPorts(test: 1, hci: 2, link: 3, linkBLE: 4))
        Self.start.forEach { log.feed($0) }
        #expect(log.status == .starting)
        #expect(log.unconfirmed == [1, 2, 3, 4])
    }
}

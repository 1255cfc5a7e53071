import BenchCore
import Radios
import Testing

@Suite struct HCITransportSpecTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        var text: String
        var spec: HCITransportSpec
        var canonical: String
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "tcp:127.0.0.1:6402", spec: .tcp(host: "127.0.0.1", port: 6402), canonical: "tcp:127.0.0.1:6402"),
        Valid(text: "tcp:localhost:1", spec: .tcp(host: "localhost", port: 1), canonical: "tcp:localhost:1"),
        Valid(text: "tcp:[::1]:6402", spec: .tcp(host: "::1", port: 6402), canonical: "tcp:[::1]:6402"),
        Valid(
            text: "uart:/dev/ttyACM0@1000000", spec: .uart(path: "/dev/ttyACM0", baud: 1_000_000, flowControl: .rtsCts),
            canonical: "uart:/dev/ttyACM0@1000000"),
        Valid(
            text: "uart:/dev/ttyUSB1@115200,flow=none",
            spec: .uart(path: "/dev/ttyUSB1", baud: 115_200, flowControl: .none),
            canonical: "uart:/dev/ttyUSB1@115200,flow=none"),
        Valid(
            text: "uart:/dev/ttyAMA0@3000000,flow=rtscts",
            spec: .uart(path: "/dev/ttyAMA0", baud: 3_000_000, flowControl: .rtsCts),
            canonical: "uart:/dev/ttyAMA0@3000000"),
        Valid(
            text: "uart:/dev/serial/by-id/usb-ZEPHYR_HCI_UART_0123-if00",
            spec: .uart(path: "/dev/serial/by-id/usb-ZEPHYR_HCI_UART_0123-if00", baud: 1_000_000, flowControl: .rtsCts),
            canonical: "uart:/dev/serial/by-id/usb-ZEPHYR_HCI_UART_0123-if00@1000000"),
        Valid(text: "hci-user:0", spec: .hciUser(adapter: 0), canonical: "hci-user:0"),
        Valid(text: "hci-user:hci2", spec: .hciUser(adapter: 2), canonical: "hci-user:2"),
    ]

    @Test("a valid spec parses, is written in its canonical form, and that form parses back", arguments: valid)
    func validSpecRoundTrips(_ valid: Valid) throws {
        let spec = try HCITransportSpec.parse(valid.text)
        #expect(spec == valid.spec)
        #expect(spec.description == valid.canonical)
        #expect(try HCITransportSpec.parse(spec.description) == spec)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        var text: String
        /// What the message must say.
        var says: String
        var testDescription: String { text }
    }

    static let invalid: [Invalid] = [
        Invalid(text: "", says: "names no transport; write tcp:HOST:PORT, uart:PATH@BAUD[,flow=none] or hci-user:N"),
        Invalid(text: "127.0.0.1", says: "names no transport"),
        Invalid(text: "usb:0", says: "'usb' is not a transport"),
        Invalid(text: "tcp:localhost", says: "has no port; write tcp:HOST:PORT"),
        Invalid(text: "tcp::6402", says: "has no host"),
        Invalid(text: "tcp:localhost:0", says: "'0' is not a TCP port (1–65535)"),
        Invalid(text: "tcp:localhost:65536", says: "'65536' is not a TCP port"),
        Invalid(text: "tcp:localhost:+64", says: "'+64' is not a TCP port"),
        Invalid(text: "tcp:::1:6402", says: "write an IPv6 host in brackets"),
        Invalid(text: "tcp:[::1]6402", says: "an IPv6 host is written [ADDRESS]:PORT"),
        Invalid(text: "uart:/dev/ttyACM0@1234", says: "'1234' is not a baud rate a serial port can be set to (9600,"),
        Invalid(text: "uart:/dev/ttyACM0@", says: "'' is not a baud rate"),
        Invalid(text: "uart:ttyACM0@115200", says: "'ttyACM0' is not the path of a serial port, such as /dev/ttyACM0"),
        Invalid(text: "uart:/dev/ttyACM0@115200,flow=xonxoff", says: "'flow=xonxoff' is not a UART option"),
        Invalid(text: "hci-user:", says: "'' is not an adapter; write hci-user:0 or hci-user:hci0"),
        Invalid(text: "hci-user:hciX", says: "'hciX' is not an adapter"),
        Invalid(text: "hci-user:65535", says: "'65535' is not an adapter"),
    ]

    @Test("a malformed spec says what is wrong and how to write it", arguments: invalid)
    func invalidSpecIsExplained(_ invalid: Invalid) {
        #expect {
            try HCITransportSpec.parse(invalid.text)
        } throws: { error in
            guard let error = error as? HCITransportError else { return false }
            return error.code == .invalidSpec && error.message.contains(invalid.says)
        }
    }

    @Test("the baud rates a spec may name are the termios rates from 9600 to 4000000")
    func baudRates() {
        #expect(UARTTransport.baudRates.first == 9600)
        #expect(UARTTransport.baudRates.last == 4_000_000)
        for rate in [115_200, 230_400, 460_800, 921_600, 1_000_000, 2_000_000, 3_000_000] {
            #expect(UARTTransport.baudRates.contains(rate))
        }
    }
}

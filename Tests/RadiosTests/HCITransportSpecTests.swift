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
        Invalid(text: "", says: "names no transport; write tcp:HOST:PORT"),
        Invalid(text: "127.0.0.1", says: "names no transport"),
        Invalid(text: "usb:0", says: "'usb' is not a transport"),
        Invalid(text: "tcp:localhost", says: "has no port; write tcp:HOST:PORT"),
        Invalid(text: "tcp::6402", says: "has no host"),
        Invalid(text: "tcp:localhost:0", says: "'0' is not a TCP port (1–65535)"),
        Invalid(text: "tcp:localhost:65536", says: "'65536' is not a TCP port"),
        Invalid(text: "tcp:localhost:+64", says: "'+64' is not a TCP port"),
        Invalid(text: "tcp:::1:6402", says: "write an IPv6 host in brackets"),
        Invalid(text: "tcp:[::1]6402", says: "an IPv6 host is written [ADDRESS]:PORT"),
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
}

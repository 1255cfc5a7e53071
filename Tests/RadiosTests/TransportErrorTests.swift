import BenchCore
import Radios
import Testing

@Suite struct TransportErrorTests {
    @Test func aFixFollowsTheMessage() {
        let error = HCITransportError(.permission, "cannot bind hci0", fix: "run with CAP_NET_ADMIN")
        #expect(error.description == "cannot bind hci0 (run with CAP_NET_ADMIN)")
        #expect(HCITransportError(.io, "read failed").description == "read failed")
    }
}

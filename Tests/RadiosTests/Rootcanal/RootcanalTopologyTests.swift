import Radios
import Testing

@Suite struct RootcanalTopologyTests {
    @Test("an empty farm has the BR/EDR and LE phys and no devices")
    func empty() throws {
        let topology = try RootcanalTopology(
            listReply: " Devices: \r\n Phys: \r\n  0:BR_EDR:  \r\n  1:LOW_ENERGY:  \r\n")
        #expect(topology.devices.isEmpty)
        #expect(topology.phys.map(\.kind) == ["BR_EDR", "LOW_ENERGY"])
        #expect(topology.phys.allSatisfy { $0.devices.isEmpty })
        #expect(topology.lowEnergy?.index == 1)
    }

    @Test("devices carry their index and address; phys list their members (rootcanal 1.10's own words)")
    func devicesAndMembers() throws {
        let reply =
            " Devices: \r\n  0:hci_device@da:4c:10:de:17:00 \r\n  1:hci_device@da:4c:10:de:17:01 \r\n Phys: \r\n"
            + "  0:BR_EDR: 0, \r\n  1:LOW_ENERGY: 0,1, \r\n"
        let topology = try RootcanalTopology(listReply: reply)
        #expect(topology.devices.map(\.index) == [0, 1])
        #expect(topology.devices.map(\.address) == ["da:4c:10:de:17:00", "da:4c:10:de:17:01"])
        #expect(topology.devices[0].description == "hci_device@da:4c:10:de:17:00")
        #expect(topology.phys.map(\.devices) == [[0], [0, 1]])
    }

    @Test(
        "a reply that is not a list is refused",
        arguments: [
            "set timer period to 1", " Devices: \r\n  x:hci \r\n Phys: \r\n", " Devices: \r\n",
            " Phys: \r\n  1:LE: a, \r\n",
        ])
    func malformed(reply: String) {
        #expect(throws: RootcanalError.self) { try RootcanalTopology(listReply: reply) }
    }
}

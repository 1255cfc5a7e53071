import BLECore
import DeviceProfiles

/// A virtual farm: the boards of a rig on one ``VirtualAir`` inside one ``Simulation``, and the central that
/// tests them. Built from the rig file's settings; every board starts powered off.
public final class Farm: @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread; entry points assert it.
    public let sim: Simulation
    public let air: VirtualAir
    public private(set) var boards: [VirtualBoard] = []

    public init(sim: Simulation, link: LinkParameters, faults: LinkFaults = LinkFaults()) {
        self.sim = sim
        air = VirtualAir(sim: sim, parameters: link, faults: faults)
    }

    /// Adds a board of `profile` running its test firmware. Its address is `settings.address`, or one derived from
    /// `id` (``VirtualBoardSettings/defaultAddress(for:profile:)``).
    @discardableResult
    public func addBoard(
        id: String, profile: Profile, settings: VirtualBoardSettings = VirtualBoardSettings()
    ) -> VirtualBoard {
        sim.assertIsolated()
        let firmware = FirmwareCatalog.firmware(for: profile, settings: settings, seed: sim.seed, id: id)
        let address = settings.address ?? VirtualBoardSettings.defaultAddress(for: id, profile: profile)
        let board = VirtualBoard(id: id, address: address, settings: settings, firmware: firmware, air: air)
        air.add(board)
        boards.append(board)
        return board
    }

    /// A central on this farm's air: a controller of its own that holds up to `maxLinks` links and shares its
    /// radio's airtime between them (see ``VirtualCentral`` and ``RadioSchedule``).
    public func central(maxLinks: Int = 8, traffic: (@Sendable (CentralTraffic) -> Void)? = nil) -> VirtualCentral {
        VirtualCentral(air: air, maxLinks: maxLinks, traffic: traffic)
    }
}

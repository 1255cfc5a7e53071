import BLECore
import BenchCore
import DeviceProfiles

/// Everything the virtual farm needs to stand up a bench: the seed, the link and its faults, the radios with
/// their link limits, and the boards with their settings and reset wiring. Built by the orchestrator's
/// composition root from a rig file.
public struct VirtualBenchConfiguration: Sendable {
    public struct Radio: Sendable, Hashable {
        public var id: String
        /// The most simultaneous links this controller holds.
        public var maxLinks: Int

        public init(id: String, maxLinks: Int = VirtualBenchConfiguration.defaultMaxLinks) {
            self.id = id
            self.maxLinks = maxLinks
        }
    }

    public struct Board: Sendable, Hashable {
        public var id: String
        public var profile: Profile
        public var settings: VirtualBoardSettings
        /// The resets its wiring can do (esp32-classic: run and bootloader; none: empty).
        public var resets: [ResetKind]
        /// The advertised name the rig expects, if it names one; the board is then matched on name and address.
        public var expectedName: String?
        /// The radio the board is pinned to; with ``Airs/perRadio`` it lives on that radio's air.
        public var radio: String?

        public init(
            id: String, profile: Profile, settings: VirtualBoardSettings = VirtualBoardSettings(),
            resets: [ResetKind] = [], expectedName: String? = nil, radio: String? = nil
        ) {
            self.id = id
            self.profile = profile
            self.settings = settings
            self.resets = resets
            self.expectedName = expectedName
            self.radio = radio
        }
    }

    /// A realistic controller's link limit (common Nordic and Espressif stacks hold 8 or more; cheap USB dongles
    /// fewer).
    public static let defaultMaxLinks = 8

    /// 2026-01-01 00:00 UTC: where the virtual clock's origin is placed in captures, fixed so that captures of the
    /// same seed are byte-identical.
    public static let defaultUnixTimeAtOrigin: Duration = .seconds(1_767_225_600)

    /// How the radios share the air.
    public enum Airs: Sendable, Hashable {
        /// One air and one simulation for every radio and board.
        case shared
        /// An air per radio with the boards pinned to it, each in a simulation of its own on its own thread: the
        /// radios never hear each other's boards, so each air's run is a function of the seed alone, whichever
        /// thread runs it and whatever the others do.
        case perRadio
    }

    public var seed: UInt64
    public var airs: Airs = .shared
    /// With ``Airs/perRadio``: how many airs are simulated at once (nil: all of them). Results do not depend on it.
    public var parallelAirs: Int?
    public var link: LinkParameters
    public var faults: LinkFaults
    public var radios: [Radio]
    public var boards: [Board]
    public var unixTimeAtOrigin: Duration
    /// The most virtual time the simulation may run: a safety net against a run that never ends.
    public var horizon: Duration

    public init(
        seed: UInt64, link: LinkParameters = LinkParameters(), faults: LinkFaults = LinkFaults(),
        radios: [Radio] = [Radio(id: "radio")], boards: [Board],
        unixTimeAtOrigin: Duration = VirtualBenchConfiguration.defaultUnixTimeAtOrigin,
        horizon: Duration = .seconds(400 * 24 * 3600)
    ) {
        self.seed = seed
        self.link = link
        self.faults = faults
        self.radios = radios
        self.boards = boards
        self.unixTimeAtOrigin = unixTimeAtOrigin
        self.horizon = horizon
    }

    /// The independent parts of the bench: with ``Airs/perRadio`` one per radio, holding the boards pinned to it
    /// (boards pinned to no radio stay with the first); else the whole bench.
    public var parts: [VirtualBenchConfiguration] {
        guard airs == .perRadio, radios.count > 1 else { return [self] }
        return radios.enumerated().map { index, radio in
            var part = self
            part.airs = .shared
            part.radios = [radio]
            part.boards = boards.filter { $0.radio == radio.id || ($0.radio == nil && index == 0) }
            return part
        }
    }
}

import BLECore
import CentralStack
import DeviceProfiles
import VirtualFarm

/// A suite: checks the orchestrator runs on each board, recording them through the board's ``CheckRecorder``.
/// Suites talk to boards only through the ``Central`` interface and the central stack, so the same suite runs on
/// the virtual farm and on hardware.
protocol Suite: Sendable {
    static var name: String { get }
    /// Reads the suite's options from the rig file; problems go to the reader's diagnostics with their place.
    init(options: inout RigMappingReader)
    func run(on board: BoardUnderTest) async
}

/// One board as a suite sees it.
struct BoardUnderTest: Sendable {
    let config: BoardConfig
    let address: DeviceAddress
    let central: any Central
    let recorder: CheckRecorder
    /// Pairing keys the rig holds, shared by every suite of the run.
    let keys: any PairingKeyStore
    let seed: UInt64
    /// The link model's prediction of `handshake.connect_ms` for a connect request at an instant; only on the
    /// virtual farm, where the model is the radio.
    let predictConnect: (@Sendable (RigInstant) -> Duration?)?

    var id: String { config.id }
    var profile: Profile { config.profile }
    var clock: any RigClock { central.clock }
    var spec: ProfileSpec { .standard(profile) }

    /// `esp-01 (rigs/virtual.yaml:14:5)`: the board and where the rig file defines it.
    var place: String { "\(id) (\(config.location))" }

    /// A deterministic random stream for this board and purpose.
    func random(_ purpose: String) -> SeededRandom { SeededRandom(seed: seed, stream: "suite/\(id)/\(purpose)") }

    /// Connects, performs the handshake and runs `body`; the link is closed afterwards.
    func withSession<T: Sendable>(_ body: (ProfileSession) async throws -> T) async throws -> T {
        try await Handshake.withSession(
            central: central, address: address, spec: spec, connectTimeout: .seconds(10), body)
    }

    /// Authenticates an esp-point session, pairing first when the rig holds no key for it.
    func authenticate(_ session: ProfileSession) async throws {
        var random = random("pairing-key")
        let key = (0..<EspPoint.keyLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let paired = try await EspPointClient(session: session).ensureAuthenticated(keys: keys, newKey: { key })
        recorder.log(.info, "central", paired ? "paired and authenticated" : "authenticated with the stored key")
    }
}

/// The suites the orchestrator has, by name.
enum SuiteCatalog {
    static let suites: [any Suite.Type] = [
        DiscoverySuite.self, HandshakeSuite.self, CommandsSuite.self, NotificationsSuite.self,
    ]

    static var names: [String] { suites.map { $0.name } }

    /// The suites of a rig file with their options read; every problem with its place.
    static func plan(_ selections: [SuiteSelection], file: String) throws(RigFileError) -> [any Suite] {
        let diagnostics = RigDiagnostics()
        var planned: [any Suite] = []
        for selection in selections {
            guard let type = suites.first(where: { $0.name == selection.name }),
                var reader = selection.optionsReader(diagnostics: diagnostics)
            else { continue }
            planned.append(type.init(options: &reader))
            reader.rejectUnknownKeys()
        }
        try diagnostics.throwIfAny(file: file)
        return planned
    }
}

extension Duration {
    /// Milliseconds with three decimals, for messages.
    var msText: String { "\((milliseconds * 1000).rounded() / 1000) ms" }
}

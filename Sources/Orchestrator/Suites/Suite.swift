import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Foundation
import Reports

/// A suite: checks the orchestrator runs on each board, recording them through the board's ``CheckRecorder``.
/// Suites talk to boards only through the ``Central`` interface, the bench's capabilities and the central stack,
/// so the same suite runs on the virtual farm and on hardware.
protocol Suite: Sendable {
    static var name: String { get }
    /// Reads the suite's options from the rig file; problems go to the reader's diagnostics with their place.
    init(options: inout RigMappingReader)
    /// How long one of its checks may take on the bench clock before it is ended as interrupted, unless the rig
    /// sets `check_timeout_s`: generous, and longer for suites whose options make them long.
    var defaultCheckTimeout: Duration { get }
    func run(on board: BoardUnderTest) async
}

/// A suite as a rig selected it: the suite with its options, and the timeout of each of its checks.
struct PlannedSuite: Sendable {
    let suite: any Suite
    let checkTimeout: Duration

    var name: String { type(of: suite).name }
}

/// One board as a suite sees it: how to reach it, the link the scheduler gave it, and where its checks go.
struct BoardUnderTest: Sendable {
    let config: BoardConfig
    /// The address it advertised from in preflight.
    let address: DeviceAddress
    let match: BoardMatch
    /// The central of the radio whose link this board holds.
    let central: any Central
    let clock: any RigClock
    let recorder: CheckRecorder
    /// Pairing keys the rig holds, shared by every suite of the run.
    let keys: any PairingKeyStore
    let seed: UInt64
    /// The timeout of each check of the suite running now.
    var checkTimeout: Duration = .seconds(600)
    /// The rig's local ingest server for the `sync` suite on a wall-clock bench; nil on the virtual farm, which
    /// simulates its ingest.
    var syncIngestURL: URL?

    var id: String { config.id }
    var profile: Profile { config.profile }
    var spec: ProfileSpec { .standard(profile) }

    /// `esp-01 (rigs/virtual.yaml:14:5)`: the board and where the rig file defines it.
    var place: String { "\(id) (\(config.location))" }

    /// A deterministic random stream for this board and purpose.
    func random(_ purpose: String) -> SeededRandom { SeededRandom(seed: seed, stream: "suite/\(id)/\(purpose)") }

    /// Runs `body` as the check `suite`/`name` within the suite's check timeout.
    @discardableResult
    func check(
        _ suite: String, _ name: String, _ body: @escaping @Sendable () async throws -> [MeasuredValue]
    ) async -> TestOutcome {
        await recorder.check(suite, name, timeout: checkTimeout, body)
    }

    /// Connects, performs the handshake and runs `body`; the link is closed afterwards. The board is `connected`
    /// while the session lasts.
    func withSession<T: Sendable>(_ body: (ProfileSession) async throws -> T) async throws -> T {
        let recorder = recorder
        defer { recorder.move(to: .advertising, reason: "link closed") }
        return try await Handshake.withSession(
            central: central, address: address, spec: spec, connectTimeout: .seconds(10)
        ) { session in
            recorder.move(
                to: .connected,
                reason: "handshake done in \(session.timeline.total.msText) (MTU \(session.mtu))")
            return try await body(session)
        }
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
        DiscoverySuite.self, HandshakeSuite.self, CommandsSuite.self, NotificationsSuite.self, SyncSuite.self,
    ]

    static var names: [String] { suites.map { $0.name } }

    /// The option every suite takes: how long each of its checks may run on the bench clock.
    static let checkTimeoutKey = "check_timeout_s"

    /// The suites of a rig file with their options read; every problem with its place.
    static func plan(_ selections: [SuiteSelection], file: String) throws(RigFileError) -> [PlannedSuite] {
        let diagnostics = RigDiagnostics()
        var planned: [PlannedSuite] = []
        for selection in selections {
            guard let type = suites.first(where: { $0.name == selection.name }),
                var reader = selection.optionsReader(diagnostics: diagnostics)
            else { continue }
            let timeout = reader.number(checkTimeoutKey, in: 1...(30 * 86_400), unit: "s")
            let suite = type.init(options: &reader)
            reader.rejectUnknownKeys()
            planned.append(
                PlannedSuite(
                    suite: suite, checkTimeout: timeout.map { .milliseconds($0 * 1000) } ?? suite.defaultCheckTimeout))
        }
        try diagnostics.throwIfAny(file: file)
        return planned
    }
}

extension Duration {
    /// Milliseconds with three decimals, for messages.
    var msText: String { "\((milliseconds * 1000).rounded() / 1000) ms" }
}

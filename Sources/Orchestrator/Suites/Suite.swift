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
    /// What `blerig suites` says about it: options with defaults, metrics with definitions (``SuiteAbout``).
    static var about: SuiteAbout { get }
    /// Reads the suite's options from the rig file; problems go to the reader's diagnostics with their place.
    init(options: inout RigMappingReader)
    /// How long one of its checks may take on the bench clock before it is ended as interrupted, unless the rig
    /// sets `check_timeout_s`: generous, and longer for suites whose options make them long.
    var defaultCheckTimeout: Duration { get }
    /// The checks the suite runs on a board of `profile`, in order, whatever happens: a check that does not apply
    /// to the profile is not among them (and the suite records it as not applicable, if at all). The run's plan
    /// (``Reports/RunEvent/RunStarted/plan``) is made of these, so every run of a rig has the same testcases.
    func checkNames(for profile: Profile) -> [String]
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
    /// The board's bench capabilities (power switch, reset, console), each nil where the rig gives the board none:
    /// how suites inject faults, so the same suite runs on hardware.
    let bench: BenchBoard
    /// The central of the radio whose link this board holds.
    let central: any Central
    let clock: any RigClock
    let recorder: CheckRecorder
    /// Pairing keys the rig holds, shared by every suite of the run.
    let keys: any PairingKeyStore
    let seed: UInt64
    /// The boards' GATT tables, cached by identity and Database Hash for the whole run: every session's handshake
    /// uses it, so an esp-point is discovered once and reconnects skip discovery.
    let gattCache: any GATTCache
    /// The lines the board's console printed (the campaign holds the console's one handler).
    let consoleLog: ConsoleMonitor
    /// The Unix time at which ``clock`` read zero (``Bench/unixTimeAtOrigin``): dates of saved state.
    var unixTimeAtOrigin: Duration = .zero
    /// The timeout of each check of the suite running now.
    var checkTimeout: Duration = .seconds(600)
    /// The link's modelled capacity for unacknowledged data in bytes per second, when the link is modelled (the
    /// virtual farm): packets_per_event × (data_length − 7) / connection interval. Nil on hardware.
    var unacknowledgedCapacity: Double?
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
    /// while the session lasts. A raw session, not the app's: suites give their work to the app's central
    /// (``appCentral(purpose:policy:spec:store:cache:report:)``); only the pairing suite's bare and wrong-key centrals use this.
    func withSession<T: Sendable>(_ body: (ProfileSession) async throws -> T) async throws -> T {
        try await withSession(cache: gattCache, body)
    }

    /// ``withSession(_:)`` with another GATT cache, or none (every handshake then discovers, as before caching).
    func withSession<T: Sendable>(
        cache: (any GATTCache)?, _ body: (ProfileSession) async throws -> T
    ) async throws -> T {
        let recorder = recorder
        defer { recorder.move(to: .advertising, reason: "link closed") }
        return try await Handshake.withSession(
            central: central, address: address, spec: spec, connectTimeout: .seconds(10), cache: cache
        ) { session in
            recorder.move(
                to: .connected,
                reason: "handshake done in \(session.timeline.total.msText) (MTU \(session.mtu))")
            return try await body(session)
        }
    }
}

/// The suites the orchestrator has, by name.
enum SuiteCatalog {
    static let suites: [any Suite.Type] = [
        DiscoverySuite.self, HandshakeSuite.self, CommandsSuite.self, NotificationsSuite.self,
        AlertsSuite.self, PairingSuite.self,
        SoakSuite.self, RestoreSuite.self,
        OTASuite.self, SyncSuite.self, PowerSuite.self,
    ]

    static var names: [String] { suites.map { $0.name } }

    /// The option every suite takes: how long each of its checks may run on the bench clock.
    static let checkTimeoutKey = "check_timeout_s"

    /// The suites of a rig file with their options read; every problem with its place.
    static func plan(_ selections: [SuiteSelection], file: String) throws(RigFileError) -> [PlannedSuite] {
        let diagnostics = RigDiagnostics()
        let planned = plan(selections, diagnostics: diagnostics)
        try diagnostics.throwIfAny(file: file)
        return planned
    }

    /// The suites with their options read; problems go to `diagnostics`, beside the rest of the file's.
    static func plan(_ selections: [SuiteSelection], diagnostics: RigDiagnostics) -> [PlannedSuite] {
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
        return planned
    }
}

extension Duration {
    /// Milliseconds with three decimals, for messages.
    var msText: String { "\((milliseconds * 1000).rounded() / 1000) ms" }
}

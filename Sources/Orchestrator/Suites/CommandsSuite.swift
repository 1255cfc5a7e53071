import BLECore
import CentralStack
import DeviceProfiles
import Reports

/// `commands`: switches the board's light on and off (the LED of an esp-point or a Nano, the alert light of an
/// hrm) and measures `gatt.write_rtt_ms`, Write Request → Write Response. An esp-point is paired or authenticated
/// first and must confirm each command on Command Status; it must also refuse a bad argument.
///
/// The commands are the app's: work given to the suite's ``AppCentral``, whose machine scans, connects and pairs or
/// authenticates (an esp-point, with the rig's key) before it hands the session over. So `pair or authenticate`
/// passes when the app's machine handed over its session and the rig holds the board's key for the suites after
/// this one, and fails with the reason when no session came (the other checks are then skipped).
struct CommandsSuite: Suite {
    static let name = "commands"
    var repetitions = 10

    static let rttDefinition = "Write Request sent → Write Response received"

    init(options: inout RigMappingReader) {
        if let count = options.integer("repetitions", in: 1...10_000) { repetitions = count }
    }

    /// Each write is answered within the ATT timeout of 30 s at worst.
    var defaultCheckTimeout: Duration { .seconds(120) + .seconds(60) * repetitions }

    func checkNames(for profile: Profile) -> [String] { Self.checkNames(profile) }

    func run(on board: BoardUnderTest) async {
        let repetitions = repetitions
        if let data = board.profile.data {
            guard let commands = data.commands else {
                return board.recorder.notApplicable(
                    Self.name, "commands", reason: "the \(data.name) profile describes no commands")
            }
            return await runDescribed(commands, repetitions: repetitions, on: board)
        }
        let heldKey = board.keys.key(for: board.address) != nil
        do {
            try await board.withAppCentral(purpose: "commands") { app in
                try await app.perform("switching the light", attempts: .failWithTheAttempt) { session in
                    await Self.checks(on: session, board: board, repetitions: repetitions, heldKey: heldKey)
                }
            }
        } catch {
            // No session: the first check fails with why, the others are skipped, so the check names (and each
            // check's CI history) are the same whatever happened.
            guard !Task.isCancelled else { return }
            await board.failFirst(
                Self.name, Self.checkNames(board.profile), message: "\(board.place): \(error)",
                skipping: "no session with the board: \(error)")
        }
    }

    /// The checks, on the session the app's machine made ready (and authenticated, for an esp-point).
    private static func checks(on session: ProfileSession, board: BoardUnderTest, repetitions: Int, heldKey: Bool) async
    {
        if board.profile == .espPoint {
            let outcome = await board.check(Self.name, "pair or authenticate") {
                // The machine authenticated before it handed the session over: with the key the rig held, or with
                // the one it paired with, which the rig must now hold.
                guard board.keys.key(for: board.address) != nil else {
                    throw CheckFailure(
                        "\(board.place): the app central's session came, but the rig holds no key for it")
                }
                board.recorder.log(
                    .info, "central",
                    heldKey
                        ? "the app central authenticated with the stored key"
                        : "the app central paired and authenticated")
                return []
            }
            guard outcome == .passed else {
                return board.skip(
                    Self.name, ["light on/off", "bad argument refused"], reason: "the board is not authenticated")
            }
        }
        await board.check(Self.name, "light on/off") {
            var rtt = LatencyHistogram(metric: "gatt.write_rtt_ms", definition: Self.rttDefinition)
            for _ in 0..<repetitions {
                for on in [true, false] {
                    rtt.record(try await Self.switchLight(on, board: board, session: session))
                }
            }
            return rtt.measurements
        }
        if board.profile == .espPoint {
            await board.check(Self.name, "bad argument refused") {
                let status = try await EspPointClient(session: session).exchange(.setInterval(seconds: 0)).status
                guard status.code == .badArguments else {
                    throw CheckFailure("\(board.place): SET_INTERVAL 0 answered \(status.code), expected bad arguments")
                }
                return []
            }
        }
    }

    /// The checks this suite runs on a board of `profile`, in order.
    static func checkNames(_ profile: Profile) -> [String] {
        if let data = profile.data { return data.commands.map { [$0.check] } ?? [] }
        return profile == .espPoint
            ? ["pair or authenticate", "light on/off", "bad argument refused"] : ["light on/off"]
    }

    /// Switches the light and returns the write's round trip; an esp-point must then report status ok.
    private static func switchLight(_ on: Bool, board: BoardUnderTest, session: ProfileSession) async throws -> Duration
    {
        let clock = board.clock
        switch board.profile {
        case .nano33BLESense:
            let start = clock.now
            try await Nano33Client(session: session).setLED(on: on)
            return start.duration(to: clock.now)
        case .hrm:
            let start = clock.now
            try await HeartRateClient(session: session).setAlert(on ? .redAlert : .turnOff)
            return start.duration(to: clock.now)
        case .espPoint:
            let (status, rtt) = try await EspPointClient(session: session).exchange(.setLED(on: on))
            guard status.code == .ok else {
                throw CheckFailure("\(board.place): SET_LED \(on ? 1 : 0) answered \(status.code)")
            }
            return rtt
        case .described:
            preconditionFailure("a described board's commands are its profile's writes (runDescribed)")
        }
    }
}

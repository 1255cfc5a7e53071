import BLECore
import CentralStack
import DeviceProfiles
import Reports

/// `commands`: switches the board's light on and off (the LED of an esp-point or a Nano, the alert light of an
/// hrm) and measures `gatt.write_rtt_ms`, Write Request → Write Response. An esp-point is paired or authenticated
/// first and must confirm each command on Command Status; it must also refuse a bad argument.
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
        do {
            try await board.withSession { session in
                if board.profile == .espPoint {
                    let outcome = await board.check(Self.name, "pair or authenticate") {
                        try await board.authenticate(session)
                        return []
                    }
                    guard outcome == .passed else {
                        board.recorder.skip(
                            Self.name, "light on/off", reason: "the board is not authenticated")
                        return
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
                        let status = try await EspPointClient(session: session)
                            .exchange(.setInterval(seconds: 0)).status
                        guard status.code == .badArguments else {
                            throw CheckFailure(
                                "\(board.place): SET_INTERVAL 0 answered \(status.code), expected bad arguments")
                        }
                        return []
                    }
                }
            }
        } catch {
            // No session: the first check fails with why, the others are skipped, so the check names (and each
            // check's CI history) are the same whatever happened.
            guard !Task.isCancelled else { return }
            let message = "\(board.place): \(error)"
            let names = Self.checkNames(board.profile)
            await board.check(Self.name, names[0]) { throw CheckFailure(message) }
            for name in names.dropFirst() {
                board.recorder.skip(Self.name, name, reason: "no session with the board: \(error)")
            }
        }
    }

    /// The checks this suite runs on a board of `profile`, in order.
    static func checkNames(_ profile: Profile) -> [String] {
        if let data = profile.data { return data.commands.map { [$0.check] } ?? [] }
        return profile == .espPoint ? ["pair or authenticate", "light on/off", "bad argument refused"] : ["light on/off"]
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

import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Reports

/// `pairing` (esp-point boards; docs/board-contract.md, "Pairing and authentication"), one connection per check:
///
/// 1. `pair in pairing mode`: PAIR_BEGIN must be refused (status 3) while the board is not in pairing mode; the
///    suite then puts it there with the console's `pair` (the button) — or, without a console, with FACTORY_RESET
///    authenticated by the rig's key — and pairs with PAIR_BEGIN + PAIR_CONFIRM using the key the rig holds (a new
///    one if it holds none), so later suites authenticate with it.
/// 2. `unpaired central: 0 protected writes accepted` and 3. `wrong-key central: 0 protected writes accepted`:
///    a central that never answers the challenge, and one whose answer comes from a wrong key (refused with ATT
///    0x0E), try every protected write — each Command but PAIR_*, each Log Control request, each OTA Control
///    request — and count acceptances, which must be 0, each refused with ATT 0x05.
/// 4. `rig key authenticates`: the rig's key answers the challenge and unlocks a protected write (SET_LED), so the
///    refusals above are not a board that refuses everyone.
///
/// Checks 1–3 open raw sessions (``BoardUnderTest/withSession(_:)``) on purpose: they play a central the app never
/// is — one that drives pairing mode and PAIR_BEGIN by hand, one that never answers the challenge, one that answers
/// with a wrong key — and the app's central would authenticate before handing over a session. Check 4 is the app's
/// central (``AppCentral``), which authenticates with the key check 1 stored.
struct PairingSuite: Suite {
    static let name = "pairing"
    static let checks = [
        "pair in pairing mode", "unpaired central: 0 protected writes accepted",
        "wrong-key central: 0 protected writes accepted", "rig key authenticates",
    ]
    static let acceptedDefinition =
        "protected writes (Command other than PAIR_*, Log Control, OTA Control) the board accepted from a central "
        + "that did not authenticate"

    init(options: inout RigMappingReader) {}

    var defaultCheckTimeout: Duration { .seconds(300) }

    func checkNames(for profile: Profile) -> [String] { profile == .espPoint ? Self.checks : [] }

    func run(on board: BoardUnderTest) async {
        guard board.profile == .espPoint else {
            for name in Self.checks {
                board.recorder.notApplicable(
                    Self.name, name, reason: "pairing is the esp-point's; this is \(board.profile)")
            }
            return
        }
        let paired = await board.check(Self.name, Self.checks[0]) {
            try await board.withSession { session in try await Self.pair(session, board: board) }
        }
        guard paired == .passed, let key = board.keys.key(for: board.address) else {
            return board.skip(
                Self.name, Self.checks.dropFirst(), reason: "the board could not be paired with the rig's key")
        }
        await board.check(Self.name, Self.checks[1]) {
            try await board.withSession { session in
                try Self.verdict(
                    await Self.tryProtectedWrites(session, board: board), central: "unpaired", place: board.place)
            }
        }
        await board.check(Self.name, Self.checks[2]) {
            try await board.withSession { session in
                var random = board.random("wrong-key")
                var wrong = key
                while wrong == key {
                    wrong = (0..<EspPoint.keyLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                }
                do {
                    try await EspPointClient(session: session).authenticate(key: wrong)
                    throw CheckFailure("\(board.place): the board accepted the answer computed with a wrong key")
                } catch SessionError.authenticationFailed {
                    // Refused with 0x0E, as the contract says.
                }
                return try Self.verdict(
                    await Self.tryProtectedWrites(session, board: board), central: "wrong-key", place: board.place)
            }
        }
        await board.check(Self.name, Self.checks[3]) {
            // The app's central: its machine authenticates with the stored key before it offers the session.
            try await board.withAppCentral(purpose: "pairing") { app in
                try await app.perform("a protected write") { session in
                    try await Self.protectedLEDWrite(session, board: board)
                }
            }
        }
    }

    /// Check 4's write on a session the app's central authenticated.
    static func protectedLEDWrite(_ session: ProfileSession, board: BoardUnderTest) async throws -> [MeasuredValue] {
        let (status, _) = try await EspPointClient(session: session).exchange(.setLED(on: false))
        guard status.code == .ok else {
            throw CheckFailure("\(board.place): authenticated, but SET_LED 0 answered \(status.code)")
        }
        return []
    }

    /// Check 1: the refusal outside pairing mode, entering it, PAIR_BEGIN + PAIR_CONFIRM, authentication.
    static func pair(_ session: ProfileSession, board: BoardUnderTest) async throws -> [MeasuredValue] {
        let client = EspPointClient(session: session)
        var nonce = try await client.exchange(.pairBegin).status
        var entered = "it was already in pairing mode"
        if nonce.code == .notInPairingMode {
            try await enterPairingMode(client, board: board)
            entered = board.bench.console != nil ? "console `pair`" : "FACTORY_RESET"
            nonce = try await waitForPairingMode(client, board: board)
        } else if nonce.code != .ok {
            throw CheckFailure("\(board.place): PAIR_BEGIN answered \(nonce.code)")
        }
        guard nonce.payload.count == 16 else {
            throw CheckFailure("\(board.place): PAIR_BEGIN returned a \(nonce.payload.count)-byte nonce, not 16")
        }
        let key =
            board.keys.key(for: board.address)
            ?? {
                var random = board.random("pairing-key")
                return (0..<EspPoint.keyLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }()
        try await client.send(.pairConfirm(key: key))
        board.keys.store(key, for: board.address)
        try await client.authenticate(key: key)
        let again = try await client.exchange(.pairBegin).status
        guard again.code == .notInPairingMode else {
            throw CheckFailure(
                "\(board.place): after PAIR_CONFIRM, PAIR_BEGIN answered \(again.code), not 'not in pairing mode'")
        }
        board.recorder.log(.info, "central", "paired with the rig's key (pairing mode: \(entered)) and authenticated")
        return []
    }

    /// The button (the console's `pair`), or FACTORY_RESET authenticated with the rig's key.
    private static func enterPairingMode(_ client: EspPointClient, board: BoardUnderTest) async throws {
        if let console = board.bench.console {
            try await console.send("pair")
            return
        }
        guard let key = board.keys.key(for: board.address) else {
            throw CheckFailure(
                "\(board.place): the board is paired with a key the rig does not hold and the rig gives it no console "
                    + "to press `pair` with; factory-reset it by hand or add its serial port to the rig")
        }
        try await client.authenticate(key: key)
        try await client.send(.factoryReset)
    }

    /// PAIR_BEGIN until the board accepts it, for a few seconds (the console line takes a moment to arrive).
    private static func waitForPairingMode(
        _ client: EspPointClient, board: BoardUnderTest
    ) async throws -> EspPoint.CommandStatus {
        var last = EspPoint.CommandStatus.Code.notInPairingMode
        for _ in 0..<20 {
            try await board.clock.sleep(for: .milliseconds(250))
            let status = try await client.exchange(.pairBegin).status
            if status.code == .ok { return status }
            last = status.code
        }
        throw CheckFailure(
            "\(board.place): the board did not enter pairing mode within 5 s; PAIR_BEGIN answers \(last)")
    }

    /// One protected write and what the board did with it.
    struct Attempt: Sendable {
        var what: String
        /// nil: accepted.
        var refusal: ATT.ErrorCode?
    }

    /// Every protected write the contract lists, harmless ones first: should a board accept one, the destructive
    /// ones (FACTORY_RESET, ACTIVATE, REBOOT) come last.
    static func protectedWrites(unixTime: UInt32) -> [(what: String, characteristic: BluetoothUUID, bytes: [UInt8])] {
        let commands: [(String, EspPoint.Command)] = [
            ("SET_LED", .setLED(on: true)), ("SET_INTERVAL", .setInterval(seconds: 3600)),
            ("SET_TIME", .setTime(unix: unixTime)), ("IDENTIFY", .identify),
        ]
        let log: [(String, EspPoint.LogRequest)] = [
            ("Log STATUS", .status), ("Log READ", .read(from: 0, maxCount: 1)), ("Log ACK", .acknowledge(upTo: 0)),
        ]
        var writes = commands.map { ($0.0, EspPoint.command, $0.1.encoded) }
        writes += log.map { ($0.0, EspPoint.logControl, $0.1.encoded) }
        writes += [
            ("OTA STATUS", EspPoint.otaControl, [0x04]),
            ("OTA START", EspPoint.otaControl, [0x01, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 1, 5, 0, 0, 10, 1]),
            ("OTA FINISH", EspPoint.otaControl, [0x02]),
            ("FACTORY_RESET", EspPoint.command, EspPoint.Command.factoryReset.encoded),
            ("OTA ACTIVATE", EspPoint.otaControl, [0x03]),
            ("REBOOT", EspPoint.command, EspPoint.Command.reboot.encoded),
        ]
        return writes
    }

    static func tryProtectedWrites(_ session: ProfileSession, board: BoardUnderTest) async throws -> [Attempt] {
        let unix = UInt32(clamping: Int64(board.clock.now.sinceOrigin.seconds) + 1_767_225_600)
        var attempts: [Attempt] = []
        for write in protectedWrites(unixTime: unix) {
            let handle = try session.characteristic(write.characteristic).valueHandle
            do throws(GATTError) {
                try await session.connection.write(write.bytes, to: handle)
                attempts.append(Attempt(what: write.what, refusal: nil))
            } catch {
                guard case let .att(code, _, _) = error else {
                    throw CheckFailure("\(board.place): \(write.what) without authentication: \(error)")
                }
                attempts.append(Attempt(what: write.what, refusal: code))
            }
        }
        return attempts
    }

    /// Passes when nothing was accepted and every refusal was 0x05; reports the counts either way.
    static func verdict(_ attempts: [Attempt], central: String, place: String) throws -> [MeasuredValue] {
        let accepted = attempts.filter { $0.refusal == nil }
        let otherCode = attempts.filter { $0.refusal != nil && $0.refusal != .insufficientAuthentication }
        let measurements = [
            MeasuredValue(
                metric: "pairing.protected_writes_tried", statistic: .value, value: Double(attempts.count),
                unit: .count, definition: "protected writes a \(central) central tried"),
            MeasuredValue(
                metric: "pairing.protected_writes_accepted", statistic: .value, value: Double(accepted.count),
                unit: .count, definition: acceptedDefinition + " (\(central) central)"),
        ]
        var problems: [String] = []
        if !accepted.isEmpty {
            problems.append(
                "\(accepted.count) of \(attempts.count) protected writes accepted from a \(central) central: "
                    + accepted.map(\.what).joined(separator: ", "))
        }
        if !otherCode.isEmpty {
            problems.append(
                "refused with another code than 0x05 Insufficient Authentication: "
                    + otherCode.map { "\($0.what) \($0.refusal!)" }.joined(separator: ", "))
        }
        guard problems.isEmpty else {
            throw MeasuredFailure(
                failure: CheckFailure("\(place): " + problems.joined(separator: "; ")), measurements: measurements)
        }
        return measurements
    }
}

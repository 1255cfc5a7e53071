import BLECore
import Crypto
import DeviceProfiles

/// Pairing and authentication (docs/board-contract.md, esp-point "Pairing and authentication"): the key a central
/// chose at PAIR_CONFIRM, pairing mode, and per connection the Auth challenge and whether it was answered.
///
/// The key and pairing mode are in flash (NVS) and survive every reset; the connections' state and the random
/// stream the challenges and nonces come from are RAM, cleared at every boot (``rebooted(random:)``).
final class EspPointAuthService {
    /// One central's state on one connection.
    struct Session {
        /// The Auth challenge of this connection; replaced after a wrong answer.
        var challenge: [UInt8]
        var authenticated = false
        /// Set by PAIR_BEGIN; PAIR_CONFIRM needs it on the same connection.
        var pairingNonce: [UInt8]?
    }

    weak var board: VirtualBoard?

    // MARK: Flash

    /// The 32-byte key the central chose at PAIR_CONFIRM; nil until paired and after FACTORY_RESET.
    private(set) var key: [UInt8]?
    /// On first boot, after FACTORY_RESET and after the console's `pair`.
    private(set) var pairingMode = true

    // MARK: RAM

    var sessions: [GATTServer.ConnectionID: Session] = [:]
    private var random = SeededRandom(seed: 0)

    /// Boot: no connection, and a new random stream for this boot's challenges.
    func rebooted(random: SeededRandom) {
        sessions = [:]
        self.random = random
    }

    var isPaired: Bool { key != nil }

    func isAuthenticated(_ connection: GATTServer.ConnectionID) -> Bool {
        sessions[connection]?.authenticated == true
    }

    /// A central connected: its connection gets a fresh challenge.
    func opened(_ connection: GATTServer.ConnectionID) {
        sessions[connection] = Session(challenge: freshChallenge())
    }

    func closed(_ connection: GATTServer.ConnectionID) { sessions[connection] = nil }

    // MARK: Auth

    /// A read of Auth: the connection's challenge.
    func challenge(on connection: GATTServer.ConnectionID) -> Result<[UInt8], ATT.ErrorCode> {
        guard let session = sessions[connection] else { return .failure(.unlikelyError) }
        return .success(session.challenge)
    }

    /// A write to Auth: the first 16 bytes of HMAC-SHA256(key, challenge) authenticate the connection. Anything
    /// else — including any answer while the board holds no key — fails with 0x0E and a new challenge.
    func answer(_ value: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard let session = sessions[connection] else { return .unlikelyError }
        if let key, value == Self.expectedAnswer(challenge: session.challenge, key: key) {
            sessions[connection]?.authenticated = true
            board?.log(.info, "AUTH", "ok")
            return nil
        }
        sessions[connection]?.authenticated = false
        sessions[connection]?.challenge = freshChallenge()
        board?.log(.warning, "AUTH", key == nil ? "answer refused: not paired" : "wrong answer: new challenge")
        return .unlikelyError
    }

    static func expectedAnswer(challenge: [UInt8], key: [UInt8]) -> [UInt8] {
        let code = HMAC<SHA256>.authenticationCode(for: challenge, using: SymmetricKey(data: key))
        return Array(Array(code).prefix(EspPoint.challengeLength))
    }

    // MARK: Pairing

    /// PAIR_BEGIN in pairing mode: a nonce for this connection, which PAIR_CONFIRM must follow on. Nil when the
    /// board is not in pairing mode.
    func beginPairing(on connection: GATTServer.ConnectionID) -> [UInt8]? {
        guard pairingMode else { return nil }
        let nonce = randomBytes(16)
        sessions[connection]?.pairingNonce = nonce
        board?.log(.info, "PAIR", "begin")
        return nonce
    }

    /// PAIR_CONFIRM: stores `newKey` and leaves pairing mode. It belongs to a PAIR_BEGIN on the same connection;
    /// without one the board is, for this central, not pairing (false).
    func confirmPairing(key newKey: [UInt8], on connection: GATTServer.ConnectionID) -> Bool {
        guard pairingMode, sessions[connection]?.pairingNonce != nil else { return false }
        key = newKey
        pairingMode = false
        sessions[connection]?.pairingNonce = nil
        board?.log(.info, "PAIR", "paired: key stored")
        return true
    }

    /// The `pair` button or a factory reset: the board accepts PAIR_BEGIN until a central pairs (the old key still
    /// authenticates until then).
    func enterPairingMode(because why: String) {
        pairingMode = true
        board?.log(.info, "PAIR", "pairing mode (\(why))")
        board?.refreshAdvertising()
    }

    /// FACTORY_RESET: the key goes, and with it every connection's authentication and pairing in progress.
    func forgetKey() {
        key = nil
        for connection in sessions.keys {
            sessions[connection]?.authenticated = false
            sessions[connection]?.pairingNonce = nil
        }
    }

    // MARK: Randomness

    private func freshChallenge() -> [UInt8] { randomBytes(EspPoint.challengeLength) }

    private func randomBytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let word = random.next()
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        return Array(bytes.prefix(count))
    }
}

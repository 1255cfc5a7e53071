import BLECore
import Crypto
import Synchronization

/// Where the stack keeps the 32-byte pairing key of each esp-point board.
public protocol PairingKeyStore: Sendable {
    func key(for board: DeviceAddress) -> [UInt8]?
    func store(_ key: [UInt8], for board: DeviceAddress)
    func forget(_ board: DeviceAddress)
}

/// Keys held in memory for the life of the process (a rig run). A persistent store comes with the sync queue.
public final class InMemoryKeyStore: PairingKeyStore {
    private let keys = Mutex<[DeviceAddress: [UInt8]]>([:])

    public init() {}

    public func key(for board: DeviceAddress) -> [UInt8]? { keys.withLock { $0[board] } }
    public func store(_ key: [UInt8], for board: DeviceAddress) { keys.withLock { $0[board] = key } }
    public func forget(_ board: DeviceAddress) { keys.withLock { $0[board] = nil } }
}

/// The esp-point challenge–response: the first 16 bytes of HMAC-SHA256(key, challenge).
public enum ChallengeResponse {
    public static func answer(challenge: [UInt8], key: [UInt8]) -> [UInt8] {
        let code = HMAC<SHA256>.authenticationCode(for: challenge, using: SymmetricKey(data: key))
        return Array(Array(code).prefix(EspPoint.challengeLength))
    }
}

import DeviceProfiles

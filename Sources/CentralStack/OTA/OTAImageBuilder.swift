import BLECore
import Crypto
import DeviceProfiles
import Foundation

/// Makes firmware images for tests and benchmarks: deterministic bytes from a seed, written to disk a block at a
/// time, optionally signed with Ed25519 as the contract says (the image's last 64 bytes are the signature of the
/// bytes before them).
public enum OTAImageBuilder {
    /// Writes `size` bytes drawn from `seed` to `path` (replacing it). With `signingKey`, the first `size − 64`
    /// bytes are drawn and the last 64 are their signature; signing reads the image back whole (Ed25519 is not
    /// incremental), so signed images are for sizes that fit memory comfortably.
    public static func write(
        to path: String, size: Int, seed: UInt64, signingKey: OTASigningKey? = nil
    ) throws(OTAError) {
        let body = signingKey == nil ? size : size - 64
        guard body > 0 else {
            throw .image("an image of \(size) bytes is too small\(signingKey == nil ? "" : " to sign")")
        }
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forUpdatingAtPath: path)
        else { throw .image("cannot create the image \(path)") }
        defer { try? handle.close() }
        var random = SeededRandom(seed: seed, stream: "ota-image")
        var written = 0
        do {
            while written < body {
                let count = min(OTAImageFile.blockSize, body - written)
                var block = [UInt8](repeating: 0, count: count)
                var i = 0
                while i < count {
                    var word = random.next()
                    for _ in 0..<min(8, count - i) {
                        block[i] = UInt8(truncatingIfNeeded: word)
                        word >>= 8
                        i += 1
                    }
                }
                try handle.write(contentsOf: block)
                written += count
            }
            if let signingKey {
                try handle.seek(toOffset: 0)
                let signed = try handle.readToEnd() ?? Data()
                try handle.seekToEnd()
                try handle.write(contentsOf: try signingKey.key.signature(for: signed))
            }
        } catch {
            throw .image("writing the image \(path): \(error.localizedDescription)")
        }
    }

    /// Flips one bit of the image at `offset` (a tampered image: its signature no longer matches).
    public static func tamper(_ path: String, at offset: UInt64) throws(OTAError) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw .image("cannot open \(path) to tamper with it")
        }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: offset)
            guard let byte = try handle.read(upToCount: 1)?.first else {
                throw OTAError.image("\(path) is shorter than \(offset + 1) bytes")
            }
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: [byte ^ 0x01])
        } catch let error as OTAError {
            throw error
        } catch {
            throw .image("tampering with \(path): \(error.localizedDescription)")
        }
    }
}

/// An Ed25519 key pair for signing images (swift-crypto's `Curve25519.Signing`).
public struct OTASigningKey: Sendable {
    /// The 32-byte private key (its seed); swift-crypto's key type is not Sendable.
    let seed: [UInt8]

    var key: Curve25519.Signing.PrivateKey {
        // The seed was a valid key when this value was made.
        try! Curve25519.Signing.PrivateKey(rawRepresentation: seed)
    }

    /// The key whose 32-byte seed is `seed` (deterministic keys for tests and suites).
    public init(seed: [UInt8]) throws(OTAError) {
        do { _ = try Curve25519.Signing.PrivateKey(rawRepresentation: seed) } catch {
            throw .image("an Ed25519 seed has 32 bytes, not \(seed.count)")
        }
        self.seed = seed
    }

    /// A fresh random key.
    public init() { seed = Array(Curve25519.Signing.PrivateKey().rawRepresentation) }

    /// The 32-byte public key a board checks signatures with.
    public var publicKey: [UInt8] { Array(key.publicKey.rawRepresentation) }

    /// The public key in lowercase hex, as the test firmware's `ota-key` console command takes it.
    public var publicKeyHex: String { publicKey.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}

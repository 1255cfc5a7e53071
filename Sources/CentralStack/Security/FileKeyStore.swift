import BLECore
import Foundation
import Synchronization

/// Pairing keys kept in one JSON file (`{"24:0A:C4:12:1A:2B": "<64 hex digits>"}`), so an app — or `blerig
/// central` — that is stopped and started again still authenticates with the boards it paired. Every change
/// replaces the file atomically (a temporary file in the same directory, flushed, then renamed over the old one),
/// with permissions 0600: the keys unlock the boards.
public final class FileKeyStore: PairingKeyStore {
    public let url: URL
    private let keys: Mutex<[DeviceAddress: [UInt8]]>

    /// Loads the keys saved at `url` (none when the file does not exist yet).
    public init(url: URL) throws(KeyStoreError) {
        self.url = url
        keys = Mutex(try Self.load(url))
    }

    public func key(for board: DeviceAddress) -> [UInt8]? { keys.withLock { $0[board] } }

    /// Stores the key and saves the file. A save that fails keeps the key in memory; ``lastSaveError`` tells.
    public func store(_ key: [UInt8], for board: DeviceAddress) {
        keys.withLock { $0[board] = key }
        try? saveReporting()
    }

    public func forget(_ board: DeviceAddress) {
        keys.withLock { $0[board] = nil }
        try? saveReporting()
    }

    private let failure = Mutex<KeyStoreError?>(nil)

    /// Why the last save failed, if it did.
    public var lastSaveError: KeyStoreError? { failure.withLock { $0 } }

    private func saveReporting() throws {
        do { try save() } catch {
            failure.withLock { $0 = error }
            throw error
        }
        failure.withLock { $0 = nil }
    }

    /// Writes every key to the file now.
    public func save() throws(KeyStoreError) {
        let text = keys.withLock { keys in
            Dictionary(uniqueKeysWithValues: keys.map { ($0.key.description, Self.hex($0.value)) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data: Data
        do { data = try encoder.encode(text) } catch { throw KeyStoreError("could not encode the keys: \(error)") }
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw KeyStoreError(
                "could not write \(temporary.path) to save the pairing keys (does \(directory.path) exist and is it "
                    + "writable?)")
        }
        if let handle = FileHandle(forWritingAtPath: temporary.path) {
            try? handle.synchronize()
            try? handle.close()
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw KeyStoreError("could not replace \(url.path) with the new pairing keys: \(reason)")
        }
    }

    static func load(_ url: URL) throws(KeyStoreError) -> [DeviceAddress: [UInt8]] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        let text: [String: String]
        do { text = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: url)) } catch {
            throw KeyStoreError(
                "\(url.path) is not a pairing key file (a JSON object of address: 64 hex digits): \(error)")
        }
        var keys: [DeviceAddress: [UInt8]] = [:]
        for (address, hex) in text {
            guard let board = DeviceAddress(address) else {
                throw KeyStoreError("\(url.path): '\(address)' is not a Bluetooth device address")
            }
            guard let key = Self.bytes(hex), key.count == 32 else {
                throw KeyStoreError("\(url.path): the key of \(address) is not 64 hex digits")
            }
            keys[board] = key
        }
        return keys
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}

/// A pairing key file that could not be read or written, with its path and what to do.
public struct KeyStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

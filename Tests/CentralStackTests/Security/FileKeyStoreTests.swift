import BLECore
import Foundation
import Testing

@testable import CentralStack

/// Pairing keys survive the process: what one ``FileKeyStore`` stores, another opened on the same file reads.
@Suite("file key store")
struct FileKeyStoreTests {
    static let board = DeviceAddress("24:0A:C4:12:1A:2B")!
    static let key: [UInt8] = (0..<32).map { UInt8($0 * 7 & 0xFF) }

    @Test("a key stored by one store is read by a second store on the same file; forgetting it persists too")
    func survivesReopening() throws {
        let dir = TemporaryDirectory("keys")
        defer { dir.cleanup() }
        let url = URL(fileURLWithPath: dir.file("pairing-keys.json"))
        let first = try FileKeyStore(url: url)
        #expect(first.key(for: Self.board) == nil)
        first.store(Self.key, for: Self.board)
        #expect(first.lastSaveError == nil)
        #expect(try FileKeyStore(url: url).key(for: Self.board) == Self.key)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        first.forget(Self.board)
        #expect(try FileKeyStore(url: url).key(for: Self.board) == nil)
    }

    @Test("a damaged key file is refused with its path and what is wrong")
    func damagedFile() throws {
        let dir = TemporaryDirectory("keys")
        defer { dir.cleanup() }
        let path = dir.file("pairing-keys.json")
        try Data(#"{"24:0A:C4:12:1A:2B": "abcd"}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try FileKeyStore(url: URL(fileURLWithPath: path))
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("not 64 hex digits")
        }
    }
}

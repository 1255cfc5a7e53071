import Testing

// The interop tier's own tests land with its support code; this keeps the target building meanwhile.
@Suite struct InteropEnvironmentTests {
    @Test func peersFolderShipsWithTheTests() throws {
        let peers = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Peers/README.md")
        #expect(FileManager.default.fileExists(atPath: peers.path))
    }
}
import Foundation

import Benchmarks
import Foundation
import Orchestrator
import Testing

/// How `blerig bench hci` finds the Bumble peer scripts it runs (``PeerScripts``): where they ship, from the
/// executable's place, and an error that names every place it looked.
@Suite("Peer scripts: found where blerig ships them")
struct PeerScriptsTests {
    /// A scratch directory, removed by the caller.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "peer-scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.resolvingSymlinksInPath()
    }

    static func ship(into prefix: URL, leaving missing: String? = nil) throws {
        let peers = prefix.appending(path: PeerScripts.relativePath)
        try FileManager.default.createDirectory(at: peers, withIntermediateDirectories: true)
        for script in PeerScripts.required where script != missing {
            try Data("# \(script)\n".utf8).write(to: peers.appending(path: script))
        }
    }

    @Test("an installed blerig (<prefix>/bin/blerig) finds <prefix>/share/blerig/peers whatever the current directory")
    func installPrefix() throws {
        let prefix = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: prefix) }
        try Self.ship(into: prefix)
        let found = try PeerScripts.locate(
            executable: prefix.appending(path: "bin/blerig").path(percentEncoded: false), from: "/")
        #expect(found == prefix.appending(path: PeerScripts.relativePath).path(percentEncoded: false))
    }

    @Test("a build in a checkout (.build/<triple>/debug/blerig) finds the checkout's share/blerig/peers")
    func checkoutBuild() throws {
        let checkout = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: checkout) }
        try Self.ship(into: checkout)
        let executable = checkout.appending(path: ".build/x86_64-unknown-linux-gnu/debug/blerig")
        let found = try PeerScripts.locate(executable: executable.path(percentEncoded: false), from: "/")
        #expect(found == checkout.appending(path: PeerScripts.relativePath).path(percentEncoded: false))
    }

    @Test("a directory lacking one of the scripts is not the one; the error names every place searched and the fix")
    func missingScriptIsAnError() throws {
        let prefix = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: prefix) }
        try Self.ship(into: prefix, leaving: "bench_central.py")
        let executable = prefix.appending(path: "bin/blerig").path(percentEncoded: false)
        let error = #expect(throws: BenchmarkError.self) {
            try PeerScripts.locate(executable: executable, from: prefix.path(percentEncoded: false))
        }
        let text = error?.description ?? ""
        #expect(text.contains(prefix.appending(path: "bin/share/blerig/peers").path(percentEncoded: false)), "\(text)")
        #expect(text.contains(prefix.appending(path: PeerScripts.relativePath).path(percentEncoded: false)), "\(text)")
        #expect(text.contains("bench_central.py"), "\(text)")
        #expect(text.contains("share/blerig/peers/ of the blerig checkout or install prefix"), "\(text)")
        // Searched once each, though both searches pass through the prefix.
        let prefixPeers = prefix.appending(path: PeerScripts.relativePath).path(percentEncoded: false)
        #expect(text.components(separatedBy: prefixPeers + ",").count <= 2, "\(text)")
    }
}

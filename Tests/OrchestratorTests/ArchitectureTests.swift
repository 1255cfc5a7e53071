import Foundation
import Testing

@testable import Orchestrator

/// Promises about the code's shape that a compiler does not check, and the one place exit statuses live.
@Suite("Architecture and documentation")
struct ArchitectureTests {
    static func swiftFiles(under relative: String) throws -> [String] {
        let root = RigTesting.path(relative)
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "\(root)/\($0)" }
    }

    @Test("no file of the orchestrator imports a bench implementation; the composition root is the one that does")
    func orchestratorSeesOnlyInterfaces() throws {
        let implementations = ["VirtualFarm", "Radios", "BoardControl"]
        for file in try Self.swiftFiles(under: "Sources/Orchestrator") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for module in implementations {
                #expect(!text.contains("import \(module)\n"), "\(file) imports \(module)")
            }
        }
        let root = try Self.swiftFiles(under: "Sources/Benches")
        #expect(try root.contains { try String(contentsOfFile: $0, encoding: .utf8).contains("import VirtualFarm\n") })
    }

    @Test("the central stack imports only what an iOS app could ship: Foundation, GRDB, swift-crypto, our own cores")
    func centralStackIsPlatformNeutral() throws {
        let allowed: Set = [
            "BLECore", "DeviceProfiles", "Foundation", "FoundationNetworking", "GRDB", "Crypto", "Synchronization",
        ]
        var seen: Set<String> = []
        for file in try Self.swiftFiles(under: "Sources/CentralStack") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("import ")
            {
                let module = String(line.trimmingCharacters(in: .whitespaces).dropFirst("import ".count))
                seen.insert(module)
                #expect(allowed.contains(module), "\(file) imports \(module)")
            }
        }
        // Not vacuous: the files were read and their imports found.
        #expect(seen.isSuperset(of: ["BLECore", "Foundation", "GRDB"]))
    }

    @Test("the README documents exactly the exit statuses blerig uses")
    func readmeExitStatuses() throws {
        let readme = try String(contentsOfFile: RigTesting.path("README.md"), encoding: .utf8)
        #expect(readme.contains(ExitStatus.table))
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 130])
    }
}

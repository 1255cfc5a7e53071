import Benchmarks
import Foundation
import Testing

@testable import Orchestrator

/// Promises about the code's shape that a compiler does not check (the documentation's are in `DocumentationTests`).
@Suite("Architecture")
struct ArchitectureTests {
    static func swiftFiles(under relative: String) throws -> [String] {
        let root = RigTesting.path(relative)
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "\(root)/\($0)" }
    }

    /// The modules a file imports (`import X`, `@testable import X`).
    static func imports(_ file: String) throws -> [String] {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                words[..<at].allSatisfy({ $0.hasPrefix("@") })
            else { return nil }
            return String(words[at + 1])
        }
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

    @Test("the composition root holds no benchmark: none of its types measures, and it does not import Benchmarks")
    func compositionRootHoldsNoBenchmark() throws {
        let benchmark = try Regex(#"\b(struct|enum|class|actor)\s+\w*(Benchmark|Campaign|Measurement)\b"#)
        let files = try Self.swiftFiles(under: "Sources/Benches")
        #expect(files.count > 10, "Sources/Benches was not read")
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!text.contains(benchmark), "\(file) declares a benchmark: it belongs in Sources/Benchmarks")
            #expect(!file.contains("/Benchmark"), "\(file) is a benchmark's file: it belongs in Sources/Benchmarks")
            #expect(try !Self.imports(file).contains("Benchmarks"), "\(file) imports Benchmarks, which sits above it")
        }
        // Not vacuous: the benchmarks are where the rule sends them.
        let moved = try Self.swiftFiles(under: "Sources/Benchmarks")
        #expect(try moved.contains { try String(contentsOfFile: $0, encoding: .utf8).contains(benchmark) })
    }

    @Test("the orchestrator measures nothing itself: its benchmarks and the processes they drive live in Benchmarks")
    func orchestratorHoldsNoBenchmark() throws {
        let benchmark = try Regex(#"\b(struct|enum|class|actor)\s+\w*Benchmark\b"#)
        let files = try Self.swiftFiles(under: "Sources/Orchestrator")
        #expect(files.count > 10, "Sources/Orchestrator was not read")
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!text.contains(benchmark), "\(file) declares a benchmark: it belongs in Sources/Benchmarks")
            #expect(!file.contains("/Benchmark/"), "\(file) is a benchmark's file: it belongs in Sources/Benchmarks")
        }
        // The sync agent is the kill campaign's subject, not part of the bench: it ships with the campaign.
        let root = try Self.swiftFiles(under: "Sources/Benches")
        #expect(try !root.contains { try String(contentsOfFile: $0, encoding: .utf8).contains("enum SyncAgent") })
        #expect(try Self.swiftFiles(under: "Sources/Benchmarks").contains { $0.hasSuffix("/SyncAgent.swift") })
    }

    @Test("benchmarks build on the composition root and the layers below it; only the command line imports them")
    func benchmarksDependDownOnly() throws {
        let allowed: Set = [
            "BLECore", "BenchCore", "Benches", "CentralStack", "DeviceProfiles", "Foundation", "IngestServer",
            "Orchestrator", "Radios", "Reports", "Synchronization", "VirtualFarm", "Glibc", "Darwin",
        ]
        var seen: Set<String> = []
        for file in try Self.swiftFiles(under: "Sources/Benchmarks") {
            for module in try Self.imports(file) {
                seen.insert(module)
                #expect(allowed.contains(module), "\(file) imports \(module)")
            }
        }
        #expect(seen.isSuperset(of: ["Benches", "Orchestrator", "VirtualFarm", "Radios"]))
        for file in try Self.swiftFiles(under: "Sources")
        where !file.contains("/Sources/blerig/") && !file.contains("/Sources/Benchmarks/") {
            #expect(try !Self.imports(file).contains("Benchmarks"), "\(file) imports Benchmarks")
        }
    }

    @Test("nothing blerig runs comes from Tests/: the peer scripts the benchmarks start ship in share/blerig/peers")
    func shippedCodeRunsNothingFromTests() throws {
        for file in try Self.swiftFiles(under: "Sources") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!text.contains("\"Tests/"), "\(file) names a path under Tests/ in a string")
        }
        let shipped = RigTesting.path(PeerScripts.relativePath)
        for script in PeerScripts.required {
            #expect(FileManager.default.fileExists(atPath: "\(shipped)/\(script)"), "\(script) is not in \(shipped)")
        }
        let found = try PeerScripts.locate(from: RigTesting.path("."))
        #expect(URL(filePath: found).resolvingSymlinksInPath() == URL(filePath: shipped).resolvingSymlinksInPath())
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
}

import Foundation
import Radios
import Testing

extension Interop {
    /// Everything a `blerig run` starts listens on loopback only: rootcanal (which binds every address on its own)
    /// and the sync suite's ingest server. Checked with `ss -ltnp` (iproute2), which lists every listening TCP
    /// socket with the process that holds it.
    @Suite("a blerig run listens on loopback only")
    struct LoopbackOnly {
        static let ss = "/usr/bin/ss"

        /// rigs/rootcanal.yaml's radio and boards with a short sync (which starts the ingest) and discovery.
        static func rig() throws -> String {
            let full = try RootcanalCampaign.rig()
            guard let suites = full.range(of: "\nsuites:") else { throw TestFailure("no suites: section") }
            return full[..<suites.lowerBound]
                + """

                suites:
                  - discovery
                  - sync: {offline_days: 0.0001, away_days: 0.0001, pull_interval_h: 0.001, sample_interval_s: 1}

                """
        }

        /// One listening socket as `ss -ltnpH` prints it: local address and port, and the pids holding it.
        struct Listener: Hashable, CustomStringConvertible {
            var local: String
            var pids: [pid_t]

            var isLoopback: Bool { local.hasPrefix("127.") || local.hasPrefix("[::1]:") }
            var description: String { "\(local) (pids \(pids))" }

            /// `LISTEN 0 1 127.0.0.1:16404 0.0.0.0:* users:(("rootcanal",pid=7725,fd=5))`
            init?(_ line: Substring) {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 6, fields[0] == "LISTEN" else { return nil }
                local = String(fields[3])
                pids = line.split(separator: "pid=").dropFirst().compactMap { pid_t($0.prefix { $0.isNumber }) }
            }
        }

        static func listeners() throws -> [Listener] {
            let listing = try RootcanalCampaign.tool(ss, ["-ltnpH"])
            guard listing.status == 0 else { throw TestFailure("ss -ltnpH: \(listing.output)") }
            return listing.lines.compactMap { Listener(Substring($0)) }
        }

        @Test("a rootcanal listening on 0.0.0.0 (nothing preloaded) is stopped with an error, and nothing is left")
        func exposedRootcanalRefused() async throws {
            var options = RootcanalProcess.Options()
            options.launcher = .python(try InteropEnvironment.venv().python)
            options.loopback = LoopbackLibrary(path: "")
            options.attempts = 1
            do {
                let rootcanal = try await RootcanalProcess.start(options)
                await rootcanal.stop()
                Issue.record("rootcanal started on \(rootcanal.ports) without the loopback library")
            } catch {
                #expect(error.code == .notLoopback, "\(error)")
                #expect(error.description.contains("rootcanal listens beyond this host, on 0.0.0.0:"))
                let ports = error.description.split(separator: "0.0.0.0:").dropFirst().compactMap {
                    UInt16($0.prefix { $0.isNumber })
                }
                #expect(ports.count == 4)
                // Stopped: none of its ports is listening any more, anywhere.
                #expect(LoopbackListeners.current().listeners.filter { ports.contains($0.port) }.isEmpty)
            }
        }

        @Test("every listener of blerig and of what it starts is on 127.0.0.1, for the whole run")
        func loopbackOnly() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: Self.ss), "\(Self.ss) is missing: apt-get install iproute2")
            try #require(FileManager.default.isExecutableFile(atPath: RootcanalCampaign.binary), "swift build --build-tests")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-loopback-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let rigPath = directory + "/rig.yaml"
            try Self.rig().write(toFile: rigPath, atomically: true, encoding: .utf8)

            let (exit, output, seen) = try await withInteropScope { scope in
                var environment = ProcessInfo.processInfo.environment
                environment[InteropVenv.environmentVariable] = try InteropEnvironment.venv().directory
                let blerig = try SupervisedProcess.start(
                    RootcanalCampaign.binary, ["run", rigPath, "--out", directory + "/out"], environment: environment,
                    stdout: try ProcessOutput(), stderr: try ProcessOutput())
                scope.track("blerig run", blerig.pid, marker: [], stop: { await blerig.stop() })
                var seen: [String: Listener] = [:]
                var names: [pid_t: String] = [:]
                let clock = ContinuousClock()
                let deadline = clock.now.advanced(by: .seconds(120))
                while blerig.exit == nil, clock.now < deadline {
                    var family: Set<pid_t> = [blerig.pid]
                    for entry in ProcessTable.livingDescendants(of: blerig.pid) {
                        family.insert(entry.pid)
                        names[entry.pid] = entry.name
                    }
                    for listener in try Self.listeners() where !family.isDisjoint(with: listener.pids) {
                        seen[listener.local] = listener
                    }
                    try await clock.sleep(for: .milliseconds(100))
                }
                guard let exit = blerig.exit else { throw TestFailure("blerig run did not end within 120 s") }
                let named = seen.values.map { listener in
                    (listener, listener.pids.compactMap { names[$0] ?? ($0 == blerig.pid ? "blerig" : nil) })
                }
                return (exit, blerig.stdout.text + blerig.stderr.text, named)
            }
            #expect(exit == .exited(0), "blerig run: \(RunTranscript(output))")
            // Not vacuous: rootcanal's four ports and the ingest were seen listening.
            #expect(seen.filter { $0.1.contains("rootcanal") }.count == 4, "seen: \(seen)")
            #expect(seen.contains { $0.1.contains("blerig") }, "the ingest server, in blerig itself: \(seen)")
            for (listener, holders) in seen {
                #expect(listener.isLoopback, "\(holders) listens on \(listener.local), reachable from the network")
            }
        }
    }
}

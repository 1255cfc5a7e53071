import Foundation
import Radios
import Synchronization
import Testing

/// Everything one test starts: stopped when the test ends, however it ends, and then checked to be gone.
///
/// A process counts as left behind when anything in its process group is still alive, or when any process on
/// the machine still carries its marker in its command line (rootcanal's HCI port flag, a peer's `--hci`
/// spec), which would catch a process that escaped its group.
final class InteropScope: Sendable {
    private struct Started {
        var what: String
        /// Nil for something that is not a process (a host stack on a controller): it is only stopped.
        var group: pid_t?
        var marker: [String]
        var stop: @Sendable () async -> Void
    }

    private let started = Mutex<[Started]>([])

    /// Starts a rootcanal on free ports with a 1 ms tick, from the venv found from the checkout (not from the
    /// current directory, which a test runner may set anywhere).
    func rootcanal(_ options: RootcanalProcess.Options = .init()) async throws -> RootcanalProcess {
        var options = options
        if options.launcher == .interopVenv { options.launcher = .python(try InteropEnvironment.venv().python) }
        let rootcanal = try await RootcanalProcess.start(options)
        if let process = rootcanal.process {
            track(
                "rootcanal (\(rootcanal.ports))", process.pid, marker: ["-hci_port", "\(rootcanal.hciPort)"],
                stop: rootcanal.stop)
        }
        return rootcanal
    }

    /// Starts a Bumble peer script and waits until it is ready.
    func peer(_ script: BumblePeer.Script, _ arguments: [String]) async throws -> BumblePeer {
        let peer = try await BumblePeer.start(script, arguments)
        track("\(script.rawValue) \(arguments.joined(separator: " "))", peer.process.pid, marker: [], stop: peer.stop)
        return peer
    }

    /// Tracks a process started some other way.
    func track(_ what: String, _ group: pid_t, marker: [String], stop: @escaping @Sendable () async -> Void) {
        started.withLock { $0.append(Started(what: what, group: group, marker: marker, stop: stop)) }
    }

    /// Stops `what` with the rest when the test ends, in reverse order of starting (a host stack before the
    /// rootcanal it runs on).
    func stopAtEnd(_ what: String, _ stop: @escaping @Sendable () async -> Void) {
        started.withLock { $0.append(Started(what: what, group: nil, marker: [], stop: stop)) }
    }

    /// Every process group this scope started.
    var groups: [pid_t] { started.withLock { $0.compactMap(\.group) } }

    /// Stops everything, most recent first, and returns what is still alive afterwards.
    func finish() async -> [String] {
        let all = started.withLock { $0 }
        for entry in all.reversed() { await entry.stop() }
        return Self.leftovers(
            of: all.compactMap { entry in entry.group.map { (entry.what, $0, entry.marker) } })
    }

    /// The living processes of these groups, or whose command line holds a marker.
    static func leftovers(of started: [(what: String, group: pid_t, marker: [String])]) -> [String] {
        var found: [String] = []
        for (what, group, marker) in started {
            for entry in ProcessTable.living(inGroup: group) { found.append("\(entry), started as \(what)") }
            if !marker.isEmpty {
                for entry in livingProcesses(withArguments: marker) where entry.group != group {
                    found.append("\(entry), started as \(what), outside its group")
                }
            }
        }
        return found
    }

    /// Living processes whose argument list contains `arguments` in a row.
    static func livingProcesses(withArguments arguments: [String]) -> [ProcessTable.Entry] {
        ProcessTable.snapshot().filter { entry in
            guard entry.isAlive,
                let raw = FileManager.default.contents(atPath: "/proc/\(entry.pid)/cmdline")
            else { return false }
            let argv = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard argv.count >= arguments.count else { return false }
            return (0...(argv.count - arguments.count)).contains { Array(argv[$0..<$0 + arguments.count]) == arguments }
        }
    }
}

/// Runs `body` with a fresh ``InteropScope``; when it returns or throws, stops everything it started and
/// records an issue for every process left alive.
func withInteropScope<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: (InteropScope) async throws -> T
) async throws -> T {
    let scope = InteropScope()
    do {
        let result = try await body(scope)
        for leftover in await scope.finish() {
            Issue.record("left behind: \(leftover)", sourceLocation: sourceLocation)
        }
        return result
    } catch {
        for leftover in await scope.finish() {
            Issue.record("left behind: \(leftover)", sourceLocation: sourceLocation)
        }
        throw error
    }
}

import Foundation
import Synchronization
import Testing

@testable import Radios

extension Interop {
    /// Nothing blerig starts may outlive what it was started for: not after stop(), not when the handle is
    /// dropped, not when a test throws, not when blerig itself is killed.
    @Suite("nothing left behind")
    struct ProcessCleanup {
        @Test("stop() ends the Python launcher and the rootcanal binary it runs, and frees their ports")
        func stopEndsTheWholeGroup() async throws {
            let rootcanal = try await RootcanalProcess.start()
            let process = try #require(rootcanal.process)
            let names = process.livingProcesses.map(\.name)
            #expect(names.contains("rootcanal"), "the rootcanal binary runs in the group: \(names)")
            #expect(names.contains { $0.hasPrefix("python") }, "so does its Python launcher: \(names)")
            await rootcanal.stop()
            #expect(process.livingProcesses.isEmpty)
            #expect(process.exit != nil)
            for port in rootcanal.ports.all { #expect(PortHolder.isFree(port), "port \(port) is still held") }
            await rootcanal.stop()  // idempotent
        }

        @Test("a test body that throws still leaves nothing behind")
        func throwingBodyLeavesNothing() async throws {
            let groups = Mutex<[pid_t]>([])
            await #expect(throws: TestFailure.self) {
                try await withInteropScope { scope in
                    let rootcanal = try await scope.rootcanal()
                    _ = try await scope.peer(.peripheral, ["--hci", rootcanal.hciSpec])
                    groups.withLock { $0 = scope.groups }
                    throw TestFailure("the body fails on purpose")
                }
            }
            let started = groups.withLock { $0 }
            #expect(started.count == 2)
            for group in started { #expect(ProcessTable.living(inGroup: group).isEmpty) }
        }

        @Test("when blerig dies by SIGKILL, the rootcanal it started goes too")
        func parentKilledTakesRootcanalDown() async throws {
            try await withInteropScope { scope in
                let venv = try InteropEnvironment.venv()
                let ports = try RootcanalPorts.free()
                // A stand-in for blerig: starts rootcanal under the same lifeline wrapper, holding the lifeline's
                // other end, then sleeps until killed.
                let parent = try SupervisedProcess.start(
                    venv.python,
                    ["-c", Self.standInParent, SupervisedProcess.lifelineScript, venv.python] + ports.arguments,
                    stdout: try ProcessOutput())
                scope.track("stand-in parent", parent.pid, marker: [], stop: { await parent.stop() })
                let clock = ContinuousClock()
                let deadline = clock.now.advanced(by: .seconds(10))
                var group: pid_t?
                while clock.now < deadline,
                    group == nil || !ProcessTable.living(inGroup: group!).contains(where: { $0.name == "rootcanal" })
                {
                    group = parent.stdout.lines(from: 0).lines.first.flatMap { pid_t($0) }
                    try await clock.sleep(for: .milliseconds(20))
                }
                let wrapper = try #require(group, "the stand-in printed no pid: \(parent.stdout.text)")
                scope.track("rootcanal of the stand-in", wrapper, marker: ["-hci_port", "\(ports.hci)"], stop: {})
                #expect(ProcessTable.living(inGroup: wrapper).contains { $0.name == "rootcanal" })

                let standIn = try #require(parent.livingProcesses.first { $0.name.hasPrefix("python") })
                kill(standIn.pid, SIGKILL)
                #expect(try await Self.gone(wrapper, within: .seconds(5)))
            }
        }

        /// Python that does what blerig's SupervisedProcess does: a socket pair, the wrapper on one end as
        /// stdin, in a new process group, the other end kept; prints the wrapper's pid.
        static let standInParent = """
            import socket, subprocess, sys, time
            script, python, ports = sys.argv[1], sys.argv[2], sys.argv[3:]
            ours, theirs = socket.socketpair()
            child = subprocess.Popen(
                ["/bin/bash", "-c", script, "blerig-lifeline", "100", python, "-m", "rootcanal", *ports],
                stdin=theirs, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0)
            theirs.close()
            print(child.pid, flush=True)
            time.sleep(120)
            """

        private static func gone(_ group: pid_t, within timeout: Duration) async throws -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: timeout)
            while clock.now < deadline {
                if ProcessTable.living(inGroup: group).isEmpty { return true }
                try await clock.sleep(for: .milliseconds(20))
            }
            return ProcessTable.living(inGroup: group).isEmpty
        }
    }
}

import Foundation
import Testing

@testable import Radios

@Suite struct SupervisedProcessTests {
    @Test("standard output and error are captured apart, and the exit status comes back")
    func outputAndStatus() async throws {
        let process = try SupervisedProcess.start(
            "/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], stdout: try ProcessOutput(),
            stderr: try ProcessOutput())
        #expect(await process.waitForExit(timeout: .seconds(5)) == .exited(3))
        #expect(await process.stop() == .exited(3))
        #expect(process.stdout.lines(from: 0).lines == ["out"])
        #expect(process.stderr.lines(from: 0).lines == ["err"])
    }

    @Test("the CPU time spent reading a child's output is counted in outputReadingCPU")
    func outputReadingIsCounted() async throws {
        let before = SupervisedProcess.outputReadingCPU
        let process = try SupervisedProcess.start(
            "/bin/sh", ["-c", "i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i + 1)); done"],
            stdout: try ProcessOutput())
        #expect(await process.waitForExit(timeout: .seconds(10)) == .exited(0))
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(5))
        while !process.stdout.isFinished, clock.now < deadline { try await clock.sleep(for: .milliseconds(10)) }
        #expect(process.stdout.lineCount == 2000)
        #expect(SupervisedProcess.outputReadingCPU > before)
    }

    @Test("a command ended by a signal reports the signal")
    func signalled() async throws {
        let process = try SupervisedProcess.start("/bin/sh", ["-c", "kill -USR2 $$"], stdout: try ProcessOutput())
        #expect(await process.waitForExit(timeout: .seconds(5)) == .signalled(SIGUSR2))
    }

    @Test("the environment given is the whole environment, and no shell start-up file runs")
    func environment() async throws {
        let process = try SupervisedProcess.start(
            "/usr/bin/env", [], environment: ["BLERIG_PROBE": "1", "BASH_ENV": "/nonexistent/startup"],
            stdout: try ProcessOutput())
        _ = await process.waitForExit(timeout: .seconds(5))
        let variables = Set(process.stdout.lines(from: 0).lines.map { $0.prefix { $0 != "=" } })
        // bash adds its own PWD, SHLVL and _; nothing else of this process's environment gets through.
        #expect(variables.subtracting(["PWD", "SHLVL", "_"]) == ["BLERIG_PROBE"])
    }

    @Test("a program that is not there is refused before anything starts")
    func missingExecutable() {
        #expect {
            try SupervisedProcess.start("/nonexistent/rootcanal", [], stdout: try ProcessOutput())
        } throws: { error in
            "\(error)".contains("/nonexistent/rootcanal")
        }
    }

    @Test("dropping a process's handle without stop() ends it and everything it started")
    func droppedHandleEndsTheProcess() async throws {
        let group = try Self.startAndDrop()
        // Bounds guard against "never", not speed: a loaded machine may take seconds.
        #expect(try await Self.gone(group, within: .seconds(20)))
    }

    @Test("a command that ignores SIGTERM is killed with its children once the grace period is over")
    func sigtermIgnoredMeansSIGKILL() async throws {
        let process = try SupervisedProcess.start(
            "/bin/bash", ["-c", "trap '' TERM; echo started; while :; do sleep 0.05; done"],
            stdout: try ProcessOutput(), grace: .milliseconds(300))
        let clock = ContinuousClock()
        while process.stdout.lineCount == 0 { try await clock.sleep(for: .milliseconds(10)) }
        let started = clock.now
        let exit = await process.stop()
        #expect(started.duration(to: clock.now) < .seconds(20))
        #expect(exit == .signalled(SIGKILL))
        #expect(process.livingProcesses.isEmpty)
        #expect(await process.stop() == exit)
    }

    /// A shell with a grandchild; the handle is released on return.
    private static func startAndDrop() throws -> pid_t {
        let process = try SupervisedProcess.start(
            "/bin/sh", ["-c", "sleep 60 & wait"], stdout: try ProcessOutput())
        return process.pid
    }

    private static func gone(_ group: pid_t, within timeout: Duration) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if ProcessTable.living(inGroup: group).isEmpty { return true }
            try await clock.sleep(for: .milliseconds(20))
        }
        // A busy test run may wake this task only after the deadline: look once more before giving up.
        return ProcessTable.living(inGroup: group).isEmpty
    }
}

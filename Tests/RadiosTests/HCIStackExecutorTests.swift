import Glibc
import Synchronization
import Testing

@testable import Radios

/// The stack's executor: a task that prefers it runs on the thread delivering a packet when that packet is what
/// made it runnable, and on the global pool otherwise.
@Suite struct HCIStackExecutorTests {
    /// A task that prefers `executor`, parks once, and reports the thread it ran on after being resumed.
    private final class ParkedTask: Sendable {
        final class Marks: Sendable {
            let parked = Mutex<CheckedContinuation<Void, Never>?>(nil)
            let resumedOn = Mutex<pthread_t?>(nil)
        }

        let marks = Marks()
        let task: Task<Void, Never>

        init(on executor: HCIStackExecutor) {
            let marks = marks
            task = Task(executorPreference: executor) {
                await withCheckedContinuation { continuation in marks.parked.withLock { $0 = continuation } }
                marks.resumedOn.withLock { $0 = pthread_self() }
            }
        }

        var resumedOn: pthread_t? { marks.resumedOn.withLock { $0 } }

        func waitUntilParked() async {
            while marks.parked.withLock({ $0 == nil }) { try? await Task.sleep(for: .milliseconds(1)) }
        }

        func resume() { marks.parked.withLock { $0 }!.resume() }
    }

    /// Runs `body` on a thread of its own and returns that thread's id once `body` has returned.
    private static func onThread(_ body: @escaping @Sendable () -> Void) async -> pthread_t {
        await withCheckedContinuation { continuation in
            let failed = ReaderThread.spawn {
                body()
                continuation.resume(returning: pthread_self())
            }
            precondition(failed == nil, "cannot start a thread: \(failed!)")
        }
    }

    @Test("a task made runnable while a packet is delivered runs on the delivering thread before the delivery ends")
    func runsOnTheDeliveringThread() async {
        let executor = HCIStackExecutor()
        let parked = ParkedTask(on: executor)
        await parked.waitUntilParked()
        let finishedInside = Mutex(false)
        let deliverer = await Self.onThread {
            executor.delivering { parked.resume() }
            finishedInside.withLock { $0 = parked.resumedOn != nil }
        }
        await parked.task.value
        #expect(finishedInside.withLock { $0 }, "the task ran before delivering(_:) returned")
        #expect(parked.resumedOn == deliverer)
    }

    @Test("a task made runnable anywhere else runs on the global pool")
    func runsElsewhereOnThePool() async {
        let executor = HCIStackExecutor()
        let parked = ParkedTask(on: executor)
        await parked.waitUntilParked()
        // The resuming thread stays alive until the task has run, so its id cannot have been reused.
        let other = await Self.onThread {
            parked.resume()
            while parked.resumedOn == nil { usleep(1000) }
        }
        await parked.task.value
        #expect(parked.resumedOn != nil)
        #expect(parked.resumedOn != other)
    }
}

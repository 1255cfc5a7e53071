import Glibc
import Synchronization

/// An ``HCIStack``'s task executor: a task that prefers it (`Task(executorPreference: stack.executor)`,
/// `withTaskExecutorPreference(stack.executor)`) and is made runnable by a packet from the controller (the response
/// its GATT request waited for, the connection it waited for, a notification it waits for) runs on the transport's
/// reader thread as soon as the stack has handled that packet, instead of waking a thread of the global pool. Such a
/// task's round trip then costs no thread hop at all, as in Bumble's single-threaded event loop; a task made
/// runnable anywhere else (its first start, a timer) runs on the global pool as usual.
///
/// Code running there holds up the controller's packets while it runs: it suits tasks that do a little work between
/// awaits, such as a central's procedures, not long computations.
public final class HCIStackExecutor: TaskExecutor {
    /// The thread delivering a packet, while it does (its `pthread_t`); 0 otherwise.
    private let deliveringThread = Atomic<UInt>(0)
    /// Jobs made runnable on that thread during the delivery, run by it once the packet is handled.
    private let ready = Mutex<[UnownedJob]>([])

    init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        if deliveringThread.load(ordering: .acquiring) == pthread_self() {
            let job = UnownedJob(job)
            ready.withLock { $0.append(job) }
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    /// Runs `body` (the handling of one packet) and then, on this same thread, every job it made runnable and every
    /// job those made runnable in turn.
    func delivering(_ body: () -> Void) {
        deliveringThread.store(pthread_self(), ordering: .releasing)
        body()
        while let job = ready.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        deliveringThread.store(0, ordering: .releasing)
    }
}

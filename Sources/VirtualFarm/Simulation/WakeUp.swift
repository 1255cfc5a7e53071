#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the simulation thread sleeps while it has nothing to run: a mutex and a condition variable whose timed
/// waits are measured on the monotonic clock, so setting the system's time of day neither stretches nor cuts the
/// wait for a timer of a wall-clock simulation.
///
/// Whoever hands the thread work makes it visible first (a job queued, a timer scheduled) and then calls
/// ``signal()``; the sleeper checks for work and waits while holding the lock, so no signal is lost in between.
final class WakeUp: @unchecked Sendable {
    // @unchecked Sendable: a pthread mutex and condition variable are made to be shared between threads; the
    // pointers to them are set in init and released in deinit, and never change in between.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        #if canImport(Glibc)
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            pthread_cond_init(condition, &attributes)
            pthread_condattr_destroy(&attributes)
        #else
            pthread_cond_init(condition, nil)
        #endif
    }

    /// A timed wait lasts at most this long (a day), so the arithmetic on the deadline cannot overflow.
    private static let longestWait: Duration = .seconds(86_400)

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock; ``wait(for:)`` may be called inside it.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Wakes the sleeper, if there is one.
    func signal() {
        withLock { _ = pthread_cond_signal(condition) }
    }

    /// Inside ``withLock(_:)``: releases the lock until a signal arrives or `timeout` has passed (forever when nil),
    /// then takes it again. Returns false when the time ran out. A wait may also end early for no reason (a
    /// spurious wake-up, or a day passed without one): callers check their condition again.
    @discardableResult
    func wait(for timeout: Duration?) -> Bool {
        guard let timeout else { return pthread_cond_wait(condition, mutex) == 0 }
        let (seconds, attoseconds) = min(max(timeout, .zero), Self.longestWait).components
        #if canImport(Glibc)
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
            deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
            deadline.tv_nsec = nanoseconds % 1_000_000_000
            return pthread_cond_timedwait(condition, mutex, &deadline) != ETIMEDOUT
        #else
            var relative = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            return pthread_cond_timedwait_relative_np(condition, mutex, &relative) != ETIMEDOUT
        #endif
    }
}

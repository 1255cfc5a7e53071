import Foundation

/// Runs blocking work (a child process to its end) on a thread of its own: a checker such as chromium takes seconds,
/// and on two cores two of them would hold every thread the other tests' tasks run on.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

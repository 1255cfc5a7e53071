import BLECore

/// Runs `operation`, giving up after `timeout` on `clock` with ``SessionError/timeout(waitingFor:after:)``.
/// Structured: the loser of the race is cancelled and awaited before this returns.
public func withTimeout<T: Sendable>(
    _ timeout: Duration, clock: any RigClock, waitingFor what: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws(SessionError) -> T {
    let outcome: Result<T, any Error> = await withTaskGroup(of: Result<T, any Error>?.self) { group in
        group.addTask {
            do { return .success(try await operation()) } catch { return .failure(error) }
        }
        group.addTask {
            do { try await clock.sleep(for: timeout) } catch { return nil }
            return .failure(SessionError.timeout(waitingFor: what, after: timeout))
        }
        var first: Result<T, any Error>?
        while first == nil, let next = await group.next() { first = next }
        group.cancelAll()
        return first ?? .failure(CancellationError())
    }
    switch outcome {
    case let .success(value): return value
    case let .failure(error as SessionError): throw error
    case let .failure(error as GATTError): throw .gatt(error, during: what)
    case .failure(is CancellationError): throw .cancelled(during: what)
    case let .failure(error): throw .protocolViolation("\(what): \(error)")
    }
}

import Dispatch
import Synchronization

extension Array where Element: Sendable {
    /// `map` with the elements transformed side by side on Dispatch's threads, the results in the elements' order:
    /// for work over a thousand boards that each take a while (folding a board's events, writing its testsuite).
    public func concurrentMap<T: Sendable>(_ transform: @Sendable (Element) -> T) -> [T] {
        let results = Mutex([T?](repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let result = transform(self[index])
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0.map { $0! } }
    }
}

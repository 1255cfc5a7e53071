import Dispatch
import Testing

@testable import Reports

@Suite struct ConcurrentMapTests {
    @Test("concurrentMap gives map's results in the elements' order, for no element, one and many")
    func sameAsMap() {
        #expect([Int]().concurrentMap { $0 * 2 } == [])
        #expect([7].concurrentMap { "\($0)" } == ["7"])
        let values = Array(0..<1000)
        #expect(values.concurrentMap { $0 * $0 + 1 } == values.map { $0 * $0 + 1 })
    }

    @Test("concurrentMap transforms elements side by side")
    func sideBySide() {
        // Each of two elements waits for the other's transform to have started: one after the other, the first
        // would wait in vain.
        let started = DispatchGroup()
        started.enter()
        started.enter()
        let together = [0, 1].concurrentMap { _ in
            started.leave()
            return started.wait(timeout: .now() + 10) == .success
        }
        #expect(together == [true, true])
    }
}

import BenchCore
import BLECore
import Foundation
import Synchronization
import Testing

@testable import Radios

extension Interop {
    /// The timers an ``HCIStack`` keeps for its links' GATT clients (the ATT transaction timeout), on a rootcanal
    /// controller with a link to a Bumble peripheral.
    @Suite("HCIStack link timers")
    struct HCIStackTimers {
        @Test("a link's timers fire at their deadlines, an early one wakes the timer thread, and they end with the link")
        func timersFireOnTimeAndEndWithTheLink() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let peripheral = try await scope.peer(.peripheral, ["--hci", rootcanal.hciSpec])
                let ready = try peripheral.decode(PeripheralReady.self, from: peripheral.ready)
                let address = try #require(DeviceAddress("\(ready.address)/random"))
                let stack = try await HCIStack.open(try HCITransportSpec.parse(rootcanal.hciSpec).open())
                do {
                    let connection = try await HCICentral(stack: stack).connect(to: address, timeout: .seconds(10))
                    let handle = try #require(stack.links.first?.handle)
                    let fired = Mutex<[String: RigInstant]>([:])
                    let clock = stack.clock
                    func mark(_ name: String) -> @Sendable () -> Void {
                        { fired.withLock { $0[name] = clock.now } }
                    }

                    // The timer thread sleeps until the 300 ms timer: the 50 ms one must wake it early.
                    let start = clock.now
                    #expect(stack.schedule(at: start.advanced(by: .milliseconds(300)), on: handle, mark("late")))
                    #expect(stack.schedule(at: start.advanced(by: .milliseconds(50)), on: handle, mark("early")))
                    let deadline = ContinuousClock.now.advanced(by: .seconds(3))
                    while fired.withLock({ $0.count }) < 2, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    let times = fired.withLock { $0 }
                    let early = try #require(times["early"]).sinceOrigin - start.sinceOrigin
                    let late = try #require(times["late"]).sinceOrigin - start.sinceOrigin
                    #expect(early >= .milliseconds(50) && early < .milliseconds(250), "fired after \(early)")
                    #expect(late >= .milliseconds(300) && late < .milliseconds(500), "fired after \(late)")

                    // A timer of a link that goes down never fires; a link that is gone gets none.
                    #expect(stack.schedule(at: clock.now.advanced(by: .milliseconds(200)), on: handle, mark("gone")))
                    await connection.disconnect()
                    try await Task.sleep(for: .milliseconds(400))
                    #expect(fired.withLock { $0["gone"] } == nil)
                    #expect(!stack.schedule(at: clock.now, on: handle, mark("no link")))
                } catch {
                    await stack.shutdown()
                    throw error
                }
                await stack.shutdown()
            }
        }

        @Test("a connection attempt to nobody gives up at its timeout; one that succeeds is not cancelled afterwards")
        func connectTimeout() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let peripheral = try await scope.peer(.peripheral, ["--hci", rootcanal.hciSpec])
                let ready = try peripheral.decode(PeripheralReady.self, from: peripheral.ready)
                let address = try #require(DeviceAddress("\(ready.address)/random"))
                let stack = try await HCIStack.open(try HCITransportSpec.parse(rootcanal.hciSpec).open())
                do {
                    let central = HCICentral(stack: stack)
                    let nobody = DeviceAddress(0xC1_02_03_04_05_06, kind: .random)
                    let began = ContinuousClock.now
                    await #expect(throws: CentralError.notFound(nobody, waited: .milliseconds(300))) {
                        _ = try await central.connect(to: nobody, timeout: .milliseconds(300))
                    }
                    let waited = began.duration(to: .now)
                    #expect(waited >= .milliseconds(300) && waited < .seconds(2), "gave up after \(waited)")

                    // The attempt's timer goes with the attempt: the link outlives the timeout it was made under.
                    let connection = try await central.connect(to: address, timeout: .milliseconds(500))
                    try await Task.sleep(for: .milliseconds(700))
                    #expect(stack.links.count == 1)
                    #expect(stack.timers.count == 0)
                    await connection.disconnect()
                } catch {
                    await stack.shutdown()
                    throw error
                }
                await stack.shutdown()
            }
        }
    }
}

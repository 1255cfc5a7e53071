import BLECore
import BenchCore

/// A bench of real radios on the wall clock (blerig's HCI host, the kernel's BlueZ stack): what their launchers
/// hand the campaign once every radio and board is open.
struct WallClockBench: Bench {
    let clock: any RigClock
    let unixTimeAtOrigin: Duration
    let radios: [any BenchRadio]
    let boards: [BenchBoard]
    let health: BenchHealth
}

import CentralStack
import DeviceProfiles
import Testing

/// The hrm alert policy (docs/board-contract.md, "hrm"): above 140 bpm `redAlert`, below 125 `turnOff`, only on a
/// change.
@Suite("Alert policy")
struct AlertPolicyTests {
    @Test(
        "writes only on a crossing, with hysteresis",
        arguments: [
            // Rates, then what the policy writes after each (nil: nothing).
            ([120, 141, 150, 139, 126, 124, 130, 141], [nil, "redAlert", nil, nil, nil, "turnOff", nil, "redAlert"]),
            // The thresholds themselves do not cross: 140 is not above 140, 125 not below 125.
            ([140, 141, 125, 124], [nil, "redAlert", nil, "turnOff"]),
            // Inside the band nothing happens, whichever way the rate moves.
            ([125, 130, 140, 130, 125], [nil, nil, nil, nil, nil]),
            // Repeated values above the threshold write once.
            ([200, 200, 199, 201], ["redAlert", nil, nil, nil]),
            // A jump straight across both thresholds and back.
            ([60, 180, 60, 180], [nil, "redAlert", "turnOff", "redAlert"]),
        ] as [([Int], [String?])])
    func table(rates: [Int], writes: [String?]) {
        var policy = AlertPolicy()
        #expect(rates.map { policy.observe(bpm: $0)?.rawValue } == writes)
    }

    @Test("starting from a raised light, only a fall below 125 writes")
    func startingRaised() {
        var policy = AlertPolicy(current: .redAlert)
        #expect([150, 130, 124, 150].map { policy.observe(bpm: $0) } == [nil, nil, .turnOff, .redAlert])
    }

    @Test("the thresholds are the contract's, and can be set")
    func thresholds() {
        #expect(AlertPolicy().raiseAbove == 140 && AlertPolicy().clearBelow == 125)
        var policy = AlertPolicy(raiseAbove: 100, clearBelow: 90)
        #expect([101, 95, 89].map { policy.observe(bpm: $0) } == [.redAlert, nil, .turnOff])
    }
}

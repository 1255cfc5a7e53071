import CentralStack
import DeviceProfiles
import Reports

/// A suite's checks as a type: one case per check, in the order the suite runs them, its raw value the name the
/// reports, the run's plan and CI history key on (so a name never changes by accident).
protocol SuiteChecks: RawRepresentable<String>, CaseIterable, Sendable {}

extension SuiteChecks {
    /// Every check's name, in order.
    static var names: [String] { allCases.map(\.rawValue) }
}

extension BoardUnderTest {
    /// The suite could not begin (no session with the board, no image directory, no queue): the first of `checks`
    /// fails with `message` and the others are skipped with `reason`, so the check names (and each check's CI
    /// history) are the same whatever happened.
    func failFirst<Checks: SuiteChecks>(
        _ suite: String, _ checks: Checks.Type, message: String, skipping reason: String
    ) async {
        await failFirst(suite, Checks.names, message: message, skipping: reason)
    }

    /// ``failFirst(_:_:message:skipping:)`` for checks named at run time.
    func failFirst(_ suite: String, _ names: [String], message: String, skipping reason: String) async {
        guard let first = names.first else { return }
        await check(suite, first) { throw CheckFailure(message) }
        skip(suite, names.dropFirst(), reason: reason)
    }

    /// Skips `names`, each with `reason`.
    func skip(_ suite: String, _ names: some Sequence<String>, reason: String) {
        for name in names { recorder.skip(suite, name, reason: reason) }
    }
}

/// Earlier attempts of a retried or rerun check, the way Maven Surefire writes them (and Jenkins, Allure and
/// GitLab read them): when the last attempt passed, each earlier failure is a `<flakyFailure>` and each earlier
/// error a `<flakyError>`; when the last attempt did not pass either, they are `<rerunFailure>` and
/// `<rerunError>` beside the last attempt's own `<failure>` or `<error>`. Each carries the attempt's message and
/// class (`type`), a `<stackTrace>` with its details (Surefire 3.0's schema requires the element), and a
/// `<system-out>` saying which attempt it was, when it started and how long it ran:
///
/// ```xml
/// <flakyError message="infrastructure failure: esp-01 ota.clean update: controller transport closed"
///             type="infrastructure">
///   <stackTrace>hci tcp:127.0.0.1:6402: connection reset by peer</stackTrace>
///   <system-out>attempt 1 of 2: started at +12.000000s, bench time 3.100 s, wall 0.021 s</system-out>
/// </flakyError>
/// ```
///
/// Earlier attempts that passed or were skipped have no element.
extension JUnitWriter {
    struct AttemptElement {
        /// `flakyFailure`, `flakyError`, `rerunFailure` or `rerunError`.
        var name: String
        var message: String?
        var type: String
        var stackTrace: String
        var systemOut: String

        func write(into xml: inout XMLWriter) {
            xml.start(name, [("message", message), ("type", type)])
            xml.element("stackTrace", text: stackTrace)
            xml.element("system-out", text: systemOut)
            xml.end()
        }
    }

    static func attemptElements(_ test: TestResult) -> [AttemptElement] {
        let flaky = test.outcome == .passed
        let total = test.attempt
        return test.earlierAttempts.enumerated().compactMap { index, attempt in
            let failure: Bool
            let details: String
            let summary: String
            switch attempt.outcome {
            case .passed, .skipped: return nil
            case .failed(let message, let text):
                failure = true
                summary = message
                details = text
            case .error(let message, let text):
                failure = false
                summary = message
                details = text
            case .interrupted(let reason):
                failure = false
                summary = "interrupted: \(reason)"
                details = ""
            }
            let type = Self.type(attempt.outcome, attempt.failureClass)
            let name = (flaky ? "flaky" : "rerun") + (failure ? "Failure" : "Error")
            var out = "attempt \(index + 1) of \(total): started at \(NumberText.rigTime(attempt.started))"
            out += ", bench time \(NumberText.seconds3(attempt.duration)) s"
            if let wall = attempt.wallDuration { out += ", wall \(NumberText.seconds3(wall)) s" }
            return AttemptElement(
                name: name, message: "\(Self.prefix(type))\(test.board) \(test.suite).\(test.name): \(summary)",
                type: type, stackTrace: details.isEmpty ? summary : details, systemOut: out + "\n")
        }
    }
}

/// Why a campaign could not start. Each description is one line that says what went wrong and where: the rig
/// file's `file:line:column`, the command-line flag, or the output path. Once a campaign runs it does not throw:
/// what goes wrong then is in its ``CampaignResult``.
public enum CampaignError: Error, Sendable, CustomStringConvertible {
    /// The rig file is missing, malformed, or names something unknown.
    case rig(RigFileError)
    /// A command-line flag has a value that cannot be used.
    case argument(flag: String, message: String)
    /// The rig names a radio this build cannot drive.
    case unsupportedRadio(RadioConfig)
    /// The report directory cannot be created or written.
    case output(path: String, message: String)
    /// `--rerun-failed` named a run in which every check passed: there is nothing to run, which is no failure.
    case nothingToRerun(runID: String)

    public var description: String {
        switch self {
        case let .rig(error): error.description
        case let .argument(flag, message): "\(flag): \(message)"
        case let .unsupportedRadio(radio):
            "\(radio.location): radio '\(radio.kindName)' is not available to this bench factory (it opens virtual "
                + "benches only); the blerig command's bench builder drives virtual, hci, rootcanal and bluez radios"
        case let .output(path, message): "cannot write \(path): \(message)"
        case let .nothingToRerun(runID): "--rerun-failed: nothing to run again: every check of run \(runID) passed"
        }
    }

    /// Every problem, one per line (a rig file may have several).
    public var report: String {
        if case let .rig(error) = self { return error.report }
        return description
    }

    /// The exit status a run that could not start ends with.
    public var exitStatus: ExitStatus {
        switch self {
        case .rig, .argument: .usage
        case .unsupportedRadio, .output: .infrastructure
        case .nothingToRerun: .passed
        }
    }
}

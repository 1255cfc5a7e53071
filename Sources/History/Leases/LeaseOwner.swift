import Foundation

/// Who holds a lease: a name people read (the CI job when there is one, and the host and process) and a token
/// only this process knows, so that a process reusing a dead one's pid, or a second job with the same job id,
/// never passes for the holder.
public struct LeaseOwner: Sendable, Hashable {
    /// `gitlab job 4711 on host-a:2231`, `github run 99 on host-a:2231`, `host-a:2231`.
    public var name: String
    public var token: String

    public init(name: String, token: String = UUID().uuidString.lowercased()) {
        self.name = name
        self.token = token
    }

    /// This process: the CI job from `CI_JOB_ID` (GitLab) or `GITHUB_RUN_ID` (GitHub Actions) if set, then
    /// `host:pid` with `host` the host id.
    public static func current(
        host: String, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> LeaseOwner
    {
        let process = "\(host):\(getpid())"
        if let job = environment["CI_JOB_ID"], !job.isEmpty { return LeaseOwner(name: "ci job \(job) on \(process)") }
        if let run = environment["GITHUB_RUN_ID"], !run.isEmpty {
            return LeaseOwner(name: "github run \(run) on \(process)")
        }
        return LeaseOwner(name: process)
    }
}

/// The host id history and leases record: `BLERIG_HOST_ID` when set (several runners in one machine, or a
/// host whose name changes), else the host name.
public enum HostID {
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let id = environment["BLERIG_HOST_ID"]?.trimmingCharacters(in: .whitespaces), !id.isEmpty { return id }
        return ProcessInfo.processInfo.hostName
    }
}

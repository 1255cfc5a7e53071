import DeviceProfiles
import Foundation

/// The profile files one rig load reads: `profile: {file: profiles/my-sensor.yaml}`, the path relative to the rig
/// file. Each file is read once however many boards name it, and its problems are reported once, with their own
/// `file:line:column`, beside the rig's.
final class ProfileFiles {
    private var loaded: [String: DataProfile?] = [:]
    let diagnostics: RigDiagnostics

    init(diagnostics: RigDiagnostics) { self.diagnostics = diagnostics }

    /// `path` as the loader opens it: relative to the directory of the rig file `rigFile`.
    static func resolve(_ path: String, relativeTo rigFile: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let directory = (rigFile as NSString).deletingLastPathComponent
        return directory.isEmpty ? path : (directory as NSString).appendingPathComponent(path)
    }

    /// The profile of `profile: {file: …}` at `node`; nil after recording why not.
    func profile(_ node: RigNode) -> Profile? {
        guard var reader = RigMappingReader(node, noun: "profile", diagnostics: diagnostics) else { return nil }
        let file = reader.read("file", required: true) { node throws(RigFileIssue) in
            let path = try node.string(for: "file")
            guard !path.isEmpty else { throw node.issue(.invalidValue, "'file' must be a profile file's path") }
            return (path: path, location: node.location)
        }
        reader.rejectUnknownKeys()
        guard let file else { return nil }
        let path = Self.resolve(file.path, relativeTo: file.location.file)
        if let known = loaded[path] { return known.map(Profile.described) }
        let profile: DataProfile?
        do {
            profile = try ProfileFile.load(contentsOf: path)
        } catch {
            for issue in error.issues {
                // A file that cannot be opened is reported where the rig names it.
                if issue.location.line == 0 {
                    diagnostics.record(
                        issue.code, "profile file \(RigWording.quoted(path)): \(issue.message)", at: file.location)
                } else {
                    diagnostics.record(issue)
                }
            }
            profile = nil
        }
        loaded[path] = profile
        return profile.map(Profile.described)
    }
}

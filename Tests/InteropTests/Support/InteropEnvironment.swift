import Benchmarks
import Foundation
import Radios
import Testing

/// Where the interop tier finds rootcanal and Bumble, and whether it runs.
///
/// The rule: with the venv present the tests run. Without it they are skipped with the reason and the fix,
/// except under CI (`CI=true`), where a missing venv must fail the run, never skip it: the tests then run and
/// fail on ``venv()``'s error, which names `make interop-deps`.
enum InteropEnvironment {
    /// The checkout: three levels above this file's folder.
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path(percentEncoded: false)

    /// The Bumble peer scripts, where blerig ships them (`share/blerig/peers`), found the way `blerig bench hci`
    /// finds them; if they are missing, the path they should be at (so a script that will not start names it).
    static let peersDirectory =
        (try? PeerScripts.locate(from: packageRoot)) ?? "\(packageRoot)/\(PeerScripts.relativePath)"

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The venv, found the way blerig finds it, starting from the checkout rather than the current directory.
    static func venv() throws -> InteropVenv { try InteropVenv.locate(from: packageRoot) }

    static let venvMissing: String? = {
        do {
            _ = try venv()
            return nil
        } catch {
            return "\(error)"
        }
    }()

    /// Whether the interop tests run: the venv is there, or CI demands them.
    static let runs = venvMissing == nil || isCI

    /// Why they are skipped, when they are.
    static let skipReason = Comment(rawValue: "interop tier skipped: \(venvMissing ?? "")")
}

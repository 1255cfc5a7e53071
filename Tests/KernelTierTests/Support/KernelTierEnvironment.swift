import Foundation
import Testing

/// Where the kernel tier finds qemu, the cached kernel and its venv, and whether it runs.
///
/// The rule: with qemu installed the tier runs (`make kernel-deps` installs it, downloads the kernel package and
/// makes the venv). Where qemu is not installed it is skipped with the reason, except under CI (`CI=true`),
/// where it runs and fails on what is missing: a CI host that cannot boot the kernel must not pass quietly.
enum KernelTierEnvironment {
    /// The checkout: three levels above this file's folder.
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path(percentEncoded: false)
        .trimmingSuffix("/")

    /// Tests/KernelTier/: the boot harness, the guest scripts and the host-side peers.
    static let scripts = "\(packageRoot)/Tests/KernelTier"

    static let cache = ProcessInfo.processInfo.environment["KERNEL_TIER_CACHE"] ?? "\(packageRoot)/.cache/kernel-tier"

    /// The venv `make kernel-deps` makes: usbip (the USB/IP device server) and esptool (the reference for reset
    /// sequences).
    static let venv = "\(packageRoot)/.venv-kernel"

    /// The interop tier's venv (`make interop-deps`): Bumble, for the host side of hci_vhci.
    static let interopVenv = "\(packageRoot)/.venv-interop"

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    static let qemu: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/qemu-system-x86_64" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// The blerig binary the tests were built with: beside the test bundle in the build folder.
    static let blerig: String = {
        let executable = URL(filePath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        // The bundle may be a folder (…/blerigPackageTests.xctest/…) on some platforms.
        while folder.path(percentEncoded: false).contains(".xctest") { folder = folder.deletingLastPathComponent() }
        return folder.appending(path: "blerig").path(percentEncoded: false)
    }()

    /// What is missing for the tier, with the fix; nil when everything is there.
    static func missing() -> String? {
        var problems: [String] = []
        if qemu == nil { problems.append("qemu-system-x86_64 is not installed") }
        if !FileManager.default.fileExists(atPath: "\(cache)/root/boot") {
            problems.append("the kernel package is not unpacked in \(cache)/root/")
        }
        if !FileManager.default.isExecutableFile(atPath: "\(venv)/bin/python") {
            problems.append("\(venv)/ is missing")
        }
        if !FileManager.default.isExecutableFile(atPath: blerig) {
            problems.append("\(blerig) is not built (swift build --build-tests builds it)")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ") + ": run make kernel-deps"
    }

    /// Whether the tier runs: qemu is installed, or CI demands it (then a missing piece fails every test).
    static let runs = qemu != nil || isCI

    static let skipReason = Comment(
        rawValue: "kernel tier skipped: qemu-system-x86_64 cannot be found here (make kernel-deps installs it on "
            + "Debian; elsewhere install qemu, busybox-static, kmod and usbip)")

    /// Fails the test with the reason when a piece is missing (under CI, or after a half-finished kernel-deps).
    static func require() throws {
        if let missing = missing() { throw KernelTierFailure(missing) }
    }
}

/// A kernel tier test that did not get what it needed, with what was seen.
struct KernelTierFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

import Foundation
import Testing

extension KernelTier {
    @Suite struct GuestBootTests {
        @Test func theGuestRunsOnDebiansKernelAndReturnsTheCommandsStatusAndOutput() async throws {
            let folder = Guest.folder("boot")
            let release = try FileManager.default.contentsOfDirectory(
                atPath: "\(KernelTierEnvironment.cache)/root/lib/modules")
            let run = try await Guest().run(
                "uname -r; test -x \(KernelTierEnvironment.blerig) && echo blerig-visible; "
                    + "echo to-stderr >&2; echo written > \(folder)/from-guest; exit 7",
                folder: folder)

            print("kernel-tier: boot \(run.bootSeconds ?? -1) s (qemu start → command), whole run \(run.totalSeconds) s")
            #expect(run.status == 7, "\(run)\n\(run.consoleTail)")
            // Debian's kernel, not the host's: the release of the package the tier unpacked.
            #expect(run.stdout.split(separator: "\n").first.map(String.init) == release.first)
            #expect(run.stdout.contains("blerig-visible"))
            #expect(run.stderr.contains("to-stderr"))
            #expect((try? String(contentsOfFile: "\(folder)/from-guest", encoding: .utf8)) == "written\n")
            #expect(run.bootSeconds != nil)
        }
    }
}

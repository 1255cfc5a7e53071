import Foundation
import Testing

@testable import Orchestrator

@Suite("The filesystem a benchmark writes to")
struct FileSystemTypeTests {
    static let mounts = """
        /dev/vda / ext4 rw,relatime 0 0
        tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0
        /dev/vdb /data xfs rw 0 0
        /dev/vdc /data/fast\\040lane btrfs rw 0 0
        tmpfs /data tmpfs rw 0 0
        """

    @Test(
        "the longest mount point holding the path names the type; a later mount on a point hides the earlier",
        arguments: [
            ("/tmp/blerig-bench-1", "ext4"), ("/", "ext4"), ("/dev/shm/x", "tmpfs"), ("/dev/shmx", "ext4"),
            ("/data/runs", "tmpfs"), ("/data/fast lane/runs", "btrfs"), ("/data/fast", "tmpfs"),
        ])
    func types(path: String, type: String) {
        #expect(FileSystemType.of(path, mounts: Self.mounts) == type)
    }

    @Test("this process's own mount table knows its temporary directory")
    func ownTable() {
        #expect(FileSystemType.of(FileManager.default.temporaryDirectory.path) != nil)
    }
}

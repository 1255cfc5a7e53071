import Foundation
import Radios
import Testing

@Suite struct InteropVenvTests {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appending(path: "interop-venv-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: "\(root)/checkout/Sources/Radios", withIntermediateDirectories: true)
    }

    func makeVenv(at directory: String) throws {
        try FileManager.default.createDirectory(atPath: "\(directory)/bin", withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(
                atPath: "\(directory)/bin/python", contents: Data(), attributes: [.posixPermissions: 0o755]))
    }

    @Test("found in an ancestor of the starting directory, as from anywhere inside a checkout")
    func foundInAnAncestor() throws {
        try makeVenv(at: "\(root)/checkout/.venv-interop")
        let venv = try InteropVenv.locate(environment: [:], from: "\(root)/checkout/Sources/Radios")
        #expect(venv.python == "\(root)/checkout/.venv-interop/bin/python")
    }

    @Test("BLERIG_INTEROP_VENV wins, and a wrong one is an error that names it")
    func environmentVariable() throws {
        try makeVenv(at: "\(root)/elsewhere")
        try makeVenv(at: "\(root)/checkout/.venv-interop")
        let named = try InteropVenv.locate(
            environment: ["BLERIG_INTEROP_VENV": "\(root)/elsewhere"], from: "\(root)/checkout")
        #expect(named.directory == "\(root)/elsewhere")
        #expect {
            try InteropVenv.locate(environment: ["BLERIG_INTEROP_VENV": "\(root)/missing"], from: "\(root)/checkout")
        } throws: { error in
            "\(error)".contains("BLERIG_INTEROP_VENV=\(root)/missing") && "\(error)".contains("make interop-deps")
        }
    }

    @Test("missing: the error says where it looked and that `make interop-deps` installs it")
    func missingNamesTheFix() throws {
        #expect {
            try InteropVenv.locate(environment: [:], from: "\(root)/checkout/Sources")
        } throws: { error in
            let text = "\(error)"
            return (error as? RootcanalError)?.code == .notInstalled && text.contains("make interop-deps")
                && text.contains("\(root)/checkout/Sources/.venv-interop")
                && text.contains("\(root)/checkout/.venv-interop")
        }
    }

    @Test("the search climbs from the starting directory to / and stops there")
    func candidatesEndAtTheRoot() {
        #expect(
            InteropVenv.candidates(from: "/a/b/../c").map(\.directory) == [
                "/a/c/.venv-interop", "/a/.venv-interop", "/.venv-interop",
            ])
        #expect(InteropVenv.candidates(from: "/").map(\.directory) == ["/.venv-interop"])
        let here = InteropVenv.candidates(from: "")
        #expect(here.first?.directory == "\(FileManager.default.currentDirectoryPath)/.venv-interop")
        #expect(here.last?.directory == "/.venv-interop")
    }
}

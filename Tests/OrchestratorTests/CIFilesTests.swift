import Foundation
import Testing

@testable import Orchestrator

/// The CI integration in `ci/` and the hardware rig example: each file checked by a tool nobody here wrote where one
/// exists (the published schemas through check-jsonschema, Groovy's parser), then for what blerig needs of it.
@Suite("CI files and the bench example")
struct CIFilesTests {
    static let workflow = "ci/github/blerig.yml"
    static let gitlab = "ci/gitlab/blerig.gitlab-ci.yml"
    static let jenkinsfile = "ci/jenkins/Jenkinsfile"

    /// The YAML of a repository file as the rig loader's own node tree (libyaml underneath).
    static func yaml(_ relative: String) throws -> RigNode {
        let text = try String(contentsOfFile: RigTesting.path(relative), encoding: .utf8)
        return try RigNode.parse(yaml: text, file: relative, diagnostics: RigDiagnostics())
    }

    static func text(_ node: RigNode?) -> String? { node?.scalar?.text }

    // MARK: Published schemas

    @Test(
        "the CI files are valid against their published schemas (SchemaStore, vendored by check-jsonschema)",
        .enabled(if: CITools.schemaChecksRun, CITools.schemaSkip),
        arguments: [
            (workflow, "vendor.github-workflows"), (workflow, "custom.github-workflows-require-timeout"),
            (gitlab, "vendor.gitlab-ci"),
        ])
    func validAgainstSchema(file: String, schema: String) async throws {
        let outcome = try await CITools.validate(RigTesting.path(file), builtinSchema: schema)
        #expect(outcome.status == 0, "\(file) against \(schema): \(outcome.output)")
    }

    /// Not vacuous: the same check refuses each file with one key misspelt.
    @Test(
        "the schema check refuses a CI file with a misspelt key",
        .enabled(if: CITools.schemaChecksRun, CITools.schemaSkip),
        arguments: [
            (workflow, "vendor.github-workflows", "timeout-minutes: 240", "timeout-minute: 240"),
            (gitlab, "vendor.gitlab-ci", "when: always", "when: allways"),
        ])
    func schemaCheckCanFail(file: String, schema: String, key: String, misspelt: String) async throws {
        let original = try String(contentsOfFile: RigTesting.path(file), encoding: .utf8)
        #expect(original.contains(key))
        let broken = try RigTesting.temporaryFile(
            Array(original.replacingOccurrences(of: key, with: misspelt).utf8), name: "broken.yml")
        let outcome = try await CITools.validate(broken, builtinSchema: schema)
        #expect(outcome.status != 0, "a broken \(file) passed \(schema): \(outcome.output)")
    }

    // MARK: What blerig needs of them

    @Test("the GitHub workflow runs on pull requests, nightly and for releases, per rig host, sharing one history")
    func githubWorkflowShape() throws {
        let root = try Self.yaml(Self.workflow)
        let on = try #require(root["on"])
        #expect(on["pull_request"] != nil)
        #expect(Self.text(on["schedule"]?.elements?.first?["cron"]) != nil)
        #expect(on["push"]?["tags"] != nil)
        for name in ["physical", "release-gate"] {
            let job = try #require(root["jobs"]?[name], "job \(name)")
            let hosts = try #require(job["strategy"]?["matrix"]?["include"]?.elements)
            #expect(hosts.count >= 2, "\(name): a matrix over rig hosts")
            #expect(hosts.allSatisfy { Self.text($0["host"]) != nil && Self.text($0["rig"]) != nil })
            let labels = try #require(job["runs-on"]?.elements).compactMap { Self.text($0) }
            #expect(labels.contains("self-hosted") && labels.contains("${{ matrix.host }}"), "\(name): \(labels)")
            #expect(Self.text(job["env"]?["BLERIG_HISTORY_URL"]) == "${{ secrets.BLERIG_HISTORY_URL }}")
            let steps = try #require(job["steps"]?.elements)
            let run = steps.compactMap { Self.text($0["run"]) }.first { $0.contains("run \"${{ matrix.rig }}\"") }
            let command = try #require(run, "\(name): a step runs blerig on the matrix's rig")
            #expect(command.contains("--history \"$BLERIG_HISTORY_URL\""))
            if name == "release-gate" {
                #expect(command.contains("--gates \"$GATES\"") && command.contains("--baseline release"))
            }
            for action in ["mikepenz/action-junit-report@", "actions/upload-artifact@"] {
                let step = try #require(steps.first { Self.text($0["uses"])?.hasPrefix(action) == true }, "\(action)")
                #expect(Self.text(step["if"]) == "always()", "\(name): \(action) runs whatever blerig exited with")
            }
        }
        #expect(Self.text(root["env"]?["GATES"]) == "rigs/gates.yaml")
    }

    @Test("the GitLab job publishes the JUnit and keeps the run directory whatever happened, per rig host")
    func gitlabJobShape() throws {
        let root = try Self.yaml(Self.gitlab)
        let template = try #require(root[".blerig-host"])
        #expect(template["parallel"]?["matrix"]?.elements?.first?["RIG_HOST"]?.elements?.count ?? 0 >= 2)
        #expect(template["tags"]?.elements?.compactMap { Self.text($0) } == ["blerig", "$RIG_HOST"])
        for name in ["blerig:physical", "blerig:release-gate"] {
            let job = try #require(root[name], "job \(name)")
            let artifacts = try #require(job["artifacts"] ?? template["artifacts"])
            #expect(Self.text(artifacts["when"]) == "always")
            #expect(Self.text(artifacts["reports"]?["junit"]) == "$BLERIG_OUT/*/junit.xml")
            #expect(artifacts["paths"]?.elements?.compactMap { Self.text($0) } == ["$BLERIG_OUT/"])
            let script = try #require(job["script"]?.elements?.compactMap { Self.text($0) }.joined(separator: "\n"))
            #expect(script.contains("--history \"$BLERIG_HISTORY_URL\"") && script.contains("--out \"$BLERIG_OUT\""))
            if name == "blerig:release-gate" {
                #expect(script.contains("--gates rigs/gates.yaml --baseline release"))
            }
        }
    }

    // MARK: Jenkinsfile

    /// Jenkins publishes no schema for a Jenkinsfile and its declarative linter needs a Jenkins server, so this
    /// parses the file with Groovy's own parser (syntax only: nothing is compiled against Jenkins' steps) and checks
    /// the declarative structure on the parsed tree.
    @Test(
        "the Jenkinsfile parses as Groovy (syntax only: no Jenkins linter offline) and has its declarative steps",
        .enabled(if: CITools.groovyChecksRun, CITools.groovySkip))
    func jenkinsfileParsesWithTheRequiredSteps() async throws {
        let outcome = try await CITools.groovyOutline(of: RigTesting.path(Self.jenkinsfile))
        try #require(outcome.status == 0, "groovy could not parse \(Self.jenkinsfile): \(outcome.output)")
        let calls = outcome.output.split(separator: "\n").map(String.init)
        let stage = "pipeline > stages > stage(Hardware) > matrix > stages > stage(Run the rig)"
        for required in [
            "pipeline > agent(none)", "pipeline > triggers > cron",
            "pipeline > stages > stage(Hardware) > matrix > axes > axis > name(RIG_HOST)",
            "pipeline > stages > stage(Hardware) > matrix > agent > label(blerig && $RIG_HOST)",
            "\(stage) > environment > credentials(blerig-history-url)",
        ] {
            #expect(calls.contains(required), "missing: \(required)")
        }
        let run = calls.first { $0.hasPrefix("\(stage) > steps > script > sh[returnStatus=true,script=") }
        #expect(run?.contains("--history \"$BLERIG_HISTORY_URL\"") == true, "\(calls)")
        #expect(
            calls.contains(
                "\(stage) > post > always > junit[allowEmptyResults=false,keepProperties=true,"
                    + "testResults=$BLERIG_OUT/*/junit.xml]"), "\(calls)")
        #expect(
            calls.contains {
                $0.hasPrefix("\(stage) > post > always > archiveArtifacts[") && $0.contains("$BLERIG_OUT/**")
            })
        let text = try String(contentsOfFile: RigTesting.path(Self.jenkinsfile), encoding: .utf8)
        #expect(text.contains("'--gates rigs/gates.yaml --baseline release'"))
    }

    /// Not vacuous: Groovy's parser refuses the Jenkinsfile with one closing brace gone.
    @Test(
        "the Groovy parse refuses a Jenkinsfile with an unbalanced brace",
        .enabled(if: CITools.groovyChecksRun, CITools.groovySkip))
    func groovyParseCanFail() async throws {
        var text = try String(contentsOfFile: RigTesting.path(Self.jenkinsfile), encoding: .utf8)
        let last = try #require(text.range(of: "}", options: .backwards))
        text.removeSubrange(last)
        let broken = try RigTesting.temporaryFile(Array(text.utf8), name: "Jenkinsfile")
        let outcome = try await CITools.groovyOutline(of: broken)
        #expect(outcome.status != 0, "an unbalanced Jenkinsfile parsed: \(outcome.output)")
    }

    // MARK: The bench example

    /// The loader checks syntax, keys, values and bindings, not that the devices exist, so the example loads here.
    @Test("rigs/bench.example.yaml loads with the real loader: a bluez radio, reset presets and hub ports")
    func benchExampleLoads() throws {
        let rig = try RigFile.load(
            contentsOf: RigTesting.path("rigs/bench.example.yaml"), knownSuites: Campaign.suiteNames)
        #expect(!rig.isVirtual)
        guard case .bluez(let adapter) = rig.radio.kind else {
            Issue.record("the example's radio is \(rig.radio.kind), not bluez")
            return
        }
        #expect(adapter == "hci0")
        let esp = try #require(rig.boards.first { $0.profile == .espPoint })
        #expect(esp.serial?.port.hasPrefix("/dev/serial/by-id/") == true)
        #expect(esp.serial?.reset == .esp32Classic)
        #expect(esp.power?.hub == "1-1.4")
        let nano = try #require(rig.boards.first { $0.profile == .nano33BLESense })
        #expect(nano.serial?.reset == .arduino1200Touch)
        #expect(nano.power != nil)
        #expect(rig.boards.allSatisfy { $0.match != nil })
        #expect(rig.suites.map(\.name).contains("discovery"))
    }
}

import Foundation
import Testing

/// The independent checkers of the CI files in `ci/`: check-jsonschema (PyPI, in `.venv-ci/`, with the schemas it
/// vendors from SchemaStore) and Groovy's own parser (Debian's `groovy`, on the JDK). `make ci-deps` installs both.
///
/// The rule, as for the interop tier: with the tools present the tests run; without them they are skipped with the
/// reason and the fix, except under CI (`CI=true`), where they run and fail on the missing tool.
enum CITools {
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    static let checkJSONSchema = RigTesting.path(".venv-ci/bin/check-jsonschema")
    static let groovy = "/usr/bin/groovy"

    static let schemaToolMissing: String? =
        FileManager.default.isExecutableFile(atPath: checkJSONSchema)
        ? nil : "\(checkJSONSchema) is missing: run `make ci-deps`"

    static let groovyMissing: String? =
        FileManager.default.isExecutableFile(atPath: groovy) && javaHome != nil
        ? nil : "groovy (and a JDK) is missing: run `make ci-deps` (Debian's groovy package)"

    static let schemaChecksRun = schemaToolMissing == nil || isCI
    static let groovyChecksRun = groovyMissing == nil || isCI
    static let schemaSkip = Comment(rawValue: "CI file schema checks skipped: \(schemaToolMissing ?? "")")
    static let groovySkip = Comment(rawValue: "Jenkinsfile parse skipped: \(groovyMissing ?? "")")

    /// Debian's `groovy` script looks for Java in `$JAVA_HOME`, else `/usr/lib/jvm/default-java`, which only the
    /// `default-jre` packages create; a JDK installed on its own is found through the `java` on the PATH instead.
    static let javaHome: String? = {
        let fileManager = FileManager.default
        if let home = ProcessInfo.processInfo.environment["JAVA_HOME"],
            fileManager.isExecutableFile(atPath: home + "/bin/java")
        {
            return home
        }
        for candidate in ["/usr/bin/java", "/usr/local/bin/java"] where fileManager.isExecutableFile(atPath: candidate)
        {
            let java = URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
            return java.deletingLastPathComponent().deletingLastPathComponent().path
        }
        return nil
    }()

    /// What a tool printed and how it exited.
    struct Outcome {
        var status: Int32
        var output: String
    }

    /// Runs `executable` with `arguments` and returns its exit status and everything it printed (stdout and stderr).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> Outcome {
        // On a thread of its own: a JVM or a Python checker takes seconds, and on two cores two of them would hold
        // every thread the other tests' tasks run on.
        try await CommandLineTests.offPool { Result { try runBlocking(executable, arguments, environment: environment) } }
            .get()
    }

    private static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String]
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: output)
    }

    /// A checker that is not installed, with the fix (what a test fails with under CI).
    struct ToolMissing: Error, CustomStringConvertible {
        var description: String
    }

    /// check-jsonschema on `path` with one of its built-in schemas.
    static func validate(_ path: String, builtinSchema: String) async throws -> Outcome {
        if let missing = schemaToolMissing { throw ToolMissing(description: missing) }
        return try await run(checkJSONSchema, ["--builtin-schema", builtinSchema, path])
    }

    /// The nesting of the method calls in a Groovy file, parsed by Groovy's own parser (up to the AST, nothing is
    /// run): one path per line, `pipeline > stages > stage(Hardware) > matrix`. A call's first literal argument is
    /// in parentheses, its named arguments in brackets, `key=value` where the value is a literal or a GString.
    /// A file that does not parse fails with Groovy's message.
    static func groovyOutline(of path: String) async throws -> Outcome {
        if let missing = groovyMissing { throw ToolMissing(description: missing) }
        let script = FileManager.default.temporaryDirectory
            .appendingPathComponent("blerig-jenkinsfile-outline-\(UUID().uuidString).groovy")
        try outlineScript.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        return try await run(groovy, [script.path, path], environment: ["JAVA_HOME": javaHome ?? ""])
    }

    static let outlineScript = #"""
        import org.codehaus.groovy.ast.CodeVisitorSupport
        import org.codehaus.groovy.ast.expr.*
        import org.codehaus.groovy.control.CompilationUnit
        import org.codehaus.groovy.control.Phases

        class CallOutline extends CodeVisitorSupport {
            List<String> path = []

            static String literal(Expression e) {
                if (e instanceof ConstantExpression) return String.valueOf(e.value)
                if (e instanceof GStringExpression) return e.text
                if (e instanceof VariableExpression) return e.name
                return null
            }

            void visitMethodCallExpression(MethodCallExpression call) {
                def arguments = call.arguments instanceof TupleExpression
                    ? call.arguments.expressions : [call.arguments]
                def label = call.methodAsString
                def first = arguments.findResult { literal(it) }
                if (first != null) label += "(" + first.replaceAll(/\s+/, " ").trim().take(60) + ")"
                def named = arguments.findAll { it instanceof MapExpression }.collectMany { map ->
                    map.mapEntryExpressions.collect { entry ->
                        def value = literal(entry.valueExpression)
                        entry.keyExpression.text + (value == null ? "" : "=" + value.replaceAll(/\s+/, " ").trim())
                    }
                }
                if (named) label += "[" + named.sort().join(",") + "]"
                path << label
                println(path.join(" > "))
                arguments.findAll { it instanceof ClosureExpression }.each { it.code.visit(this) }
                path.remove(path.size() - 1)
            }
        }

        def unit = new CompilationUnit()
        unit.addSource(new File(args[0]))
        unit.compile(Phases.CONVERSION)
        unit.AST.modules.each { it.statementBlock.visit(new CallOutline()) }
        """#
}

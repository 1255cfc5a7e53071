// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for blerig's decoders (docs/fuzzing.md). A package of its own, built only by `make fuzz` and
// `make fuzz-smoke` (with the fuzzer and address sanitizers), so the main package's build never sees it.
//
// The decoders are compiled from the main package's own sources: Sources/BLECore, DeviceProfiles, BenchCore and
// Reports are symlinks into ../Sources, RigLoader holds symlinks to Orchestrator's Rig and Profiles folders, and
// ConsoleFraming holds a symlink to BoardControl's LineFramer.swift. Only what the decoders need is built (libyaml from Yams, not the orchestrator's
// other dependencies), and every file is instrumented for coverage. A decoder that gains an import needs its target
// here too.
let package = Package(
    name: "blerig-fuzz",
    dependencies: [
        // Yams for the CYaml (libyaml) it vendors, which the rig loader reads YAML with; the pin of ../Package.swift.
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2")
    ],
    targets: [
        .target(name: "BLECore"),
        .target(name: "DeviceProfiles", dependencies: ["BLECore"]),
        .target(name: "BenchCore", dependencies: ["BLECore", "DeviceProfiles"]),
        .target(name: "Reports", dependencies: ["BLECore"]),
        // Orchestrator's Rig folder alone: RigFile.parse(yaml:file:knownSuites:), what `blerig validate` runs.
        .target(
            name: "RigLoader",
            dependencies: [
                "BLECore", "BenchCore", "DeviceProfiles", "Reports", .product(name: "Yams", package: "Yams"),
            ],
            // Rig/ and Profiles/ are symlinks to Orchestrator's folders; the skeleton writer needs the central stack.
            exclude: ["Rig/README.md", "Rig/RigFile+Suites.swift", "Profiles/ProfileSkeleton.swift"]
        ),
        .target(name: "LoaderChecks", dependencies: ["RigLoader", "FuzzSupport"]),
        .target(name: "ConsoleFraming"),
        .target(name: "FuzzSupport", dependencies: ["BLECore"]),
        // One executable per fuzz target; its LLVMFuzzerTestOneInput is the entry, libFuzzer supplies main.
        .executableTarget(name: "fuzz-att", dependencies: ["BLECore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-l2cap", dependencies: ["BLECore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-hci", dependencies: ["BLECore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-advertising", dependencies: ["BLECore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-ota", dependencies: ["DeviceProfiles", "BLECore", "FuzzSupport"]),
        .executableTarget(
            name: "fuzz-console", dependencies: ["DeviceProfiles", "ConsoleFraming", "BLECore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-rig", dependencies: ["RigLoader", "LoaderChecks", "FuzzSupport"]),
        .executableTarget(name: "fuzz-profile", dependencies: ["RigLoader", "LoaderChecks", "FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.2
import PackageDescription

// Targets are split at the I/O boundary (see docs/architecture.md): BLECore is sans-I/O, the
// virtual farm and the central stack build on it, the orchestrator drives them, and the CLI only parses.
let package = Package(
    name: "blerig",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "blerig", targets: ["blerig"]),
        .library(name: "BLECore", targets: ["BLECore"]),
        .library(name: "CentralStack", targets: ["CentralStack"]),
        // Preloaded into rootcanal, which has no flag to listen on loopback only (see loopback_bind.c).
        .library(name: "BlerigLoopback", type: .dynamic, targets: ["CLoopbackBind"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", exact: "0.2.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        .target(name: "BLECore"),
        .target(name: "CLoopbackBind", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "DeviceProfiles", dependencies: ["BLECore"]),
        // The capabilities every bench offers (radios, power, reset, console, capture, clock): what the
        // orchestrator sees, and what the virtual farm, the HCI host and serial/hub hardware implement.
        .target(name: "BenchCore", dependencies: ["BLECore", "DeviceProfiles"]),
        .target(
            name: "VirtualFarm",
            dependencies: [
                "BLECore", "BenchCore", "DeviceProfiles", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "CentralStack",
            dependencies: [
                "BLECore", "DeviceProfiles", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The sync suite's ingest server (Hummingbird): its own target, so only what serves or benchmarks it
        // pays Hummingbird's build time.
        .target(
            name: "IngestServer",
            dependencies: ["CentralStack", .product(name: "Hummingbird", package: "hummingbird")]
        ),
        .target(name: "Reports", dependencies: ["BLECore"]),
        // libbluetooth (libbluetooth-dev) for the BlueZ HCI user channel and adapter listing.
        .systemLibrary(name: "CBlueZ", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        // Real radios: HCI transports (TCP, UART, BlueZ user channel), blerig's HCI host on them, rootcanal.
        .target(name: "Radios", dependencies: ["BLECore", "BenchCore", "CBlueZ"]),
        // termios2 (any baud) and usbfs control transfers: kernel structures Swift cannot import beside Glibc.
        .target(name: "CBoardControl"),
        // Real boards: serial ports (termios, modem lines, reset sequences, lock files), following a port across
        // re-enumeration through sysfs, and USB hub port power.
        .target(name: "BoardControl", dependencies: ["BenchCore", "BLECore", "DeviceProfiles", "CBoardControl"]),
        .target(
            name: "Orchestrator",
            dependencies: [
                "BLECore", "BenchCore", "DeviceProfiles", "CentralStack", "Reports",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            exclude: ["Rig/README.md"]
        ),
        // Release gates: a gates file (read with the rig file's reader), absolute and regression limits, the
        // statistics behind them. Above the orchestrator, which sees only its RunJudge protocol.
        .target(name: "Gates", dependencies: ["Orchestrator", "Reports", "BLECore", "DeviceProfiles"]),
        // The composition root: the one place that builds a bench from a rig file, and so the one place that
        // knows the bench implementations. Orchestrator itself cannot import them.
        .target(
            name: "Benches",
            dependencies: [
                "BLECore", "BenchCore", "DeviceProfiles", "Orchestrator", "VirtualFarm", "Radios", "CentralStack",
                "IngestServer", "BoardControl",
            ]
        ),
        // `blerig bench`'s measurements (HCI against Bumble, OTA, sync, the OTA fault and sync kill campaigns): above
        // the composition root, which builds what they measure. The Bumble peer scripts they run ship in
        // share/blerig/peers.
        .target(
            name: "Benchmarks",
            dependencies: [
                "BLECore", "BenchCore", "DeviceProfiles", "Orchestrator", "VirtualFarm", "Radios", "CentralStack",
                "IngestServer", "Benches", "Reports",
            ]
        ),
        // Every run stored, and the boards' leases: SQLite (GRDB) on one host, PostgreSQL for several.
        .target(
            name: "History",
            dependencies: [
                "BLECore", "CentralStack", "Orchestrator", "Reports", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "blerig",
            dependencies: [
                "Orchestrator", "Benches", "Benchmarks", "Radios", "CentralStack", "BLECore", "BoardControl",
                "BenchCore", "Gates", "History",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "BLECoreTests", dependencies: ["BLECore"]),
        .testTarget(name: "DeviceProfilesTests", dependencies: ["DeviceProfiles", "BLECore"]),
        .testTarget(
            name: "VirtualFarmTests", dependencies: ["VirtualFarm", "BenchCore", "CentralStack", "DeviceProfiles", "BLECore"]
        ),
        .testTarget(
            name: "CentralStackTests",
            dependencies: [
                "CentralStack", "VirtualFarm", "DeviceProfiles", "BLECore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "BoardControlTests", dependencies: ["BoardControl", "CBoardControl", "BenchCore", "BLECore"]),
        .testTarget(name: "RadiosTests", dependencies: ["Radios", "BLECore", "BenchCore"]),
        // Against processes nobody here wrote: rootcanal (a virtual controller) and Bumble (a complete host).
        .testTarget(
            name: "InteropTests",
            dependencies: [
                "Radios", "Benches", "Benchmarks", "BenchCore", "CentralStack", "BLECore", "VirtualFarm",
                "DeviceProfiles", "IngestServer", "Reports",
            ]
        ),
        .testTarget(
            name: "HistoryTests",
            dependencies: ["History", "Orchestrator", "Benches", "Reports", "BLECore"],
            exclude: ["postgres.sh"]
        ),
        .testTarget(name: "ReportsTests", dependencies: ["Reports"], exclude: ["Fixtures"]),
        // The kernel tier: the real blerig binary inside Debian's kernel under qemu (Tests/KernelTier/), against
        // hci_vhci, USB/IP and dummy_hcd with peers on the host.
        .testTarget(
            name: "KernelTierTests",
            dependencies: ["Radios", "Benches", "BenchCore", "VirtualFarm", "DeviceProfiles", "BLECore", "Orchestrator"]
        ),
        .testTarget(
            name: "GatesTests",
            dependencies: ["Gates", "Orchestrator", "Benches", "Reports", "BLECore"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "OrchestratorTests",
            dependencies: [
                "Orchestrator", "Benches", "Benchmarks", "BenchCore", "CentralStack", "VirtualFarm", "Reports",
                "BLECore", "BoardControl", "Radios",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
import PackageDescription

// Layers, arrows pointing down only:
//   TiltboardCLI ─▶ TiltboardServer ─▶ TiltboardCommands, Tiltboard, FlyingSocks (the web server of `tiltboard serve`)
//   TiltboardCLI ─▶ TiltboardCommands ─▶ Tiltboard (bench, doctor, output writers, the monitor screen and
//                                        the wording of every error: in no product)
//   TiltboardCLI ─▶ Tiltboard ─▶ TiltboardLinux ─▶ CI2C, CGPIODShim ─▶ CGPIOD (Debian's libi2c, libgpiod)
//                            ├─▶ TiltboardSimulator ─▶ TiltboardDrivers ─▶ TiltboardCore
//                            └─▶ TiltboardDrivers, TiltboardCore
// TiltboardCore is pure signal processing; TiltboardDrivers knows bus protocols, not Linux;
// TiltboardLinux is the only target that issues syscalls or includes C headers.
let package = Package(
    name: "Tiltboard",
    products: [
        .executable(name: "tiltboard", targets: ["TiltboardCLI"]),
        .library(name: "Tiltboard", targets: ["Tiltboard"]),
        .library(name: "TiltboardCore", targets: ["TiltboardCore"]),
        .library(name: "TiltboardDrivers", targets: ["TiltboardDrivers"]),
        .library(name: "TiltboardSimulator", targets: ["TiltboardSimulator"]),
        .library(name: "TiltboardLinux", targets: ["TiltboardLinux"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Sockets and their event loop for `tiltboard serve` (FlyingFox's FlyingSocks layer):
        // swift-tools 6.0, no dependencies of its own.
        .package(url: "https://github.com/swhitty/FlyingFox", .upToNextMinor(from: "0.27.1")),
        // `swift package generate-documentation`: the DocC archives of the library products, built
        // in CI (Tests/docs/run-docs.sh). A command plugin only: nothing of it is linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CI2C",
            providers: [.apt(["libi2c-dev"])]
        ),
        .systemLibrary(
            name: "CGPIOD",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // Counts heap allocations for `tiltboard bench` and the zero-allocation tests.
        .target(name: "CAllocationCounter"),
        // prctl and other variadic or macro-only calls the Linux layer needs.
        .target(name: "CLinuxSupport"),
        // One GPIO API over libgpiod 1.6 (Debian 12) and 2.x (Debian 13), chosen by the installed <gpiod.h>.
        .target(name: "CGPIODShim", dependencies: ["CGPIOD"], linkerSettings: [.linkedLibrary("gpiod")]),
        .target(name: "TiltboardCore"),
        .target(name: "TiltboardDrivers", dependencies: ["TiltboardCore"]),
        .target(name: "TiltboardSimulator", dependencies: ["TiltboardDrivers", "TiltboardCore"]),
        .target(name: "TiltboardLinux", dependencies: ["TiltboardDrivers", "TiltboardCore", "CI2C", "CGPIODShim", "CLinuxSupport"]),
        .target(
            name: "Tiltboard",
            dependencies: ["TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux"]
        ),
        // What only the commands use: benchmarks, doctor, output writers, the monitor screen, and
        // the one table that words the library's errors. Kept out of the library products.
        .target(
            name: "TiltboardCommands",
            dependencies: ["Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux", "CAllocationCounter"]
        ),
        // `tiltboard serve`'s HTTP and WebSocket server: kept out of the library products.
        .target(
            name: "TiltboardServer",
            dependencies: ["TiltboardCommands", "Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardLinux", .product(name: "FlyingSocks", package: "FlyingFox")]
        ),
        .executableTarget(
            name: "TiltboardCLI",
            dependencies: [
                "TiltboardCommands", "Tiltboard", "TiltboardServer", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux", "CAllocationCounter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The README's library example: a program that needs only `import Tiltboard`.
        .executableTarget(name: "LibraryExample", dependencies: ["Tiltboard"], path: "Examples/LibraryExample"),
        // What several test targets share: the wait for something running in real time beside a
        // test, and an edge wait with a timeout over the one the loop uses. Not in any product.
        .target(name: "TiltboardTestSupport", dependencies: ["TiltboardDrivers", "TiltboardCore"], path: "Tests/TiltboardTestSupport"),
        .testTarget(name: "TiltboardCoreTests", dependencies: ["TiltboardCore", "TiltboardTestSupport"]),
        .testTarget(name: "TiltboardDriversTests", dependencies: ["TiltboardDrivers", "TiltboardCore", "TiltboardTestSupport"]),
        .testTarget(name: "TiltboardSimulatorTests", dependencies: ["TiltboardSimulator", "TiltboardDrivers", "TiltboardCore", "TiltboardTestSupport"]),
        .testTarget(name: "TiltboardLinuxTests", dependencies: ["TiltboardLinux", "TiltboardDrivers", "TiltboardCore", "CI2C", "TiltboardTestSupport"]),
        .testTarget(name: "TiltboardTests", dependencies: [
            "TiltboardCommands", "Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux", "CAllocationCounter",
            "TiltboardTestSupport",
        ]),
        .testTarget(name: "TiltboardServerTests", dependencies: [
            "TiltboardServer", "TiltboardCommands", "Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux", "CAllocationCounter",
            "TiltboardTestSupport",
        ]),
        .testTarget(name: "TiltboardCLITests", dependencies: [
            "TiltboardCLI", "TiltboardCommands", "TiltboardServer", "Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux", "CAllocationCounter",
            "TiltboardTestSupport",
        ]),
    ],
    swiftLanguageModes: [.v6]
)

import Foundation
import XCTest

/// Runs the built `tiltboard` executable and captures what it prints.
enum CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `tiltboard` executable: `TILTBOARD_BINARY`, else next to the test bundle (the
    /// products folder), else the package's `.build/debug`.
    static func binaryPath() throws -> String {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["TILTBOARD_BINARY"] { candidates.append(env) }
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle.appendingPathComponent("tiltboard").path)
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("tiltboard").path)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("tiltboard").path)
        }
        candidates.append(packageRoot + "/.build/debug/tiltboard")
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw XCTSkip("tiltboard executable not found (looked at \(candidates)); build it with `swift build --product tiltboard`")
    }

    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binaryPath())
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        // Output goes to files rather than pipes: nothing can stall on a full pipe, and no
        // reader threads are needed.
        let folder = NSTemporaryDirectory() + "tiltboard-cli-run-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outPath = folder + "/stdout", errPath = folder + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }
}

/// The package root, found from this file's location (Tests/TiltboardCLITests/…).
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A fresh folder removed when the test ends.
func makeScratchFolder(_ test: XCTestCase) throws -> String {
    let path = NSTemporaryDirectory() + "tiltboard-cli-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

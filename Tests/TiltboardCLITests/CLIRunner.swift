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
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting, so a full pipe cannot stall the child.
        let errData = LockedData()
        let errReader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errData.isSet { usleep(1000) }
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData.value, as: UTF8.self))
    }
}

/// Data handed from a reader thread.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var done = false
    func set(_ d: Data) { lock.lock(); data = d; done = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return done }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data }
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

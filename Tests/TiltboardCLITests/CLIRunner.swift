import Foundation
import XCTest
import TiltboardTestSupport

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
        #if canImport(Darwin)
        // Only Darwin runs tests inside a host process; on Linux the main bundle is the products
        // folder, and Foundation 6.0's `Bundle.allBundles` dereferences null there.
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("tiltboard").path)
        }
        #endif
        candidates.append(packageRoot + "/.build/debug/tiltboard")
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw XCTSkip("tiltboard executable not found (looked at \(candidates)); build it with `swift build --product tiltboard`")
    }

    /// The `tiltboard` executable as `folder/.bin/tiltboard`, for a test that runs it as another
    /// user (nobody, 65534): the checkout and the build in it may be closed to that user, as a
    /// clone in /root (mode 0700) is. A hard link when anyone may run the build, else a copy; it
    /// goes with the folder. (Not `folder/tiltboard`: that is the configuration folder of a test
    /// whose XDG_CONFIG_HOME is `folder`.)
    static func binary(stagedIn folder: String) throws -> String {
        let staged = folder + "/.bin/tiltboard"
        if FileManager.default.isExecutableFile(atPath: staged) { return staged }
        try FileManager.default.createDirectory(atPath: folder + "/.bin", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let built = try binaryPath()
        var info = stat()
        if stat(built, &info) == 0, info.st_mode & S_IXOTH != 0, link(built, staged) == 0 { return staged }
        try FileManager.default.copyItem(atPath: built, toPath: staged)
        XCTAssertEqual(chmod(staged, 0o755), 0)
        return staged
    }

    /// Runs to the end and returns what it printed. A simulated board runs on the virtual clock
    /// unless `clock` is `.system`: as fast as the work allows, with the same output every time.
    /// `stagedIn`: the executable staged in that folder (`binary(stagedIn:)`), which is also the
    /// working folder, for a run that becomes another user.
    static func run(_ arguments: [String], environment: [String: String] = [:], clock: TestClock = .virtual,
                    stagedIn folder: String? = nil) throws -> Result {
        let child = try ChildProcess(arguments, environment: environment, clock: clock, directory: folder,
                                     executable: try folder.map(binary(stagedIn:)))
        child.process.waitUntilExit()
        return Result(status: child.process.terminationStatus, stdout: child.stdout, stderr: child.stderr)
    }

    /// Runs `script` with /bin/sh in `folder`, `$TB` the tiltboard executable and HOME and
    /// XDG_CONFIG_HOME set to `folder`, for what needs a shell: redirections, another user
    /// (setpriv), a PATH.
    static func shell(_ script: String, in folder: String, environment: [String: String] = [:]) throws -> CLIRunner.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = ProcessInfo.processInfo.environment
            .merging(["TB": try CLIRunner.binaryPath(), "XDG_CONFIG_HOME": folder, "HOME": folder]) { $1 }
            .merging(environment) { $1 }
        let out = folder + "/sh.out", err = folder + "/sh.err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        return CLIRunner.Result(status: process.terminationStatus,
                                stdout: try String(contentsOfFile: out, encoding: .utf8),
                                stderr: try String(contentsOfFile: err, encoding: .utf8))
    }
}

/// The clock a `tiltboard` child runs a simulated board on.
enum TestClock {
    /// Real time: for a process watched while it runs (signals, a terminal).
    case system
    /// `TILTBOARD_CLOCK=virtual`: no sleeping, the same times on every run.
    case virtual

    /// The child's environment: the test runner's with the clock's setting, then `extra`.
    func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TILTBOARD_CLOCK"] = self == .virtual ? "virtual" : nil
        return environment.merging(extra) { $1 }
    }
}

/// A `tiltboard` child process with its output going to files rather than pipes: nothing can
/// stall on a full pipe, no reader threads are needed, and output can be read while it runs.
/// It runs in real time (`clock: .system`) unless told otherwise.
final class ChildProcess {
    let process = Process()
    private let folder: String

    /// `directory`: the child's working folder (where a crash's core file would go); the test's own by default.
    /// `executable`: the tiltboard to run; the build's by default.
    init(_ arguments: [String], environment: [String: String] = [:], clock: TestClock = .system, directory: String? = nil,
         executable: String? = nil) throws {
        folder = NSTemporaryDirectory() + "tiltboard-child-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: try executable ?? CLIRunner.binaryPath())
        process.arguments = arguments
        process.environment = clock.environment(environment)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        _ = FileManager.default.createFile(atPath: folder + "/stdout", contents: nil)
        _ = FileManager.default.createFile(atPath: folder + "/stderr", contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/stdout"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/stderr"))
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// True when the process ended within `timeout` seconds.
    func waitForExit(timeout: Double = 60) -> Bool {
        guard pollUntil(timeout: timeout, { !process.isRunning }) else { return false }
        process.waitUntilExit()
        return true
    }

    var stdout: String { (try? String(contentsOfFile: folder + "/stdout", encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? "" }
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

/// Asserts two lists of numbers are equal element by element within `accuracy`.
func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, _ message: String = "",
                    file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b) \(message)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b) \(message)", file: file, line: line) }
}

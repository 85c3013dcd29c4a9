import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `tiltboard gamepad` and `run --gamepad` where no usable /dev/uinput is: the one-line errors and
/// their exit codes. The device path comes from TILTBOARD_UINPUT, a file in the test's own folder.
final class GamepadCommandTests: XCTestCase {
    private func environment(_ folder: String, uinput: String) -> [String: String] {
        ["TILTBOARD_UINPUT": uinput, "TILTBOARD_CLOCK": "virtual", "HOME": folder, "XDG_CONFIG_HOME": folder]
    }

    private func assertOneErrorLine(_ stderr: String, contains parts: [String], file: StaticString = #filePath, line: UInt = #line) {
        let errors = stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: error: ") }
        XCTAssertEqual(errors.count, 1, stderr, file: file, line: line)
        for part in parts { XCTAssertTrue(errors.first?.contains(part) == true, "\(part) not in: \(stderr)", file: file, line: line) }
    }

    func testWithoutUinputTheCommandsAreUnavailableAndSayHowToLoadIt() throws {
        let folder = try makeScratchFolder(self)
        let missing = folder + "/uinput"
        for arguments in [["gamepad", "--duration", "1"], ["run", "--gamepad", "--duration", "1"]] {
            let r = try CLIRunner.run(arguments, environment: environment(folder, uinput: missing))
            XCTAssertEqual(r.status, 69, r.stderr)
            assertOneErrorLine(r.stderr, contains: ["\(missing) does not exist", "sudo modprobe uinput", "/etc/modules-load.d/uinput.conf"])
            XCTAssertEqual(r.stdout, "")
        }
    }

    func testWithoutPermissionItNamesTheUdevRuleAndTheGroup() throws {
        let folder = try makeScratchFolder(self)
        let node = folder + "/uinput"
        XCTAssertTrue(FileManager.default.createFile(atPath: node, contents: nil, attributes: [.posixPermissions: 0o600]))
        var arguments = ["gamepad", "--duration", "1"]
        let process = Process()
        if getuid() == 0 {
            // Root ignores file modes: run as nobody.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", try CLIRunner.binary(stagedIn: folder)] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
        } else {
            process.executableURL = URL(fileURLWithPath: try CLIRunner.binaryPath())
        }
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment(folder, uinput: node)) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 77, stderr)
        assertOneErrorLine(stderr, contains: ["no permission to open \(node)", "udev/60-tiltboard.rules", "usermod -aG uinput"])
    }

    func testANodeThatIsNotUinputIsAnIOError() throws {
        let folder = try makeScratchFolder(self)
        let node = folder + "/uinput"
        XCTAssertTrue(FileManager.default.createFile(atPath: node, contents: nil))
        let r = try CLIRunner.run(["gamepad", "--duration", "1"], environment: environment(folder, uinput: node))
        XCTAssertEqual(r.status, 74, r.stderr)
        assertOneErrorLine(r.stderr, contains: ["creating a gamepad on \(node)"])
    }

    func testStickSettingsAreValidated() throws {
        let folder = try makeScratchFolder(self)
        for (arguments, option) in [(["gamepad", "--full-scale", "0"], "--full-scale"),
                                    (["gamepad", "--dead-zone", "30"], "--dead-zone"),
                                    (["run", "--gamepad", "--full-scale", "91"], "--full-scale")] {
            let r = try CLIRunner.run(arguments, environment: environment(folder, uinput: folder + "/uinput"))
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains(option), r.stderr)
        }
    }
}

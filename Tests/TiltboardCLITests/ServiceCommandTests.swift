import Foundation
@testable import TiltboardCLI
import XCTest
import TiltboardTestSupport

/// What the systemd unit relies on: `haptics --off` as its stop step, the profile in the
/// service's state directory, and `--version`.
final class ServiceCommandTests: XCTestCase {
    func testHapticsOffReleasesTheMotorLineWithoutPlayingAnything() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let r = try CLIRunner.run(["haptics", "--off", "--board", board.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: motor off: simulated motor (simulated line 17) driven inactive and released\n")
        XCTAssertEqual(r.stdout, "")
        // Never driven active: the motor log holds no change at all.
        XCTAssertEqual(try MotorLogFile.read(board.log).map(\.level), [])
    }

    func testHapticsOffSaysWhenAnotherProcessDrivesTheLine() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let player = try ChildProcess(["haptics", "--board", board.path, "--pattern", "60000,1"])
        // Wait (on a condition, not a time) until the player has the motor on.
        pollUntil { (try? MotorLogFile.read(board.log).last?.level) == 1 || !player.process.isRunning }
        XCTAssertEqual(try MotorLogFile.read(board.log).last?.level, 1, player.stderr)
        let r = try CLIRunner.run(["haptics", "--off", "--board", board.path])
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: error: the simulated motor line is in use by another process (it holds \(board.log)); stop that program first\n")
        // Nothing was driven or released from here: the player's motor is still on.
        XCTAssertEqual(try MotorLogFile.read(board.log).last?.level, 1)
        kill(player.process.processIdentifier, SIGTERM)
        XCTAssertTrue(player.waitForExit())
        XCTAssertEqual(try MotorLogFile.read(board.log).last?.level, 0)
        // Free again: --off succeeds.
        XCTAssertEqual(try CLIRunner.run(["haptics", "--off", "--board", board.path]).status, 0)
    }

    func testHapticsOffOnABoardWithoutAMotorHasNothingToDo() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/no-motor.json"
        try #"{"name": "no motor", "sensor": {"chip": "adxl345", "bus": "simulated"}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLIRunner.run(["haptics", "--off", "--board", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: board no motor has no motor: nothing to switch off\n")
        // Without --off the same board is still an error.
        XCTAssertEqual(try CLIRunner.run(["haptics", "--board", path]).status, 69)
    }

    func testHapticsOffTakesNoEffect() throws {
        for extra in [["--effect", "tick"], ["--pattern", "100"]] {
            let r = try CLIRunner.run(["haptics", "--off"] + extra)
            XCTAssertEqual(r.status, 64, "\(extra): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--off plays nothing: drop --effect and --pattern"), r.stderr)
        }
    }

    func testTheServicesStateDirectoryHoldsTheProfile() throws {
        let folder = try makeScratchFolder(self)
        let environment = ["STATE_DIRECTORY": folder + "/state", "XDG_CONFIG_HOME": folder + "/config", "HOME": folder]
        let r = try CLIRunner.run(["profile", "show"], environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "no profile at \(folder)/state/profiles/simulated-mpu-6050-board.json — run `tiltboard calibrate`\n")
    }

    func testVersionPrintsTheOneVersionString() throws {
        let r = try CLIRunner.run(["--version"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, TiltboardVersion.string + "\n")
        XCTAssertNotNil(TiltboardVersion.string.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression))
    }
}

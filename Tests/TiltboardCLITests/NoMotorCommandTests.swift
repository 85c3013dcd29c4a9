import Foundation
import XCTest
import TiltboardLinux
@testable import TiltboardCLI
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// A board file without a motor (`Boards/simulated-no-motor.json`) through every command: each
/// works, and each says plainly that there is no motor rather than pretending to buzz.
final class NoMotorCommandTests: XCTestCase {
    private let shipped = packageRoot + "/Boards/simulated-no-motor.json"

    private func environment(_ folder: String) -> [String: String] { ["HOME": folder, "XDG_CONFIG_HOME": folder] }

    /// The shipped board with its motion script replaced (a still board for calibrate).
    private func board(script: String, in folder: String) throws -> String {
        let text = try String(contentsOfFile: shipped, encoding: .utf8).replacingOccurrences(of: #""script": "demo""#, with: #""script": "\#(script)""#)
        XCTAssertTrue(text.contains(#""script": "\#(script)""#))
        let path = folder + "/no-motor.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testTheShippedFileHasNoMotor() throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: shipped))) as? [String: Any]
        XCTAssertNil(object?["motor"])
        XCTAssertEqual((object?["sensor"] as? [String: Any])?["bus"] as? String, "simulated")
    }

    func testRunShowsShakesButSaysTheyAreNotFelt() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["run", "--board", shipped, "--json", "--duration", "13"], environment: environment(folder))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: the board has no motor: shakes are shown but not felt"), r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 1200)
        XCTAssertTrue(lines.contains { $0.contains(#""shake":true"#) }, "the demo's shake is shown")
        XCTAssertFalse(lines.contains { $0.contains(#""haptic":true"#) }, "and never felt")
    }

    func testTheServicesCommandsRunAndStop() throws {
        // What the packaged unit runs: `run --board …`, then `haptics --off --board …` after it stops.
        let folder = try makeScratchFolder(self)
        let run = try CLIRunner.run(["run", "--board", shipped, "--duration", "2"], environment: environment(folder))
        XCTAssertEqual(run.status, 0, run.stderr)
        let off = try CLIRunner.run(["haptics", "--off", "--board", shipped], environment: environment(folder))
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertEqual(off.stderr, "tiltboard: board simulated board without a motor has no motor: nothing to switch off\n")
    }

    func testShakePrintsShakesAndHapticsIsUnavailable() throws {
        let folder = try makeScratchFolder(self)
        let shake = try CLIRunner.run(["shake", "--board", shipped, "--duration", "13"], environment: environment(folder))
        XCTAssertEqual(shake.status, 0, shake.stderr)
        XCTAssertTrue(shake.stderr.contains("has no motor: shakes are only printed"), shake.stderr)
        XCTAssertFalse(shake.stdout.isEmpty, "the demo's shake is printed")
        let haptics = try CLIRunner.run(["haptics", "--board", shipped], environment: environment(folder))
        XCTAssertEqual(haptics.status, 69, haptics.stderr)
        XCTAssertTrue(haptics.stderr.contains("has no motor: add a \"motor\" section"), haptics.stderr)
    }

    func testCalibrateBothKindsAndRead() throws {
        let folder = try makeScratchFolder(self)
        let still = try board(script: "flat", in: folder)
        let profile = folder + "/p.json"
        let neutral = try CLIRunner.run(["calibrate", "--board", still, "--profile", profile, "--yes"], environment: environment(folder))
        XCTAssertEqual(neutral.status, 0, neutral.stderr)
        let sensor = try CLIRunner.run(["calibrate", "--sensor", "--board", try board(script: "six-faces", in: folder), "--profile", profile, "--yes"],
                                       environment: environment(folder))
        XCTAssertEqual(sensor.status, 0, sensor.stderr)
        let stored = try String(contentsOfFile: profile, encoding: .utf8)
        XCTAssertTrue(stored.contains("\"neutral\"") && stored.contains("\"sensor\""), stored)
        let read = try CLIRunner.run(["read", "--board", still, "--profile", profile, "--count", "5", "--json"], environment: environment(folder))
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout.split(separator: "\n").count, 5)
    }

    func testDoctorSaysThereIsNoMotorToCheck() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["doctor", "--board", shipped], environment: environment(folder))
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("\n· motor: none in the board file, so no motor to check (shakes are only shown, rumble is not offered)\n"),
                      r.stdout)
        // The motor-noise check has nothing to buzz, so it needs no consent and passes.
        let noise = try CLIRunner.run(["doctor", "--board", shipped, "--motor-noise", "--json"], environment: environment(folder))
        XCTAssertEqual(noise.status, 0, noise.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(noise.stdout.utf8)) as? [String: Any])
        let checks = try XCTUnwrap(report["checks"] as? [[String: Any]])
        XCTAssertEqual(checks.map { $0["id"] as? String }, ["motor-noise"])
        XCTAssertEqual(checks.first?["status"] as? String, "skip")
    }

    func testTheGamepadOffersNoRumbleWithoutAMotor() {
        XCTAssertEqual(GamepadLink.effectSlots(motor: false), 0)
        XCTAssertEqual(GamepadLink.effectSlots(motor: true), 16)
    }

    func testServeReportsWhyTheMotorIsUnavailable() throws {
        let folder = try makeScratchFolder(self)
        let child = try ChildProcess(["serve", "--board", shipped, "--port", "0"], environment: environment(folder))
        pollUntil { child.stdout.contains("\n") || !child.process.isRunning }
        let url = try XCTUnwrap(child.stdout.split(separator: "\n").first, child.stderr)
        let port = try XCTUnwrap(UInt16(url.split(separator: ":").last?.split(separator: "/").first ?? ""), String(url))

        let state = try httpResponse(port: port, "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(state.status, 200)
        let board = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(state.body.utf8)) as? [String: Any])?["board"] as? [String: Any])
        XCTAssertEqual(board["motor"] as? Bool, false)
        XCTAssertEqual(board["motorUnavailable"] as? String, "the board has no motor (add a \"motor\" section to its board file)")
        let body = #"{"effect":"buzz"}"#
        let buzz = try httpResponse(port: port, "POST /api/haptics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        XCTAssertEqual(buzz.status, 409)
        XCTAssertTrue(buzz.body.contains("the board has no motor"), buzz.body)

        kill(child.process.processIdentifier, SIGTERM)
        XCTAssertTrue(child.waitForExit())
        XCTAssertEqual(child.process.terminationStatus, 0, child.stderr)
    }

    func testMonitorShowsNoMotorAndQuits() throws {
        let folder = try makeScratchFolder(self)
        let run = try MonitorRun(arguments: ["monitor", "--board", shipped], home: folder)
        defer { run.kill() }
        try run.waitForScreen(containing: "no motor")
        try run.pty.send(Array("q".utf8))
        XCTAssertEqual(try run.waitForExit(), 0, run.screen)
    }
}

import Foundation
import XCTest
import TiltboardLinux
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// `tiltboard doctor --motor-noise` by its output, exit code and the motor line: it finds the
/// simulator's injected faults with a fix for each, passes a clean board, and never buzzes
/// without the player's consent.
final class MotorNoiseCommandTests: XCTestCase {
    /// A simulated board whose motor line is logged to `motor.log` in `folder`.
    private func board(_ folder: String, noise: String?) throws -> (board: String, log: String) {
        let log = folder + "/motor.log"
        let path = folder + "/board.json"
        try """
        {"name": "noise test board", "sensor": {"chip": "mpu6050", "bus": "simulated"},
         "motor": {"chip": "simulated", "line": 17},
         "simulation": {"script": "flat", "seed": 9, "motorLog": "\(log)"\(noise.map { #", "motorNoise": \#($0)"# } ?? "")}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, log)
    }

    private func environment(_ folder: String) -> [String: String] { ["HOME": folder, "XDG_CONFIG_HOME": folder] }

    /// The motor log's lines: `<seconds> <0|1>`; none when the line was never driven.
    private func switches(_ log: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
    }

    func testTheDemoBoardsFaultsAreFoundEachWithItsFix() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["doctor", "--board", packageRoot + "/Boards/simulated-motor-noise.json", "--motor-noise", "--yes"],
                                  environment: environment(folder))
        XCTAssertEqual(r.status, 69, r.stdout + r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 7, r.stdout)
        XCTAssertTrue(lines[0].hasPrefix("✓ motor noise: "), lines[0])
        XCTAssertTrue(lines[0].hasSuffix(" at 1000 Hz over 5.5 s, the motor on for 1.50 s in 6 pulses"), lines[0])
        XCTAssertEqual(lines[1], "✓ motor off: no bus error")
        XCTAssertTrue(lines[2].hasPrefix("✗ motor switching: "), lines[2])
        XCTAssertTrue(lines[2].hasSuffix(" — fix: put a flyback diode across the motor (e.g. 1N4148 or 1N5819, cathode to the motor's + side) and drive it through a transistor, never from the GPIO pin itself"), lines[2])
        XCTAssertEqual(lines[3], "✓ motor running: no bus error while it ran")
        XCTAssertTrue(lines[4].hasPrefix("✗ outages: the sensor was lost 6 times"), lines[4])
        XCTAssertTrue(lines[4].contains("fix: give the motor a separate supply (grounds joined), or put a capacitor"), lines[4])
        XCTAssertTrue(lines[5].hasPrefix("✗ sample jumps: "), lines[5])
        XCTAssertTrue(lines[5].contains("fix: use a shorter cable to the sensor, twist SDA and SCL"), lines[5])
        XCTAssertEqual(lines[6], "doctor: 3 of 6 checks failed")
        XCTAssertTrue(r.stderr.contains("the motor-noise check pulses the motor 6 times (0.25 s each)"), r.stderr)
    }

    func testEachFaultNamesItsOwnFixInJSON() throws {
        let fixes = [
            "motor-noise-idle": (#"{"idleErrorRate": 0.01}"#, "check the pull-ups"),
            "motor-noise-switching": (#"{"switchMs": 3}"#, "flyback diode"),
            "motor-noise-running": (#"{"errorRate": 0.05}"#, "lower the bus speed: add dtparam=i2c_arm_baudrate=50000"),
            "motor-noise-outages": (#"{"brownOutMs": 50}"#, "separate supply"),
            "motor-noise-jumps": (#"{"glitchRate": 0.02}"#, "shorter cable"),
        ]
        for (id, (noise, fix)) in fixes.sorted(by: { $0.key < $1.key }) {
            let folder = try makeScratchFolder(self)
            let (path, _) = try board(folder, noise: noise)
            let r = try CLIRunner.run(["doctor", "--board", path, "--motor-noise", "--yes", "--json"], environment: environment(folder))
            XCTAssertEqual(r.status, 69, "\(noise): \(r.stderr)")
            let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(report["exitCode"] as? Int, 69)
            let failed = try XCTUnwrap(report["checks"] as? [[String: Any]]).filter { $0["status"] as? String == "fail" }
            XCTAssertEqual(failed.map { $0["id"] as? String }, [id], noise)
            XCTAssertTrue((failed.first?["fix"] as? String)?.contains(fix) == true, "\(noise): \(failed)")
            XCTAssertEqual(failed.first?["cause"] as? String, "unavailable")
        }
    }

    func testACleanBoardPassesAndTheMotorEndsOff() throws {
        let folder = try makeScratchFolder(self)
        let (path, log) = try board(folder, noise: nil)
        let r = try CLIRunner.run(["doctor", "--board", path, "--motor-noise", "--yes"], environment: environment(folder))
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("doctor: no problems found in 6 checks\n"), r.stdout)
        XCTAssertFalse(r.stdout.contains("✗"), r.stdout)
        XCTAssertEqual(switches(log), Array(repeating: ["1", "0"], count: 6).flatMap { $0 }, "six pulses, off at the end")
    }

    func testWithoutATerminalOrYesItRefusesAndNeverBuzzes() throws {
        let folder = try makeScratchFolder(self)
        let (path, log) = try board(folder, noise: nil)
        let r = try CLIRunner.shell("\"$TB\" doctor --board \(path) --motor-noise < /dev/null", in: folder, environment: ["TILTBOARD_CLOCK": "virtual"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: error: doctor --motor-noise buzzes the motor for about 5.5 s: run it at a terminal to confirm, or add --yes to start without asking\n")
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(switches(log), [], "the motor line was never driven")
        let yesAlone = try CLIRunner.run(["doctor", "--board", path, "--yes"], environment: environment(folder))
        XCTAssertEqual(yesAlone.status, 64, yesAlone.stderr)
        XCTAssertTrue(yesAlone.stderr.contains("--yes only goes with --motor-noise"), yesAlone.stderr)
    }

    func testAtATerminalItAsksAndOnlyYesStartsIt() throws {
        for (answer, runs) in [("n\n", false), ("\n", false), ("y\n", true)] {
            let folder = try makeScratchFolder(self)
            let (path, log) = try board(folder, noise: #"{"switchMs": 3}"#)
            let run = try MonitorRun(arguments: ["doctor", "--board", path, "--motor-noise"], home: folder)
            defer { run.kill() }
            try run.waitForScreen(containing: "start it? [y/N] ")
            XCTAssertEqual(switches(log), [], "nothing buzzes before the answer")
            try run.pty.send(Array(answer.utf8))
            let status = try run.waitForExit()
            if runs {
                XCTAssertEqual(status, 69, run.screen)
                XCTAssertTrue(run.screen.contains("✗ motor switching: "), run.screen)
                XCTAssertEqual(switches(log).count, 12)
            } else {
                XCTAssertEqual(status, 0, run.screen)
                XCTAssertTrue(run.screen.contains("motor-noise check cancelled: the motor was not run"), run.screen)
                XCTAssertEqual(switches(log), [], "\(answer.debugDescription) cancels")
            }
        }
    }

    func testCtrlCDuringThePulsesStopsWithTheMotorOff() throws {
        let folder = try makeScratchFolder(self)
        let (path, log) = try board(folder, noise: nil)
        // Real time: the signal arrives while the check runs.
        let child = try ChildProcess(["doctor", "--board", path, "--motor-noise", "--yes"], environment: environment(folder))
        pollUntil { switches(log).contains("1") || !child.process.isRunning }
        XCTAssertTrue(switches(log).contains("1"), "the motor was pulsed: \(child.stderr)")
        kill(child.process.processIdentifier, SIGINT)
        XCTAssertTrue(child.waitForExit())
        XCTAssertEqual(child.process.terminationStatus, 0, child.stdout + child.stderr)
        XCTAssertTrue(child.stdout.contains("· motor noise: stopped after "), child.stdout)
        XCTAssertFalse(child.stdout.contains("✗"), child.stdout)
        XCTAssertEqual(switches(log).last, "0", "the motor ends off")
    }
}

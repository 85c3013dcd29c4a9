import Foundation
import Tiltboard
@testable import TiltboardCLI
import XCTest
import TiltboardCore
#if canImport(Glibc)
import Glibc
#endif

/// `tiltboard shake` on simulated boards: events printed, the motor buzzed, flags over the board file.
final class ShakeCommandTests: XCTestCase {
    private func environment() throws -> [String: String] {
        ["XDG_CONFIG_HOME": try makeScratchFolder(self)]
    }

    func testTheDefaultBoardReportsOneShakeAndBuzzes() throws {
        let r = try CLIRunner.run(["shake", "--duration", "3.2"], environment: try environment())
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, r.stdout)
        let pattern = #"^shake at \d+\.\d\d s, peak \d+\.\d g$"#
        XCTAssertNotNil(lines.first?.range(of: pattern, options: .regularExpression), r.stdout)
        XCTAssertNotNil(lines.last?.range(of: #"^shake ended at \d+\.\d\d s after \d+\.\d\d s, peak \d+\.\d g$"#, options: .regularExpression), r.stdout)
        XCTAssertTrue(r.stderr.contains("built-in simulated MPU-6050 board (script \"shake\")"), r.stderr)
        // The motor starts on the sample that detects the shake and plays pulse:150.
        let start = try XCTUnwrap(lines.first.flatMap { Double($0.dropFirst("shake at ".count).prefix { $0 != " " }) }, r.stdout)
        let motor = try motorTimes(r.stderr)
        XCTAssertEqual(motor.count, 2, r.stderr)
        XCTAssertEqual(motor.first ?? 0, start, accuracy: 0.005, r.stderr)
        XCTAssertEqual((motor.last ?? 0) - (motor.first ?? 0), 0.150, accuracy: 1e-9, r.stderr)
        // Every tick of 3.2 s at 100 Hz, counting both ends.
        XCTAssertTrue(r.stderr.contains("tiltboard: 1 shake in 321 samples; loop lateness p99 0.00 ms, 0 missed ticks"), r.stderr)
        XCTAssertTrue(r.stderr.contains(" reconfigurations 0; cap trips 0\n"), r.stderr)
        // The same run again prints the same, to the character.
        let again = try CLIRunner.run(["shake", "--duration", "3.2"], environment: try environment())
        XCTAssertEqual(again.stdout, r.stdout)
        XCTAssertEqual(again.stderr, r.stderr)
    }

    func testExplainSaysWhyOnStderrAndLeavesStdoutAlone() throws {
        let plain = try CLIRunner.run(["shake", "--duration", "3.2", "--json"], environment: try environment())
        let explained = try CLIRunner.run(["shake", "--duration", "3.2", "--json", "--explain"], environment: try environment())
        XCTAssertEqual(explained.status, 0, explained.stderr)
        XCTAssertEqual(explained.stdout, plain.stdout, "the event stream is the same with --explain")
        let lines = explained.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("explain: ") }
        // The built-in 4 Hz, 2 g shake: three half-cycles, alternating along x, then taken.
        let halfCycles = lines.filter { $0.contains(" half-cycle ") && $0.contains(" toward ") }
        XCTAssertEqual(halfCycles.count, 3, explained.stderr)
        XCTAssertTrue(halfCycles.first?.contains("half-cycle 1: ") == true && halfCycles.first?.contains("starting a run; gravity (") == true, explained.stderr)
        XCTAssertTrue(halfCycles.last?.contains("half-cycle 3: ") == true && halfCycles.last?.contains(" ms after the last; gravity (") == true, explained.stderr)
        let taken = try XCTUnwrap(lines.first { $0.contains("shake taken on half-cycle 3: sideways ") }, explained.stderr)
        // The line that takes the shake carries the sample time the event reports.
        let event = try XCTUnwrap(explained.stdout.split(separator: "\n").first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let t = try XCTUnwrap(event["t"] as? Double)
        XCTAssertTrue(taken.hasPrefix("explain: \(String(format: "%.3f", t)) s "), "\(taken) vs \(t)")
        XCTAssertFalse(plain.stderr.contains("explain:"), plain.stderr)
    }

    /// The times of `motor on  at 0.910 s` / `motor off at 1.060 s` notes, in order.
    private func motorTimes(_ stderr: String) throws -> [Double] {
        try stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: motor o") }.map {
            try XCTUnwrap(Double($0.split(separator: " ")[4]), String($0))
        }
    }

    /// The shake effect of `shake` and `run` goes through the on-time cap, on the virtual clock:
    /// an alarm (200 ms on, 200 ms off) allowed 0.5 s per stretch is cut 100 ms into its third
    /// pulse, rests 0.25 s (into its next gap) and goes on with a new stretch.
    func testTheShakeEffectTripsTheCapInShakeAndRun() throws {
        for command in ["shake", "run"] {
            let folder = try makeScratchFolder(self)
            let board = try SimBoardFile.write(in: folder, script: "shake",
                                               motorExtras: #", "shakeEffect": "alarm", "maxOnSeconds": 0.5, "minRestSeconds": 0.25"#)
            let r = try CLIRunner.run([command, "--board", board.path, "--duration", "3.5"], environment: try environment())
            XCTAssertEqual(r.status, 0, "\(command): \(r.stderr)")
            XCTAssertEqual(try MotorLogFile.relative(board.log),
                           ["0 1", "200 0", "400 1", "600 0", "800 1", "900 0", "1200 1", "1400 0", "1600 1", "1800 0"], command)
            let warning = "tiltboard: warning: the motor was switched off after 0.5 s on without a break (motor.maxOnMs)\n"
            XCTAssertEqual(r.stderr.components(separatedBy: warning).count - 1, 1, "\(command): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("; cap trips 1\n"), "\(command): \(r.stderr)")
        }
    }

    func testJSONEventsAndTheFlagOverridesTheBoardsThreshold() throws {
        let folder = try makeScratchFolder(self)
        // The board file alone is deaf to the script's 2 g shake; the flag restores the default.
        let board = try SimBoardFile.write(in: folder, script: "shake", shake: #"{"thresholdG": 3}"#)
        let r = try CLIRunner.run(["shake", "--board", board.path, "--json", "--duration", "3.2", "--threshold", "0.8"],
                                  environment: try environment())
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try r.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(events.count, 2, r.stdout)
        guard events.count == 2 else { return }
        XCTAssertEqual(events[0]["event"] as? String, "start")
        XCTAssertEqual(Set(events[0].keys), ["event", "t", "peakG"])
        XCTAssertEqual(events[1]["event"] as? String, "end")
        XCTAssertEqual(Set(events[1].keys), ["event", "t", "durationS", "peakG"])
        let start = try XCTUnwrap(events[0]["t"] as? Double), end = try XCTUnwrap(events[1]["t"] as? Double)
        // The script shakes (4 Hz, 2 g) from 1 s to 2 s of its own time; the loop starts at most
        // 0.2 s into it (the chip's configuration waits), and the detector needs three half-cycles
        // (266 ms).
        XCTAssertGreaterThanOrEqual(start, 1.0)
        XCTAssertLessThan(start, 1.3)
        XCTAssertGreaterThan(end, start + 0.8)
        XCTAssertEqual(try XCTUnwrap(events[0]["peakG"] as? Double), 2, accuracy: 0.4)
        // The duration counts from the first shaking sample, two half-cycles (250 ms) before the start
        // was reported.
        XCTAssertEqual(try XCTUnwrap(events[1]["durationS"] as? Double), end - start + 0.25, accuracy: 0.03)
        // The board's default effect, pulse:150, was played once, from the detecting sample.
        let log = try MotorLogFile.read(board.log)
        XCTAssertEqual(log.map(\.level), [1, 0])
        XCTAssertEqual(log.map { $0.t - log[0].t }, [0, 0.150], accuracy: 1e-6)
    }

    func testMuteAndADeafThresholdStayQuiet() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder, script: "shake")
        let r = try CLIRunner.run(["shake", "--board", board.path, "--duration", "3.2", "--threshold", "3", "--mute"],
                                  environment: try environment())
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("tiltboard: 0 shakes in "), r.stderr)
        XCTAssertEqual(try MotorLogFile.read(board.log).count, 0)
    }

    /// In real time: asserts only the order of events, the exit status and the motor off at the end.
    func testSIGTERMMidBuzzLeavesTheMotorOffAndExitsZero() throws {
        let folder = try makeScratchFolder(self)
        let script = folder + "/long-shake.json"
        try #"{"segments": [{"hold": {"seconds": 0.3}}, {"shake": {"axis": [1, 0, 0], "frequencyHz": 4, "peakG": 2, "seconds": 30}}]}"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        let board = try SimBoardFile.write(in: folder, script: script, motorExtras: #", "shakeEffect": "pulse:1500""#)
        let child = try ChildProcess(["shake", "--board", board.path], environment: try environment())
        XCTAssertTrue(MotorLogFile.waitForLevel(1, in: board.log), "the motor never went on: \(child.stderr)")
        kill(child.process.processIdentifier, SIGTERM)
        XCTAssertTrue(child.waitForExit(), "still running 60 s after SIGTERM")
        XCTAssertEqual(child.process.terminationReason, .exit)
        XCTAssertEqual(child.process.terminationStatus, 0, child.stderr)
        XCTAssertEqual(try MotorLogFile.read(board.log).map(\.level), [1, 0])
        XCTAssertTrue(child.stdout.hasPrefix("shake at "), child.stdout)
        XCTAssertTrue(child.stderr.contains("stopped by signal \(SIGTERM); motor off"), child.stderr)
    }

    func testFlagsAreLaidOverTheBoardsShakeSection() throws {
        let command = try ShakeCommand.parse(["--threshold", "1.2", "--cooldown", "900", "--min-reversals", "2"])
        let board = BoardDescription.ShakeSection(thresholdG: 3, minFraction: 0.7, cooldownMs: 100)
        XCTAssertEqual(command.shakeSection(over: board),
                       BoardDescription.ShakeSection(thresholdG: 1.2, minFraction: 0.7, minReversals: 2, cooldownMs: 900))
        XCTAssertEqual(try ShakeCommand.parse([]).shakeSection(over: board), board)
        for bad in [["--threshold", "0"], ["--min-fraction", "2"], ["--cooldown", "-1"], ["--duration", "0"], ["--min-duration", "45"],
                    ["--min-reversals", "0"], ["--min-reversals", "21"]] {
            XCTAssertThrowsError(try ShakeCommand.parse(bad), "\(bad)")
        }
        XCTAssertThrowsError(try ShakeCommand.parse(["--min-duration", "45"])) { error in
            XCTAssertTrue(ShakeCommand.message(for: error).contains("--min-duration no longer applies"), "\(error)")
        }
    }

    func testEventTextIsTheDocumentedForm() {
        XCTAssertEqual(ShakeEventPrinter.text(ShakeEvent(phase: .started, t: 1.024, peakG: 2.14, startT: 0.95)),
                       "shake at 1.02 s, peak 2.1 g\n")
        XCTAssertEqual(ShakeEventPrinter.text(ShakeEvent(phase: .ended, t: 2.31, peakG: 2.6, startT: 1.02)),
                       "shake ended at 2.31 s after 1.29 s, peak 2.6 g\n")
    }
}

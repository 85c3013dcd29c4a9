import Foundation
@testable import TiltboardCLI
import XCTest
import TiltboardTestSupport

/// `--wake-on-motion` on `shake` and `run`, on the shipped simulated wake board.
final class WakeOnMotionCommandTests: XCTestCase {
    private let board = packageRoot + "/Boards/simulated-wake.json"

    private func environment() throws -> [String: String] {
        ["XDG_CONFIG_HOME": try makeScratchFolder(self)]
    }

    func testShakeSleepsWhileStillWakesOnTheShakeAndReportsIt() throws {
        // The board's script: flat 4 s, a 2 g shake for 1 s, flat. The loop starts about 0.2 s
        // into it (the chip's configuration waits), so the shake begins near 3.8 s of loop time.
        let r = try CLIRunner.run(["shake", "--wake-on-motion", "--board", board, "--duration", "5.6", "--mute"],
                                  environment: try environment())
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, r.stdout)
        let start = try XCTUnwrap(lines.first.flatMap { Double($0.dropFirst("shake at ".count).prefix { $0 != " " }) },
                                  r.stdout)
        XCTAssertGreaterThan(start, 3.5, r.stdout)
        XCTAssertLessThan(start, 4.3, r.stdout)
        let notes = r.stderr.split(separator: "\n").map(String.init)
        // Still from the start: asleep after exactly the idle time.
        XCTAssertEqual(notes.filter { $0.contains("sleeping at") }, ["tiltboard: still for 2.0 s: sleeping at 2.00 s until motion"], r.stderr)
        let woke = notes.filter { $0.range(of: #"^tiltboard: woke on motion at \d+\.\d\d s after \d+\.\d\d s asleep$"#, options: .regularExpression) != nil }
        XCTAssertEqual(woke.count, 1, r.stderr)
        let numbers = woke.first.map { $0.split(separator: " ").compactMap { Double($0) } } ?? []
        XCTAssertEqual(numbers.count, 2, r.stderr)
        if numbers.count == 2 {
            // Asleep from 2.00 s until the wake; the shake detected on its third half-cycle, 266 ms in.
            XCTAssertEqual(numbers[0], 2 + numbers[1], accuracy: 0.011, r.stderr)
            XCTAssertGreaterThanOrEqual(start, numbers[0], r.stderr)
            XCTAssertLessThan(start, numbers[0] + 0.3, r.stderr)
        }
        XCTAssertNotNil(notes.last { $0.hasPrefix("tiltboard: wake on motion: 1 sleep, 1 wakeup, ") && $0.hasSuffix(" loop ticks skipped") },
                        r.stderr)
    }

    func testABoardWithoutAnInterruptLineIsRefused() throws {
        let r = try CLIRunner.run(["shake", "--wake-on-motion", "--duration", "1"], environment: try environment())
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains(#"tiltboard: error: board file built-in: interrupt: missing: waking on motion needs the sensor's INT pin wired to a GPIO input; add "interrupt": {"chip": …, "line": …}"#),
                      r.stderr)
        XCTAssertEqual(r.stdout, "")
    }

    func testWakeSettingsWithoutTheFlagAreAUsageError() throws {
        let r = try CLIRunner.run(["run", "--idle", "1", "--duration", "1"], environment: try environment())
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--idle and --wake-threshold only apply with --wake-on-motion"), r.stderr)
    }

    func testRunWakesOnMotionToo() throws {
        let r = try CLIRunner.run(["run", "--wake-on-motion", "--idle", "1", "--board", board, "--duration", "4.5",
                                   "--json", "--output-rate", "5"], environment: try environment())
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: still for 1.0 s: sleeping at 1.00 s until motion\n"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: woke on motion at "), r.stderr)
        // JSON lines only while awake: none between falling asleep (1 s) and the shake (about 3.8 s).
        let times = try r.stdout.split(separator: "\n").map {
            try XCTUnwrap((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["t"] as? Double)
        }
        XCTAssertFalse(times.contains { $0 > 1.1 && $0 < 3.5 }, "\(times)")
        XCTAssertTrue(times.contains { $0 > 3.8 }, "\(times)")
    }

    /// A board still throughout: the loop sleeps on the pin and stays asleep.
    private func stillBoard() throws -> String {
        let path = try makeScratchFolder(self) + "/still-wake.json"
        try #"""
        {"name": "still wake board", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "interrupt": {"chip": "simulated", "line": 4}, "simulation": {"script": "flat", "noise": true, "seed": 5}}
        """#.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testASignalWakesTheSleepingLoopOfEveryCommandThatSleeps() throws {
        // Asleep on the pin with no motion to come and no duration: only the signal, through
        // the loop's stop, ends the wait (nothing looks at the signal flag while asleep).
        let board = try stillBoard()
        for (arguments, signal) in [(["shake", "--mute"], SIGINT), (["run"], SIGTERM)] {
            let child = try ChildProcess(arguments + ["--wake-on-motion", "--idle", "0.5", "--board", board],
                                         environment: try environment())
            pollUntil { child.stderr.contains("until motion") || !child.process.isRunning }
            // In real time: the sleep starts 0.5 s in, give or take the machine's scheduling.
            XCTAssertTrue(child.stderr.contains("tiltboard: still for 0.5 s: sleeping at "), "\(arguments): \(child.stderr)")
            kill(child.process.processIdentifier, signal)
            XCTAssertTrue(child.waitForExit(timeout: 30), "\(arguments): still asleep 30 s after the signal")
            XCTAssertEqual(child.process.terminationReason, .exit, "\(arguments)")
            XCTAssertEqual(child.process.terminationStatus, 0, "\(arguments): \(child.stderr)")
            XCTAssertTrue(child.stderr.contains("tiltboard: wake on motion: 1 sleep, 0 wakeups, "), "\(arguments): \(child.stderr)")
        }
    }
}

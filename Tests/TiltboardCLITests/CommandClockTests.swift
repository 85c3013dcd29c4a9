import Foundation
import XCTest

/// `TILTBOARD_CLOCK=virtual` (what `CLIRunner.run` sets): simulated boards on a virtual clock, the same output every run.
final class CommandClockTests: XCTestCase {
    private func environment() throws -> [String: String] {
        ["XDG_CONFIG_HOME": try makeScratchFolder(self)]
    }

    func testVirtualTimeGivesTheSameSamplesAtExactTimesOnEveryRun() throws {
        let first = try CLIRunner.run(["read", "--count", "5", "--rate", "50", "--json"], environment: try environment())
        XCTAssertEqual(first.status, 0, first.stderr)
        let times = try first.stdout.split(separator: "\n").map {
            try XCTUnwrap((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["t"] as? Double)
        }
        XCTAssertEqual(times, [0, 0.02, 0.04, 0.06, 0.08])
        let second = try CLIRunner.run(["read", "--count", "5", "--rate", "50", "--json"], environment: try environment())
        XCTAssertEqual(second.stdout, first.stdout)
    }

    func testARealBoardIgnoresTheVirtualClock() throws {
        let folder = try makeScratchFolder(self)
        let board = folder + "/real.json"
        try #"{"name": "far board", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-9", "address": "0x68"}}"#
            .write(toFile: board, atomically: true, encoding: .utf8)
        for command in [["read"], ["run", "--duration", "1"], ["calibrate", "--yes"], ["shake", "--duration", "1"]] {
            let r = try CLIRunner.run(command + ["--board", board], environment: try environment())
            // The real bus was tried (and is missing here), not a simulator.
            XCTAssertEqual(r.status, 69, "\(command): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("tiltboard: error: ") && r.stderr.contains("/dev/i2c-9"), "\(command): \(r.stderr)")
        }
    }

    func testAnUnknownClockIsAUsageError() throws {
        let r = try CLIRunner.run(["read", "--count", "1"], environment: try environment().merging(["TILTBOARD_CLOCK": "fast"]) { $1 })
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains(#"tiltboard: error: TILTBOARD_CLOCK must be "virtual" or unset, got "fast""#), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }
}

import Foundation
import Tiltboard
import TiltboardCore
import TiltboardSimulator
import XCTest

/// Neutral pose and sensor calibration captured in either order, and captures across an outage,
/// on simulated boards on the virtual clock.
final class ProfileConsistencyTests: XCTestCase {
    private let environment = ["TILTBOARD_CLOCK": "virtual"]

    /// A simulated MPU-6050 with known offset and scale errors, held still at `pose`, with `faults`.
    private func board(_ folder: String, pose: TiltAngles, faults: String = "[]") throws -> String {
        let script = folder + "/still.json"
        try MotionScript(start: pose, segments: []).jsonData().write(to: URL(fileURLWithPath: script))
        let path = folder + "/board.json"
        try """
        {"name": "order test", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "simulation": {"script": "\(script)", "noise": true, "seed": 5,
           "zeroGOffsetMg": [40, -30, 60], "scaleError": [0.02, -0.02, 0.02], "faults": \(faults)}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Mean pitch and roll `run` reports over its last second at the board's (still) pose.
    private func reading(board: String, profile: String, file: StaticString = #filePath, line: UInt = #line) throws -> (pitch: Double, roll: Double) {
        let r = try CLIRunner.run(["run", "--board", board, "--profile", profile, "--json", "--duration", "2"], environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        var pitch = 0.0, roll = 0.0, n = 0.0
        for text in r.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            guard let t = object["t"] as? Double, t >= 1, let tilt = object["tilt"] as? [String: Any] else { continue }
            pitch += tilt["pitchDeg"] as? Double ?? .nan
            roll += tilt["rollDeg"] as? Double ?? .nan
            n += 1
        }
        XCTAssertGreaterThan(n, 50, file: file, line: line)
        return (pitch / n, roll / n)
    }

    private func calibrate(_ extra: [String], board: String, profile: String) throws -> CLIRunner.Result {
        let r = try CLIRunner.run(["calibrate", "--yes", "--board", board, "--profile", profile] + extra, environment: environment)
        XCTAssertEqual(r.status, 0, "\(extra): \(r.stderr)")
        return r
    }

    func testNeutralAndSensorCalibrationInEitherOrderReadLevelAtTheNeutralPose() throws {
        let pose = TiltAngles(pitchDeg: 12, rollDeg: -8)
        for order in [[[], ["--sensor"]], [["--sensor"], []]] {
            let folder = try makeScratchFolder(self)
            let b = try board(folder, pose: pose)
            let profile = folder + "/p.json"
            for step in order { _ = try calibrate(step, board: b, profile: profile) }
            let p = try XCTUnwrap(try ProfileStore.load(path: profile, expectedBoard: nil))
            XCTAssertNotNil(p.sensor)
            XCTAssertNotNil(p.neutralSource)
            let (pitch, roll) = try reading(board: b, profile: profile)
            XCTAssertEqual(pitch, 0, accuracy: 0.1, "order \(order)")
            XCTAssertEqual(roll, 0, accuracy: 0.1, "order \(order)")
            print("order \(order): pitch \(pitch)°, roll \(roll)° at the neutral pose")
        }
    }

    func testAnOldProfileWithoutANeutralSourceKeepsItsStoredPose() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, pose: TiltAngles(pitchDeg: 12, rollDeg: -8))
        let profile = folder + "/p.json"
        _ = try calibrate([], board: b, profile: profile)
        var p = try XCTUnwrap(try ProfileStore.load(path: profile, expectedBoard: nil))
        let stored = p.neutral
        p.neutralSource = nil
        try ProfileStore.save(p, path: profile)
        _ = try calibrate(["--sensor"], board: b, profile: profile)
        let after = try XCTUnwrap(try ProfileStore.load(path: profile, expectedBoard: nil))
        XCTAssertNil(after.neutralSource)
        XCTAssertEqual(after.neutral, stored, "kept as stored, as before")
        XCTAssertEqual(after.neutralPose(mount: .identity), stored)
    }

    func testCalibrateAcrossAFourSecondUnplugTakesItsFullCount() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, pose: TiltAngles(pitchDeg: 10, rollDeg: 0),
                          faults: #"[{"at": 1.0, "kind": "unplug", "seconds": 4}]"#)
        let profile = folder + "/p.json"
        let r = try calibrate([], board: b, profile: profile)
        XCTAssertTrue(r.stderr.contains("sensor lost, waiting for it"), r.stderr)
        XCTAssertTrue(r.stderr.contains("sensor back (the chip had reset: configured again); starting the capture again"), r.stderr)
        XCTAssertTrue(r.stderr.contains("no sample for 4.17 s (the sensor was lost); starting the capture again"), r.stderr)
        XCTAssertTrue(r.stdout.contains("  samples          201, "), r.stdout)
        let p = try XCTUnwrap(try ProfileStore.load(path: profile, expectedBoard: nil))
        XCTAssertEqual(p.sampleCount, 201)
        XCTAssertEqual(p.neutral.tiltDeg, 10, accuracy: 1.5)
    }

    func testCalibrateReconfiguresAResetChipAndCompletes() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, pose: TiltAngles(pitchDeg: 10, rollDeg: 0), faults: #"[{"at": 1.0, "kind": "reset"}]"#)
        let profile = folder + "/p.json"
        let r = try calibrate([], board: b, profile: profile)
        XCTAssertTrue(r.stderr.contains("sensor back (the chip had reset: configured again)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("measured 0.000 g"), r.stderr)
        let p = try XCTUnwrap(try ProfileStore.load(path: profile, expectedBoard: nil))
        XCTAssertEqual(p.sampleCount, 201)
        XCTAssertEqual(p.neutral.tiltDeg, 10, accuracy: 1.5)
    }
}

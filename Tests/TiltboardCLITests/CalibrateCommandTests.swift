import Foundation
import Tiltboard
import XCTest
import TiltboardCore
import TiltboardSimulator

/// `tiltboard calibrate` run as a program on simulated boards, on the virtual clock.
final class CalibrateCommandTests: XCTestCase {
    /// A simulated MPU-6050 board file in `folder`, with a part of known errors and `script`.
    private func boardFile(_ folder: String, script: String, name: String = "cal-test") throws -> String {
        let path = folder + "/board.json"
        try """
        {"name": "\(name)", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "simulation": {"script": "\(script)", "noise": true, "seed": 3,
           "zeroGOffsetMg": [40, -30, 60], "scaleError": [0.02, -0.02, 0.02]}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A motion script file holding the board still at `pose`.
    private func stillScript(_ folder: String, _ pose: TiltAngles) throws -> String {
        let path = folder + "/still.json"
        try MotionScript(start: pose, segments: []).jsonData().write(to: URL(fileURLWithPath: path))
        return path
    }

    private func load(_ path: String) throws -> CalibrationProfile {
        try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: nil))
    }

    func testYesOnTheBuiltInBoardWritesANeutralProfile() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["calibrate", "--yes"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let path = folder + "/tiltboard/profiles/simulated-mpu-6050-board.json"
        XCTAssertTrue(r.stdout.hasPrefix("neutral pose saved to \(path)\n"), r.stdout)
        XCTAssertTrue(r.stderr.contains("capturing the neutral pose: 100 %"), r.stderr)
        let p = try load(path)
        XCTAssertEqual(p.schemaVersion, 1)
        XCTAssertEqual(p.board, ProfileBoardIdentity(name: "simulated MPU-6050 board", chip: .mpu6050, bus: "simulated",
                                                     address: 0x68, chipID: 0x68))
        XCTAssertNotNil(CalibrationProfile.date(fromTimestamp: p.createdAt))
        XCTAssertEqual(try XCTUnwrap(p.temperatureC), 25, accuracy: 0.5)
        // 2 s at 100 Hz, counting both ends.
        XCTAssertEqual(p.sampleCount, 201)
        for axis in 0..<3 { XCTAssertEqual(p.noiseMg[axis], 2.6, accuracy: 1) }
        // The flat board's uncalibrated reading is the rotation's source; it must map it onto +Z.
        let levelled = p.neutral.rotation.rotate(p.neutral.meanRawG.normalized)
        XCTAssertEqual(levelled.z, 1, accuracy: 1e-9)
        XCTAssertEqual(p.neutral.tiltDeg, degrees(acos(p.neutral.meanRawG.normalized.z)), accuracy: 1e-9)
        XCTAssertEqual(p.neutral.meanRawG.length, 1, accuracy: 0.1)
        XCTAssertFalse(p.neutral.clamped)
        XCTAssertNil(p.sensor)
    }

    func testNeutralAtAKnownPoseAndZeroResetsItKeepingTheSensorSection() throws {
        let folder = try makeScratchFolder(self)
        let board = try boardFile(folder, script: try stillScript(folder, TiltAngles(pitchDeg: 20, rollDeg: 0)))
        let path = folder + "/p.json"
        // A sensor section as `--sensor` would have stored it for this simulated part.
        let identity = ProfileBoardIdentity(name: "cal-test", chip: .mpu6050, bus: "simulated", address: 0x68, chipID: 0x68)
        let sensor = CalibrationProfile.SensorCorrection(offsetG: Vector3(0.04, -0.03, 0.06), scale: Vector3(1.02, 0.98, 1.02),
                                                         residualMg: 0.3, writtenToChip: false)
        try ProfileStore.save(CalibrationProfile(board: identity, createdAt: "2026-01-01T00:00:00Z", sampleCount: 1,
                                                 noiseMg: .zero, neutral: NeutralPose.level, sensor: sensor), path: path)

        let r = try CLIRunner.run(["calibrate", "--yes", "--board", board, "--profile", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let p = try load(path)
        XCTAssertEqual(p.sensor, sensor)
        // Seeded noise aside, the corrected reading is the 20° pose.
        XCTAssertEqual(p.neutral.tiltDeg, 20, accuracy: 0.2)
        XCTAssertEqual(TiltAngles(gravity: p.neutral.meanRawG).pitchDeg, 20, accuracy: 0.2)
        XCTAssertTrue(r.stdout.contains("tilt from level  \(String(format: "%.2f", p.neutral.tiltDeg))°"), r.stdout)
        // The still capture also measured the gyro bias (the seeded part's, a few °/s).
        let bias = try XCTUnwrap(p.gyroBiasDps)
        XCTAssertGreaterThan(bias.length, 0.1)
        XCTAssertTrue(r.stdout.contains("  gyro bias        "), r.stdout)

        let z = try CLIRunner.run(["calibrate", "--zero", "--board", board, "--profile", path])
        XCTAssertEqual(z.status, 0, z.stderr)
        XCTAssertEqual(z.stdout, "neutral pose reset to level in \(path)\n")
        let zeroed = try load(path)
        XCTAssertEqual(zeroed.neutral, NeutralPose.level)
        XCTAssertEqual(zeroed.sensor, sensor)
        XCTAssertEqual(zeroed.gyroBiasDps, bias)
        let show = try CLIRunner.run(["profile", "show", "--board", board, "--profile", path])
        XCTAssertTrue(show.stdout.contains("  gyro bias    [\(String(format: "%.3f", bias.x)), "), show.stdout)
    }

    func testSteepNeutralIsClampedAndSaysSo() throws {
        let folder = try makeScratchFolder(self)
        let board = try boardFile(folder, script: try stillScript(folder, TiltAngles(pitchDeg: 0, rollDeg: 45)))
        let r = try CLIRunner.run(["calibrate", "--yes", "--board", board, "--profile", folder + "/p.json", "--max-tilt", "20"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("beyond --max-tilt 20.0°: only 20.0° is compensated"), r.stderr)
        let p = try load(folder + "/p.json")
        XCTAssertTrue(p.neutral.clamped)
        XCTAssertEqual(2 * acos(Swift.min(1, Swift.abs(p.neutral.rotation.w))) * 180 / .pi, 20, accuracy: 1e-6)
    }

    func testMovingBoardTimesOutWithExit75() throws {
        let folder = try makeScratchFolder(self)
        let board = try boardFile(folder, script: "walk")
        let path = folder + "/p.json"
        let r = try CLIRunner.run(["calibrate", "--yes", "--board", board, "--profile", path, "--timeout", "3"])
        XCTAssertEqual(r.status, 75, r.stderr)
        XCTAssertTrue(r.stderr.contains("starting the capture again"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: error: the board was not still for long enough within 3 s"), r.stderr)
        XCTAssertTrue(r.stderr.contains("put it on a steady surface and try again"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(r.stdout, "")
    }

    func testCorruptProfileIsReplacedWithANote() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        try "{\"schemaVersion\": 1, \"board\": ".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLIRunner.run(["calibrate", "--yes", "--profile", path, "--duration", "0.5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("the profile at \(path) cannot be used"), r.stderr)
        XCTAssertTrue(r.stderr.contains("it will be replaced, the old file is kept as \(path).bak"), r.stderr)
        XCTAssertEqual(try load(path).board.name, "simulated MPU-6050 board")
        XCTAssertEqual(try String(contentsOfFile: path + ".bak", encoding: .utf8), "{\"schemaVersion\": 1, \"board\": ")
    }

    func testForeignBoardAndNewerVersionProfilesAreRefusedWith65() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let other = ProfileBoardIdentity(name: "someone else's board", chip: .mpu6050, bus: "simulated", address: 0x68, chipID: 0x68)
        let foreign = CalibrationProfile(board: other, createdAt: "2026-01-01T00:00:00Z", sampleCount: 1, noiseMg: .zero,
                                         neutral: NeutralPose.level)
        try ProfileStore.save(foreign, path: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for args in [["calibrate", "--yes"], ["calibrate", "--zero"]] {
            let r = try CLIRunner.run(args + ["--profile", path, "--duration", "0.5"])
            XCTAssertEqual(r.status, 65, r.stderr)
            XCTAssertTrue(r.stderr.contains("tiltboard: error:"), r.stderr)
            XCTAssertTrue(r.stderr.contains("someone else's board"), r.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        }

        var newer = foreign
        newer.board.name = "simulated MPU-6050 board"
        newer.schemaVersion = CalibrationProfile.currentSchemaVersion + 1
        let encoder = JSONEncoder()
        try encoder.encode(newer).write(to: URL(fileURLWithPath: path))
        let newerBytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let r = try CLIRunner.run(["calibrate", "--yes", "--profile", path, "--duration", "0.5"])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: error:"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), newerBytes)
    }

    func testReadAppliesTheProfileAndIgnoreProfileBypassesIt() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let identity = ProfileBoardIdentity(name: "simulated MPU-6050 board", chip: .mpu6050, bus: "simulated", address: 0x68, chipID: 0x68)
        // A deliberately large X offset, so the two readings cannot be confused.
        let sensor = CalibrationProfile.SensorCorrection(offsetG: Vector3(0.2, 0, 0), scale: .one, residualMg: 0.3, writtenToChip: false)
        try ProfileStore.save(CalibrationProfile(board: identity, createdAt: "2026-01-01T00:00:00Z", sampleCount: 1,
                                                 noiseMg: .zero, neutral: NeutralPose.level, sensor: sensor), path: path)
        func meanX(_ extra: [String]) throws -> Double {
            let r = try CLIRunner.run(["read", "--profile", path, "--count", "20", "--json"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let xs = try r.stdout.split(separator: "\n").map { line -> Double in
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try XCTUnwrap((object["accel"] as? [Double])?.first)
            }
            XCTAssertEqual(xs.count, 20)
            return xs.reduce(0, +) / Double(xs.count)
        }
        let applied = try meanX([])
        let ignored = try meanX(["--ignore-profile"])
        XCTAssertEqual(ignored - applied, 0.2, accuracy: 0.005)
    }

    func testOptionChecks() throws {
        for (args, text) in [(["--write-chip"], "--write-chip only goes with --sensor"),
                             (["--zero", "--sensor"], "--zero and --sensor cannot be combined"),
                             (["--duration", "0"], "--duration must be more than 0"),
                             (["--duration", "5", "--timeout", "4"], "must be shorter than --timeout"),
                             (["--max-tilt", "120"], "--max-tilt must be 0…90 degrees")] {
            let r = try CLIRunner.run(["calibrate"] + args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(text), "\(args): \(r.stderr)")
        }
    }

    /// The whole guided procedure on a simulated board: about 30 s of simulated time.
    func testSensorCalibrationOnASimulatedBoardRecoversTheInjectedErrors() throws {
        let folder = try makeScratchFolder(self)
        let board = try boardFile(folder, script: "flat")
        let path = folder + "/p.json"
        let r = try CLIRunner.run(["calibrate", "--sensor", "--write-chip", "--yes", "--board", board, "--profile", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("playing the built-in \"six-faces\" motion"), r.stderr)
        for face in ["+Z", "-Z", "+X", "-X", "+Y", "-Y"] {
            XCTAssertTrue(r.stderr.contains("captured \(face) up"), "\(face): \(r.stderr)")
        }
        XCTAssertTrue(r.stdout.hasPrefix("sensor calibration saved to \(path)\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("in chip          yes"), r.stdout)
        let p = try load(path)
        let s = try XCTUnwrap(p.sensor)
        let offsetMg = [40.0, -30, 60], scale = [1.02, 0.98, 1.02]
        for axis in 0..<3 {
            XCTAssertEqual(s.offsetG[axis] * 1000, offsetMg[axis], accuracy: 1, "axis \(axis)")
            XCTAssertEqual(s.scale[axis], scale[axis], accuracy: 0.001, "axis \(axis)")
        }
        XCTAssertLessThan(s.residualMg, 2)
        XCTAssertTrue(s.writtenToChip)
        XCTAssertNotNil(s.gyroBiasDps)
        XCTAssertEqual(p.neutral, NeutralPose.level)

        // The next session programs the chip and reads the flat board as (0, 0, 1) g.
        try assertReadsFlat(board: board, profile: path)
    }

    /// 100 samples of `read` on `board` with `profile` average (0, 0, 1) g within 3 mg.
    private func assertReadsFlat(board: String, profile: String, _ what: String = "",
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let read = try CLIRunner.run(["read", "--board", board, "--profile", profile, "--count", "100", "--json"])
        XCTAssertEqual(read.status, 0, read.stderr, file: file, line: line)
        var sum = [0.0, 0.0, 0.0], n = 0.0
        for text in read.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let accel = try XCTUnwrap(object["accel"] as? [Double])
            for axis in 0..<3 { sum[axis] += accel[axis] }
            n += 1
        }
        XCTAssertEqual(n, 100, file: file, line: line)
        for (axis, expected) in [0.0, 0, 1].enumerated() {
            XCTAssertEqual(sum[axis] / n, expected, accuracy: 0.003, "\(what) axis \(axis)", file: file, line: line)
        }
    }

    func testWriteChipOnEveryCloneReadsIdealAfterwards() throws {
        // Each part programs its own offset registers (0x77/0x7A/0x7D on the 6500 family and
        // the ICM-20689) and reads them back; the next session reads a flat board as (0, 0, 1) g.
        for id in ["0x70", "0x71", "0x73", "0x98"] {
            let folder = try makeScratchFolder(self)
            let board = folder + "/clone.json"
            try """
            {"name": "clone", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
             "simulation": {"script": "flat", "noise": true, "seed": 7, "whoAmI": "\(id)", "zeroGOffsetMg": [40, -30, 60]}}
            """.write(toFile: board, atomically: true, encoding: .utf8)
            let path = folder + "/p.json"
            let r = try CLIRunner.run(["calibrate", "--sensor", "--write-chip", "--yes", "--board", board, "--profile", path])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.contains("in chip          yes"), "\(id): \(r.stdout)")
            try assertReadsFlat(board: board, profile: path, id)
        }
    }

    func testZeroOnABoardNeverCalibratedAndOverACorruptProfile() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let fresh = try CLIRunner.run(["calibrate", "--zero", "--profile", path])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertEqual(fresh.stdout, "neutral pose reset to level in \(path)\n")
        let p = try load(path)
        XCTAssertEqual(p.neutral, .level)
        XCTAssertEqual(p.sampleCount, 0)

        let corrupt = Data("{\"schemaVersion\": 1, \"board\": ".utf8)
        try corrupt.write(to: URL(fileURLWithPath: path))
        let over = try CLIRunner.run(["calibrate", "--zero", "--profile", path])
        XCTAssertEqual(over.status, 0, over.stderr)
        XCTAssertTrue(over.stderr.contains("it will be replaced, the old file is kept as \(path).bak"), over.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path + ".bak")), corrupt)
        XCTAssertEqual(try load(path).neutral, .level)
    }
}

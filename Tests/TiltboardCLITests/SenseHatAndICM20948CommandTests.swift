import Foundation
import XCTest

/// The Sense HAT's LSM9DS1 and the ICM-20948 through the commands, on the shipped simulated
/// board files: probe, read, both calibrations, run, shake and serve. (The gamepad needs
/// /dev/uinput: the kernel test runs it on these boards.)
final class SenseHatAndICM20948CommandTests: XCTestCase {
    private let boards = ["\(packageRoot)/Boards/simulated-sense-hat.json", "\(packageRoot)/Boards/simulated-icm20948.json"]

    private func environment(_ folder: String) -> [String: String] { ["XDG_CONFIG_HOME": folder, "HOME": folder] }

    func testProbeFindsBothAndNamesTheHATsOtherDevicesWithoutReadingThem() throws {
        let r = try CLIRunner.run(["probe", "--bus", "simulated"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, """
            0x68  MPU-6050 (ID 0x68)
            0x69  ICM-20948 (ID 0xea)
            0x53  ADXL345 (ID 0xe5)
            0x18  LIS3DH (ID 0x33)
            0x6a  LSM9DS1 (ID 0x68)
            0x1c  LSM9DS1 magnetometer (SDO_M low) (expected; not accessed)
            0x1e  LSM9DS1 magnetometer (SDO_M high) (expected; not accessed)
            0x46  Sense HAT LED matrix and joystick controller (ATtiny88) (expected; not accessed)
            0x5c  Sense HAT pressure sensor (LPS25H) (expected; not accessed)
            0x5f  Sense HAT humidity sensor (HTS221) (expected; not accessed)

            """)
    }

    func testReadGivesGravityGyroAndTemperature() throws {
        let folder = try makeScratchFolder(self)
        for board in boards {
            let r = try CLIRunner.run(["read", "--board", board, "--count", "20", "--json"], environment: environment(folder))
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = r.stdout.split(separator: "\n")
            XCTAssertEqual(lines.count, 20)
            var z = 0.0
            for line in lines {
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                z += try XCTUnwrap(object["accel"] as? [Double])[2]
                XCTAssertEqual(try XCTUnwrap(object["gyro"] as? [Double]).count, 3)
                XCTAssertEqual(try XCTUnwrap(object["tempC"] as? Double), 25, accuracy: 0.5)
            }
            XCTAssertEqual(z / 20, 1, accuracy: 0.1, board)
        }
    }

    func testBothCalibrationsThenRunAndShake() throws {
        let folder = try makeScratchFolder(self)
        for board in boards {
            let profile = folder + "/" + URL(fileURLWithPath: board).lastPathComponent
            let sensor = try CLIRunner.run(["calibrate", "--sensor", "--yes", "--board", board, "--profile", profile])
            XCTAssertEqual(sensor.status, 0, sensor.stderr)
            XCTAssertTrue(sensor.stdout.contains("in chip          no"), sensor.stdout)
            let neutral = try CLIRunner.run(["calibrate", "--yes", "--board", board, "--profile", profile])
            XCTAssertEqual(neutral.status, 0, neutral.stderr)
            let saved = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any])
            XCTAssertNotNil(saved["sensor"], "six-face calibration kept")
            XCTAssertNotNil(saved["neutral"] ?? saved["neutralPose"], "neutral pose saved: \(saved.keys)")
            let run = try CLIRunner.run(["run", "--board", board, "--profile", profile, "--duration", "2", "--json"],
                                        environment: environment(folder))
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertGreaterThanOrEqual(run.stdout.split(separator: "\n").count, 190, run.stderr)
            XCTAssertTrue(run.stderr.contains("bus errors 0, outages 0, reconfigurations 0"), run.stderr)
            let shake = try CLIRunner.run(["shake", "--board", board, "--duration", "2", "--mute"], environment: environment(folder))
            XCTAssertEqual(shake.status, 0, shake.stderr)
        }
    }

    func testServeStartsOnBothBoards() throws {
        let folder = try makeScratchFolder(self)
        for board in boards {
            let r = try CLIRunner.run(["serve", "--board", board, "--port", "0", "--duration", "0.5"], environment: environment(folder))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.hasPrefix("http://127.0.0.1:"), r.stdout)
        }
    }

    func testWakeOnMotionIsRefusedWithTheReason() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/icm.json"
        try #"{"name": "icm wake", "sensor": {"chip": "icm20948", "bus": "simulated"}, "interrupt": {"chip": "simulated", "line": 4}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLIRunner.run(["shake", "--wake-on-motion", "--board", path, "--duration", "3", "--mute"], environment: environment(folder))
        XCTAssertNotEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("ICM-20948 cannot use wake-on-motion"), r.stderr)
    }
}

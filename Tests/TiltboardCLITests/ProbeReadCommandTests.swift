import Foundation
import XCTest

final class ProbeReadCommandTests: XCTestCase {
    private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    private func json(_ line: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
    }

    /// Runs with the profile folder pointed into a scratch folder, so no real profile applies.
    private func run(_ args: [String]) throws -> CLIRunner.Result {
        let home = try makeScratchFolder(self)
        return try CLIRunner.run(args, environment: ["XDG_CONFIG_HOME": home])
    }

    private func writeBoard(_ json: String) throws -> String {
        let path = try makeScratchFolder(self) + "/board.json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testReadPrintsFiveJSONLinesOfGravityOnTheBuiltInBoard() throws {
        let r = try run(["read", "--count", "5", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("built-in simulated MPU-6050 board"), r.stderr)
        let out = lines(r.stdout)
        XCTAssertEqual(out.count, 5)
        var lastT = -1.0
        for line in out {
            let obj = try json(line)
            let t = try XCTUnwrap(obj["t"] as? Double)
            XCTAssertGreaterThan(t, lastT)
            lastT = t
            let accel = try XCTUnwrap(obj["accel"] as? [Double])
            XCTAssertEqual(accel.count, 3)
            // Flat board; data-sheet zero-g offsets are up to ±50 mg X/Y, ±80 mg Z.
            XCTAssertEqual(accel[0], 0, accuracy: 0.1)
            XCTAssertEqual(accel[1], 0, accuracy: 0.1)
            XCTAssertEqual(accel[2], 1, accuracy: 0.12)
            XCTAssertEqual(try XCTUnwrap(obj["gyro"] as? [Double]).count, 3)
            XCTAssertEqual(try XCTUnwrap(obj["tempC"] as? Double), 25, accuracy: 1)
        }
    }

    func testReadOnTheSimulatedADXL345BoardHasNoGyroOrTemperature() throws {
        let r = try run(["read", "--count", "5", "--json", "--board", packageRoot + "/Boards/simulated-adxl345.json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = lines(r.stdout)
        XCTAssertEqual(out.count, 5)
        for line in out {
            let obj = try json(line)
            let accel = try XCTUnwrap(obj["accel"] as? [Double])
            XCTAssertEqual(accel[2], 1, accuracy: 0.12)
            XCTAssertNil(obj["gyro"])
            XCTAssertNil(obj["tempC"])
        }
    }

    func testProbeNamesEverySimulatedChip() throws {
        let r = try run(["probe", "--bus", "simulated", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let found = try lines(r.stdout).map(json)
        // One of each registered chip (the ICM-20948 at 0x69, the MPU-6050 holding 0x68), then
        // the Sense HAT's other devices, named without being read.
        XCTAssertEqual(found.count, 10)
        XCTAssertEqual(found[0]["address"] as? String, "0x68")
        XCTAssertEqual(found[0]["part"] as? String, "MPU-6050")
        XCTAssertEqual(found[0]["chip"] as? String, "mpu6050")
        XCTAssertEqual(found[1]["address"] as? String, "0x69")
        XCTAssertEqual(found[1]["chip"] as? String, "icm20948")
        XCTAssertEqual(found[2]["address"] as? String, "0x53")
        XCTAssertEqual(found[2]["part"] as? String, "ADXL345")
        XCTAssertEqual(found[2]["chipID"] as? String, "0xe5")
        XCTAssertEqual(found[3]["address"] as? String, "0x18")
        XCTAssertEqual(found[3]["part"] as? String, "LIS3DH")
        XCTAssertEqual(found[3]["chip"] as? String, "lis3dh")
        XCTAssertEqual(found[3]["chipID"] as? String, "0x33")
        XCTAssertEqual(found[4]["chip"] as? String, "lsm9ds1")
        XCTAssertEqual(found[5]["address"] as? String, "0x1c")
        XCTAssertNil(found[5]["chip"])
        XCTAssertEqual(found[5]["note"] as? String, "expected on this board; not accessed")

        let human = try run(["probe", "--bus", "simulated"])
        XCTAssertEqual(human.status, 0)
        XCTAssertTrue(human.stdout.contains("0x68  MPU-6050"), human.stdout)
    }

    func testMissingBusExits69NamingTheDeviceAndTheFix() throws {
        let board = try writeBoard(#"{"name":"far bus","sensor":{"chip":"mpu6050","bus":"/dev/i2c-9","address":"0x68"}}"#)
        let r = try run(["read", "--board", board, "--count", "1"])
        XCTAssertEqual(r.status, 69)
        XCTAssertTrue(r.stderr.hasPrefix("tiltboard: error: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("/dev/i2c-9"), r.stderr)
        XCTAssertTrue(r.stderr.contains("dtparam=i2c_arm=on"), r.stderr)
        XCTAssertEqual(lines(r.stderr).count, 1, "one line, no stack trace: \(r.stderr)")

        let probe = try run(["probe", "--bus", "/dev/i2c-9"])
        XCTAssertEqual(probe.status, 69)
        XCTAssertTrue(probe.stderr.contains("/dev/i2c-9"), probe.stderr)
    }

    func testWrongChipIDExits69WithWhatWasFound() throws {
        let board = try writeBoard(#"{"name":"odd","sensor":{"chip":"mpu6050","bus":"simulated","address":"0x68"},"simulation":{"whoAmI":"0x42"}}"#)
        let r = try run(["read", "--board", board, "--count", "1"])
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertTrue(r.stderr.contains("found 0x42 at 0x68 on simulated, expected 0x68 (MPU-6050)"), r.stderr)
    }

    func testCloneIDIsAcceptedWithAWarningNamingThePart() throws {
        let r = try run(["read", "--board", packageRoot + "/Boards/simulated-clone.json", "--count", "2", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning"), r.stderr)
        XCTAssertTrue(r.stderr.contains("MPU-6500"), r.stderr)
        XCTAssertEqual(lines(r.stdout).count, 2)
        let temp = try XCTUnwrap(try json(lines(r.stdout)[0])["tempC"] as? Double)
        XCTAssertEqual(temp, 25, accuracy: 1)
    }

    func testMalformedBoardFileExits65NamingFileAndKey() throws {
        let board = try writeBoard(#"{"name":"bad","sensor":{"chip":"mpu6050","bus":"simulated","address":"0x68","accelRangeG":3}}"#)
        let r = try run(["read", "--board", board, "--count", "1"])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stderr.contains(board), r.stderr)
        XCTAssertTrue(r.stderr.contains("sensor.accelRangeG"), r.stderr)

        let broken = try writeBoard(#"{"name": "#)
        let r2 = try run(["read", "--board", broken])
        XCTAssertEqual(r2.status, 65)
        XCTAssertTrue(r2.stderr.contains(broken), r2.stderr)
    }

    func testUsageErrorsExit64() throws {
        XCTAssertEqual(try run(["read", "--count", "-1"]).status, 64)
        XCTAssertEqual(try run(["read", "--rate", "0"]).status, 64)
        XCTAssertEqual(try run(["probe", "--bogus"]).status, 64)
    }
}

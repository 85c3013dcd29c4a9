import Foundation
import XCTest
import TiltboardCommands
import TiltboardDrivers
@testable import TiltboardCLI

/// `doctor`'s warning when the boards take more than 70 % of their bus, on a staged machine.
final class DoctorBusShareCommandTests: XCTestCase {
    /// A machine with /dev/i2c-1 (a plain file: the sensor check fails, which is not what is
    /// looked at here) and a board at `rate`, with the bus clock in the device tree or not.
    private func doctor(rate: Int, clockHz: UInt32?) throws -> CLIRunner.Result {
        let folder = try makeScratchFolder(self)
        let root = folder + "/root"
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: root + "/dev/i2c-1", contents: nil))
        if let clockHz {
            let node = root + "/sys/bus/i2c/devices/i2c-1/of_node"
            try fm.createDirectory(atPath: node, withIntermediateDirectories: true)
            try Data([UInt8(clockHz >> 24), UInt8(clockHz >> 16 & 0xFF), UInt8(clockHz >> 8 & 0xFF), UInt8(clockHz & 0xFF)])
                .write(to: URL(fileURLWithPath: node + "/clock-frequency"))
        }
        let board = folder + "/board.json"
        try Data(#"{"name":"share","sensor":{"chip":"mpu6050","bus":"/dev/i2c-1","address":"0x68","rateHz":\#(rate)}}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        return try CLIRunner.run(["doctor", "--board", board, "--system-root", root], environment: ["HOME": folder, "XDG_CONFIG_HOME": folder])
    }

    func testDoctorWarnsAbove70PercentAtTheDeviceTreesClock() throws {
        // 1000 Hz goes through the FIFO, 5 a drain: (48 + 660) / 5 clocks a sample, and the check.
        let r = try doctor(rate: 1000, clockHz: 100_000)
        let warning = "tiltboard: warning: bus share: 1000 Hz MPU-6050 (FIFO ×5) on /dev/i2c-1 takes 142 % of the bus at 100 kHz, more than 70 %"
            + " — read in FIFO batches (sensor.fifo), lower sensor.rateHz, raise the clock (dtparam=i2c_arm_baudrate=400000) or move a board to a second bus\n"
        XCTAssertTrue(r.stderr.contains(warning), r.stderr)
        // At 400 kHz the same board takes 35 %: no warning.
        XCTAssertFalse(try doctor(rate: 1000, clockHz: 400_000).stderr.contains("bus share"))
    }

    func testDoctorAssumes100kHzWithoutAClockAndSaysSo() throws {
        // 450 Hz: the FIFO, 2 a drain: (48 + 282) / 2 = 165 clocks a sample, 74 % of 100 kHz.
        let r = try doctor(rate: 450, clockHz: nil)
        XCTAssertTrue(r.stderr.contains("tiltboard: warning: bus share: 450 Hz MPU-6050 (FIFO ×2) on /dev/i2c-1 takes 74 % of the bus at 100 kHz (assumed: the device tree gives no clock-frequency), more than 70 %"), r.stderr)
        // 400 Hz, one burst a sample: 62 %, below the line, and today's output untouched.
        let quiet = try doctor(rate: 400, clockHz: nil)
        XCTAssertFalse(quiet.stderr.contains("warning"), quiet.stderr)
        XCTAssertEqual(quiet.stdout.split(separator: "\n").prefix(2), ["✓ I²C enabled: /dev/i2c-1 is present",
                                                                      "· bus clock: not in the device tree for i2c-1; assuming it suits 400 Hz"])
    }

    /// Two players' boards on one bus, each at 62 % of an assumed 100 kHz: one warning for the
    /// bus with their sum, every board's checks under its player line, one object a board.
    func testTwoBoardsOnOneBusAreCheckedInTurnAndTheirShareSummed() throws {
        let folder = try makeScratchFolder(self)
        let root = folder + "/root"
        try FileManager.default.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/dev/i2c-1", contents: nil))
        var arguments = ["doctor", "--system-root", root]
        for (name, address) in [("p1", "0x68"), ("p2", "0x69")] {
            let board = folder + "/\(name).json"
            try Data(#"{"name":"\#(name)","sensor":{"chip":"mpu6050","bus":"/dev/i2c-1","address":"\#(address)","rateHz":400}}"#.utf8)
                .write(to: URL(fileURLWithPath: board))
            arguments += ["--board", board]
        }
        let environment = ["HOME": folder, "XDG_CONFIG_HOME": folder]
        let r = try CLIRunner.run(arguments, environment: environment)
        // The staged bus is a plain file: each board's sensor check fails, exit 69.
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "bus share:").count, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: warning: bus share: 400 Hz MPU-6050 + 400 Hz MPU-6050 on /dev/i2c-1 take 125 % of the bus at 100 kHz"), r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("player ") }, ["player 1: p1", "player 2: p2"])
        XCTAssertTrue(lines.contains("✓ kernel driver: none bound to 0x68 on /dev/i2c-1"), r.stdout)
        XCTAssertTrue(lines.contains("✓ kernel driver: none bound to 0x69 on /dev/i2c-1"), r.stdout)
        XCTAssertEqual(lines.last, "doctor: 2 of 18 checks failed")

        let json = try CLIRunner.run(arguments + ["--json"], environment: environment)
        XCTAssertEqual(json.status, 69)
        let objects = try json.stdout.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(objects.map { $0["player"] as? Int }, [1, 2])
        XCTAssertEqual(objects.map { $0["board"] as? String }, ["p1", "p2"])
        XCTAssertEqual(objects.map { ($0["checks"] as? [Any])?.count }, [9, 9])
        XCTAssertEqual(objects.map { $0["exitCode"] as? Int }, [69, 69])

        let noise = try CLIRunner.run(arguments + ["--motor-noise"], environment: environment)
        XCTAssertEqual(noise.status, 64)
        XCTAssertTrue(noise.stderr.contains("--motor-noise checks one board: give one --board"), noise.stderr)
    }

    func testTheWarningSumsTheBoardsOnTheBusAndLeavesOutAFasterClockWhenThereIsNone() {
        let two = BusShareFinding(bus: "/dev/i2c-1", clockHz: 400_000, clockFile: "f",
                                  boards: [BusBudget(chip: .mpu6050, rateHz: 1000, fifo: false), BusBudget(chip: .adxl345, rateHz: 800, fifo: false)],
                                  share: 0.9)
        XCTAssertTrue(two.overWarning)
        XCTAssertEqual(DoctorCommand.busShareWarning(two),
                       "bus share: 1000 Hz MPU-6050 + 800 Hz ADXL345 on /dev/i2c-1 take 90 % of the bus at 400 kHz, more than 70 %"
                       + " — read in FIFO batches (sensor.fifo), lower sensor.rateHz or move a board to a second bus")
        XCTAssertFalse(BusShareFinding(bus: "b", clockHz: 100_000, clockFile: nil, boards: [], share: 0.7).overWarning)
    }
}

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

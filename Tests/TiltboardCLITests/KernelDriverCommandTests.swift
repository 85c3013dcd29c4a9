import Foundation
import XCTest

/// A kernel driver bound to the sensor's address (a device-tree overlay's IIO driver): every
/// command that opens the sensor exits 69 with one line naming the driver, the address and bus,
/// and the fix. sysfs is a fake tree in the test's folder (`TILTBOARD_SYSFS`); the bus,
/// /dev/i2c-77, does not exist, so nothing here touches a real bus.
final class KernelDriverCommandTests: XCTestCase {
    private let mpuLine = "tiltboard: error: the kernel's inv-mpu6050-i2c driver owns the device at 0x68 on /dev/i2c-77: remove dtoverlay=i2c-sensor,mpu6050 (or the older dtoverlay=mpu6050) from /boot/firmware/config.txt and reboot, or release it until the next boot with `echo 77-0068 | sudo tee /sys/bus/i2c/drivers/inv-mpu6050-i2c/unbind`"
    private let lisLine = "tiltboard: error: the kernel's st-accel-i2c driver owns the device at 0x18 on /dev/i2c-77: remove the dtoverlay line that adds it from /boot/firmware/config.txt and reboot, or release it until the next boot with `echo 77-0018 | sudo tee /sys/bus/i2c/drivers/st-accel-i2c/unbind`"

    private struct Machine {
        var folder: String
        var sysfs: String { folder + "/sys" }
        var env: [String: String] { ["TILTBOARD_SYSFS": sysfs, "XDG_CONFIG_HOME": folder + "/config"] }
    }

    private func machine() throws -> Machine {
        let m = Machine(folder: try makeScratchFolder(self))
        try FileManager.default.createDirectory(atPath: m.sysfs + "/bus/i2c/devices", withIntermediateDirectories: true)
        return m
    }

    /// `devices/<device>` with its `name`, and a `driver` link when `driver` is given.
    private func stage(_ m: Machine, device: String, name: String, driver: String?) throws {
        let fm = FileManager.default
        let dir = m.sysfs + "/bus/i2c/devices/" + device
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data((name + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/name"))
        if let driver {
            try fm.createDirectory(atPath: m.sysfs + "/bus/i2c/drivers/" + driver, withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: dir + "/driver", withDestinationPath: "../../drivers/" + driver)
        }
    }

    private func board(_ m: Machine, chip: String = "mpu6050", address: String = "0x68") throws -> String {
        let path = m.folder + "/board-\(chip).json"
        try Data("""
        {"name":"kernel driver test","sensor":{"chip":"\(chip)","bus":"/dev/i2c-77","address":"\(address)"}}
        """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testEveryCommandThatOpensTheSensorExits69NamingTheDriverAndTheFix() throws {
        let m = try machine()
        try stage(m, device: "77-0068", name: "mpu6050", driver: "inv-mpu6050-i2c")
        let board = try board(m)
        for args in [["read", "--count", "1"], ["run", "--duration", "1"], ["shake", "--duration", "1"],
                     ["record", "--duration", "1", "--out", m.folder + "/trace.csv"]] {
            let r = try CLIRunner.run(args + ["--board", board], environment: m.env)
            XCTAssertEqual(r.status, 69, "\(args[0]): \(r.stderr)")
            XCTAssertEqual(r.stderr, mpuLine + "\n", args[0])
            XCTAssertEqual(r.stdout, "", args[0])
        }
    }

    func testTheSenseHATsOverlayIsNamedAndOnlyTheSensorReleased() throws {
        let m = try machine()
        // rpi-sense declares st,lsm9ds1-accel at 0x6a, which st_accel binds.
        try stage(m, device: "77-006a", name: "lsm9ds1-accel", driver: "st-accel-i2c")
        let r = try CLIRunner.run(["read", "--count", "1", "--board", try board(m, chip: "lsm9ds1", address: "0x6a")], environment: m.env)
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: error: the kernel's st-accel-i2c driver owns the device at 0x6a on /dev/i2c-77: the Sense HAT's rpi-sense overlay (loaded from the HAT's EEPROM) binds its LSM9DS1; release it (the LED matrix and joystick keep working) with `echo 77-006a | sudo tee /sys/bus/i2c/drivers/st-accel-i2c/unbind`, after every boot (a systemd unit or /etc/rc.local can do it)\n")
    }

    func testTheKernelsOwnLSM9DS1DriverIsNamed() throws {
        // st_lsm6dsx, where a custom overlay declares st,lsm9ds1-imu.
        let other = try machine()
        try stage(other, device: "77-006a", name: "lsm9ds1-imu", driver: "st_lsm6dsx_i2c")
        let lsm6dsx = try CLIRunner.run(["read", "--count", "1", "--board", try board(other, chip: "lsm9ds1", address: "0x6a")], environment: other.env)
        XCTAssertEqual(lsm6dsx.status, 69, lsm6dsx.stderr)
        XCTAssertTrue(lsm6dsx.stderr.hasPrefix("tiltboard: error: the kernel's st_lsm6dsx_i2c driver owns the device at 0x6a on /dev/i2c-77: remove the dtoverlay line that declares st,lsm9ds1-imu"), lsm6dsx.stderr)
    }

    func testTheMPU9250OverlayIsNamedForAnMPU9250() throws {
        let m = try machine()
        try stage(m, device: "77-0068", name: "mpu9250", driver: "inv-mpu6050-i2c")
        let r = try CLIRunner.run(["read", "--count", "1", "--board", try board(m)], environment: m.env)
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: error: the kernel's inv-mpu6050-i2c driver owns the device at 0x68 on /dev/i2c-77: remove dtoverlay=i2c-sensor,mpu9250 from /boot/firmware/config.txt and reboot, or release it until the next boot with `echo 77-0068 | sudo tee /sys/bus/i2c/drivers/inv-mpu6050-i2c/unbind`\n")
    }

    func testProbeReportsEachOwnedAddressInTheSameTerms() throws {
        let m = try machine()
        try stage(m, device: "77-0068", name: "mpu6050", driver: "inv-mpu6050-i2c")
        try stage(m, device: "77-0018", name: "lis3dh", driver: "st-accel-i2c")
        let r = try CLIRunner.run(["probe", "--bus", "/dev/i2c-77"], environment: m.env)
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stdout, "")
        // In the order probed: the MPU-6050's addresses come before the LIS3DH's.
        XCTAssertEqual(r.stderr, mpuLine + "\n" + lisLine + "\n")
    }

    func testNoDeviceOrNoDriverLinkLeavesTheUsualBusError() throws {
        let m = try machine()
        // 0x68 declared but unbound; nothing at all at 0x18.
        try stage(m, device: "77-0068", name: "mpu6050", driver: nil)
        let noBus = "tiltboard: error: I²C bus /dev/i2c-77 does not exist"
        let read = try CLIRunner.run(["read", "--count", "1", "--board", try board(m)], environment: m.env)
        XCTAssertEqual(read.status, 69, read.stderr)
        XCTAssertTrue(read.stderr.hasPrefix(noBus), read.stderr)
        XCTAssertFalse(read.stderr.contains("kernel's"), read.stderr)
        let lis = try CLIRunner.run(["read", "--count", "1", "--board", try board(m, chip: "lis3dh", address: "0x18")],
                                    environment: m.env)
        XCTAssertTrue(lis.stderr.hasPrefix(noBus), lis.stderr)
        let probe = try CLIRunner.run(["probe", "--bus", "/dev/i2c-77"], environment: m.env)
        XCTAssertEqual(probe.status, 69, probe.stderr)
        XCTAssertTrue(probe.stderr.hasPrefix(noBus), probe.stderr)
    }

    func testTheSimulatedBusIgnoresSysfs() throws {
        let m = try machine()
        try stage(m, device: "1-0068", name: "mpu6050", driver: "inv-mpu6050-i2c")
        let r = try CLIRunner.run(["probe", "--bus", "simulated"], environment: m.env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("0x68  MPU-6050"), r.stdout)
    }
}

import Foundation
import XCTest
@testable import TiltboardLinux

/// `I2CKernelDriver` against a fake sysfs tree in a temporary folder, laid out as the kernel
/// lays out /sys/bus/i2c (devices/<n>-00<aa> with a `driver` symlink into drivers/<name>).
final class I2CKernelDriverTests: XCTestCase {
    private var sysfs = ""

    override func setUpWithError() throws {
        sysfs = NSTemporaryDirectory() + "tiltboard-sysfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: sysfs, withIntermediateDirectories: true)
        let folder = sysfs
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// `devices/<device>` with a `name` file, and when `driver` is given its `driver` link.
    private func stage(device: String, name: String, driver: String?) throws {
        let fm = FileManager.default
        let dir = sysfs + "/bus/i2c/devices/" + device
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data((name + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/name"))
        if let driver {
            try fm.createDirectory(atPath: sysfs + "/bus/i2c/drivers/" + driver, withIntermediateDirectories: true)
            // Relative, as sysfs has it: ../../../../bus/i2c/drivers/<driver> from the device.
            try fm.createSymbolicLink(atPath: dir + "/driver", withDestinationPath: "../../drivers/" + driver)
        }
    }

    func testSysfsNameIsAdapterDashFourHexDigits() {
        XCTAssertEqual(I2CKernelDriver.sysfsName(adapter: 1, address: 0x68), "1-0068")
        XCTAssertEqual(I2CKernelDriver.sysfsName(adapter: 0, address: 0x18), "0-0018")
        XCTAssertEqual(I2CKernelDriver.sysfsName(adapter: 10, address: 0x53), "10-0053")
        XCTAssertEqual(I2CKernelDriver.sysfsName(adapter: 2, address: 0x0A), "2-000a")
    }

    func testAdapterNumberFromTheBusDevice() {
        XCTAssertEqual(I2CKernelDriver.adapterNumber(of: "/dev/i2c-1"), 1)
        XCTAssertEqual(I2CKernelDriver.adapterNumber(of: "/dev/i2c-22"), 22)
        XCTAssertNil(I2CKernelDriver.adapterNumber(of: "/dev/null"))
    }

    func testBoundDriverIsNamedWithItsDevice() throws {
        try stage(device: "1-0068", name: "mpu6050", driver: "inv-mpu6050-i2c")
        let binding = I2CKernelDriver.binding(bus: "/dev/i2c-1", address: 0x68, sysfsRoot: sysfs)
        XCTAssertEqual(binding, I2CDriverBinding(driver: "inv-mpu6050-i2c", device: "1-0068", deviceName: "mpu6050",
                                                 bus: "/dev/i2c-1", address: 0x68))
        XCTAssertThrowsError(try I2CKernelDriver.requireNoDriver(bus: "/dev/i2c-1", address: 0x68, sysfsRoot: sysfs)) { error in
            XCTAssertEqual(error as? KernelDriverBoundError, KernelDriverBoundError(binding: binding!))
            XCTAssertEqual((error as? KernelDriverBoundError)?.binding.driver, "inv-mpu6050-i2c")
        }
        // Another address and another bus are free.
        XCTAssertNil(I2CKernelDriver.binding(bus: "/dev/i2c-1", address: 0x69, sysfsRoot: sysfs))
        XCTAssertNil(I2CKernelDriver.binding(bus: "/dev/i2c-0", address: 0x68, sysfsRoot: sysfs))
    }

    func testNoDeviceFolderIsNoFinding() throws {
        XCTAssertNil(I2CKernelDriver.binding(bus: "/dev/i2c-1", address: 0x68, sysfsRoot: sysfs))
        XCTAssertNoThrow(try I2CKernelDriver.requireNoDriver(bus: "/dev/i2c-1", address: 0x68, sysfsRoot: sysfs))
    }

    func testDeviceWithoutDriverLinkIsNoFinding() throws {
        // A device declared but left unbound (its driver not loaded, or unbound by hand).
        try stage(device: "0-0018", name: "lis3dh", driver: nil)
        XCTAssertNil(I2CKernelDriver.binding(bus: "/dev/i2c-0", address: 0x18, sysfsRoot: sysfs))
        XCTAssertNoThrow(try I2CKernelDriver.requireNoDriver(bus: "/dev/i2c-0", address: 0x18, sysfsRoot: sysfs))
    }
}

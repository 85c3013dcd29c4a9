#if canImport(Glibc)
import Glibc
#endif
import XCTest
import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
@testable import TiltboardCLI

/// The one table from error categories to exit codes, and the category each layer's errors name.
final class ExitTableTests: XCTestCase {
    func testEveryCategoryHasItsSysexitsCode() {
        let expected: [ErrorCategory: Int32] = [
            .invalidRequest: 64, .invalidData: 65, .unavailable: 69, .internalFailure: 70,
            .cannotCreate: 73, .io: 74, .temporary: 75, .permissionDenied: 77,
        ]
        XCTAssertEqual(Set(ErrorCategory.allCases), Set(expected.keys))
        for category in ErrorCategory.allCases {
            XCTAssertEqual(SysExit.code(for: category), expected[category], "\(category)")
        }
    }

    func testEachLayersErrorsExitByTheirKind() {
        let cases: [(Error, Int32)] = [
            (I2CError(kind: .noSuchBus, device: "/dev/i2c-9"), 69),
            (I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x68), 69),
            (I2CError(kind: .permissionDenied, device: "/dev/i2c-1"), 77),
            (I2CError(kind: .bus, device: "/dev/i2c-1"), 74),
            (I2CError(kind: .noAcknowledgeData, device: "/dev/i2c-1", address: 0x68), 74),
            (SensorError.wrongChip(found: 0x42, address: 0x68, bus: "/dev/i2c-1", expected: "0x68"), 69),
            (SensorError.configurationLost(register: 0x6B, configured: 1, read: 0x40, bus: "simulated", address: 0x68), 74),
            (SensorError.unsupportedSetting("rate"), 64),
            (GPIOError(kind: .lineBusy, message: "m"), 69),
            (CalibrationError.singularFit, 75),
            (CalibrationProcedureError("m"), 75),
            (BoardFileError(file: "b.json", key: "sensor", message: "m"), 65),
            (BoardFileError(file: "b.json", key: "(file)", message: "m", errno: EACCES), 77),
            (ProfileError(path: "p.json", kind: .corrupt, detail: "m"), 65),
            (ProfileError(path: "p.json", kind: .permissionDenied, detail: "m"), 77),
            (OutputFileError(path: "o.csv", kind: .exists, message: "m"), 73),
            (OutputFileError(path: "o.csv", kind: .interrupted, message: "m"), 74),
            (AtomicFileError(path: "p.json", operation: "rename", errno: EROFS), 77),
            (AtomicFileError(path: "p.json", operation: "rename", errno: ENOSPC), 74),
            (CLIError(message: "m", category: .cannotCreate), 73),
        ]
        for (error, code) in cases {
            let status = exitStatus(for: error)
            XCTAssertEqual(status?.code, code, "\(error)")
            XCTAssertEqual(status?.message, Advice.message(for: error))
        }
    }

    func testTheToolAddsTheFixToTheLibrarysLine() {
        let lines: [(Error, String)] = [
            (I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x69),
             "I²C no device answers at 0x69 on /dev/i2c-1: check the wiring (SDA, SCL, 3V3, GND) and the address pin (MPU-6050 AD0: 0x68 low / 0x69 high; ADXL345 ALT ADDRESS: 0x53 low / 0x1D high; LIS3DH SDO/SA0: 0x18 low / 0x19 high), then try `tiltboard probe`"),
            (I2CError(kind: .noSuchBus, device: "/dev/i2c-7", errno: ENOENT, detail: "No such file or directory"),
             "I²C bus /dev/i2c-7 does not exist (errno 2 No such file or directory): enable I²C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt, then reboot) or check the bus number with `ls /dev/i2c-*`"),
            (I2CError(kind: .permissionDenied, device: "/dev/i2c-1"),
             "I²C bus /dev/i2c-1: permission denied: install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/) and join the i2c group (sudo usermod -aG i2c $USER, then log in again)"),
            (I2CError(kind: .timeout, device: "/dev/i2c-1", address: 0x68),
             "I²C timeout on /dev/i2c-1 (address 0x68): check the wiring and pull-ups, shorten the cable or lower the bus speed (dtparam=i2c_arm_baudrate=100000)"),
            (SensorError.wrongChip(found: 0x42, address: 0x68, bus: "/dev/i2c-1", expected: "0x68 (MPU-6050)"),
             "found 0x42 at 0x68 on /dev/i2c-1, expected 0x68 (MPU-6050): check the board file's chip and address, or run `tiltboard probe`"),
            // Errors whose own line says what to do get nothing added.
            (SensorError.unsupportedSetting("rateHz 0 is below 4 Hz"), "rateHz 0 is below 4 Hz"),
            (BoardFileError(file: "b.json", key: "sensor.address", message: "0x20 is not an address of the MPU-6050"),
             "board file b.json: sensor.address: 0x20 is not an address of the MPU-6050"),
        ]
        for (error, line) in lines {
            XCTAssertEqual(exitStatus(for: error)?.message, line)
        }
    }

    func testAnErrorOfAnotherPackageIsLeftToArgumentParser() {
        struct Foreign: Error {}
        XCTAssertNil(exitStatus(for: Foreign()))
    }
}

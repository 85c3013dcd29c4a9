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
            XCTAssertEqual(status?.message, "\(error)")
        }
    }

    func testAnErrorOfAnotherPackageIsLeftToArgumentParser() {
        struct Foreign: Error {}
        XCTAssertNil(exitStatus(for: Foreign()))
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardServer
import TiltboardSimulator
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

    func testTheReferencesTableOfFileProblemsIsTheOneInTheCode() throws {
        let readme = try String(contentsOfFile: packageRoot + "/docs/commands.md", encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "<!-- file-problems -->\n"))
        let end = try XCTUnwrap(readme.range(of: "<!-- /file-problems -->", range: start.upperBound..<readme.endIndex))
        let rows = readme[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init).dropFirst(2)
        XCTAssertEqual(Array(rows), FileProblem.allCases.map { "| \($0.summary) | \(SysExit.code(for: $0.category)) |" })
        // Each problem its own words and the table's exit status, whatever the file.
        let expected: [FileProblem: Int32] = [.missing: 65, .tooLarge: 65, .notRegular: 73, .permissionDenied: 77, .readFailed: 74]
        for problem in FileProblem.allCases { XCTAssertEqual(SysExit.code(for: problem.category), expected[problem], "\(problem)") }
        XCTAssertEqual(Set(FileProblem.allCases.map(\.summary)).count, FileProblem.allCases.count)
    }

    func testEachLayersErrorsExitByTheirKind() {
        let wiring = "check the wiring (SDA, SCL, 3V3, GND) and the address pin (MPU-6050 AD0: 0x68 low / 0x69 high; ADXL345 ALT ADDRESS: 0x53 low / 0x1D high; LIS3DH SDO/SA0: 0x18 low / 0x19 high; LSM9DS1 SDO_A/G: 0x6A low / 0x6B high; ICM-20948 AD0: 0x68 low / 0x69 high), then try `tiltboard probe`"
        // Each error, its exit status, and the fix the tool adds to its line (nil: none).
        let cases: [(Error, Int32, String?)] = [
            (I2CError(kind: .noSuchBus, device: "/dev/i2c-9"), 69, "enable I²C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt, then reboot) or check the bus number with `ls /dev/i2c-*`"),
            (I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x68), 69, wiring),
            (I2CError(kind: .permissionDenied, device: "/dev/i2c-1"), 77, "install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the i2c group (sudo usermod -aG i2c $USER, then log in again)"),
            (I2CError(kind: .bus, device: "/dev/i2c-1"), 74, "check the wiring and pull-ups, shorten the cable or lower the bus speed (dtparam=i2c_arm_baudrate=100000)"),
            (I2CError(kind: .noAcknowledgeData, device: "/dev/i2c-1", address: 0x68), 74, wiring),
            (SensorError.wrongChip(found: 0x42, address: 0x68, bus: "/dev/i2c-1", expected: ExpectedChip(id: 0x68, part: "MPU-6050")), 69, "check the board file's chip and address, or run `tiltboard probe`"),
            (SensorError.configurationLost(register: 0x6B, configured: 1, read: 0x40, bus: "simulated", address: 0x68), 74, nil),
            (SensorError.unsupportedSetting(.sampleRate(hz: 0), chip: "MPU-6050", allowed: .positiveRate), 64, nil),
            (GPIOError(.lineBusy(line: "17", consumer: nil)), 69, nil),
            (CalibrationError.singularFit, 75, nil),
            (CalibrationProcedureError(problem: .sensorCrossAxis), 75, nil),
            (BoardFileError(file: "b.json", key: "sensor", problem: .missing(.sensor)), 65, nil),
            (BoardFileError(file: "b.json", key: "", problem: .unreadable(errno: EACCES), errno: EACCES), 77, nil),
            (ProfileError(path: "p.json", kind: .corrupt, problem: .invalidJSON), 65, nil),
            (ProfileError(path: "p.json", kind: .permissionDenied, problem: .unreadable(errno: EACCES)), 77, nil),
            (OutputFileError(path: "o.csv", problem: .keepsChanging), 73, nil),
            (OutputFileError(path: "o.csv", problem: .stoppedWaitingForReader), 74, nil),
            (AtomicFileError(path: "p.json", step: .rename("t", to: "p.json"), errno: EROFS), 77, nil),
            (AtomicFileError(path: "p.json", step: .rename("t", to: "p.json"), errno: ENOSPC), 74, nil),
            (CLIError(message: "m", category: .cannotCreate), 73, nil),
            (TiltControllerSettingsError(setting: "restitution", value: 2, allowed: .zeroToOne), 64, nil),
            (HapticEffectError(.noOnTime), 64, nil),
            (MotionScriptError(.traceEmpty), 65, nil),
            (NotARegularFile(path: "b.json", kind: .folder), 73, nil),
            (FileTooLarge(path: "b.json", size: 20, limit: 10), 65, nil),
            (MotorLogError(path: "m.log", errno: EISDIR), 73, nil),
            (MotorLogError(path: "m.log", errno: EACCES), 77, nil),
            (MotorLogError(path: "none/m.log", errno: ENOENT), 73, nil),
            (ProfileError(path: "p.json", kind: .notRegularFile, problem: .notRegularFile(kind: .folder)), 73, nil),
            (ProfileError(path: "p.json", kind: .tooLarge, problem: .tooLarge(size: 9, limit: 8)), 65, nil),
            (ProfileError(path: "p.json", kind: .readFailed, problem: .unreadable(errno: EIO)), 74, nil),
            (BoardFileError(file: "b.json", key: "", problem: .notRegularFile(kind: .folder), fileProblem: .notRegular), 73, nil),
            (BoardFileError(file: "b.json", key: "simulation.trace", problem: .namedFileTooLarge(path: "t.csv", size: 9, limit: 8), fileProblem: .tooLarge), 65, nil),
            (TerminalError(.noTerminalModes(descriptor: 0), errno: ENOTTY), 74, nil),
            (SignalWatcherError(.startThread, errno: EAGAIN), 70, nil),
            (CalibrationStopped(), 75, nil),
        ]
        for (error, code, advice) in cases {
            let status = exitStatus(for: error)
            XCTAssertEqual(status?.code, code, "\(error)")
            XCTAssertEqual(status?.message, describe(error) + (advice.map { ": " + $0 } ?? ""))
        }
    }

    func testLibraryErrorsSayWhatFailedAndTheToolAddsTheFix() throws {
        XCTAssertThrowsError(try ProfileStore.decode([], path: "p.json")) { error in
            XCTAssertEqual((error as? ProfileError)?.problem, .empty)
            XCTAssertEqual(describe(error), "profile p.json: the file is empty")
            XCTAssertEqual(Advice.message(for: error),
                           "profile p.json: the file is empty (run `tiltboard calibrate` to measure a new one, or restore p.json.bak)")
        }
        XCTAssertEqual(Advice.message(for: GPIOError(.permissionDenied(path: "/dev/gpiochip0"))),
                       "GPIO chip /dev/gpiochip0: permission denied: install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the gpio group (sudo usermod -aG gpio $USER, then log in again)")
    }

    func testTheToolNamesItsOwnOptionsInTheLibrariesErrors() {
        // The libraries say what failed; the option that set it, or changes it, is the tool's to name.
        let cases: [(Error, String)] = [
            (UDPSenderError(destination: "127.0.0.1:0", problem: .portZero),
             "--udp 127.0.0.1:0: port 0 is no port anyone can listen on: choose 1…65535"),
            (OutputFileError(path: "o.csv", problem: .alreadyExists),
             "o.csv already exists: choose another name or pass --force to replace it"),
            (OutputFileError(path: "o.csv", problem: .keepsChanging),
             "o.csv keeps appearing and disappearing: choose another name"),
            (FaceTimeout(seconds: 30, remaining: [], lastFailure: nil),
             "no new face captured within 30 s; still to do: . Lay the board squarely with one of those faces up and keep it still, or allow more time with --timeout"),
            (BoardFileError(file: "b.json", key: "", problem: .noSuchFile, errno: ENOENT),
             "board file b.json: no such file (see Boards/ for examples, or omit --board to use the simulated board)"),
            (ServeTokenFileError(path: "/p/serve-token", problem: .mode(0o644)),
             "the token file /p/serve-token has mode 644, which lets others read or change it, so it is not used: chmod 600 /p/serve-token"),
            (ServeTokenFileError(path: "/p/serve-token", problem: .owner(65534, 0)),
             "the token file /p/serve-token belongs to uid 65534, not to this user (uid 0), so it is not used: remove it (rm /p/serve-token) or start with --new-token, and a new one is made"),
            (ServeTokenFileError(path: "/p/serve-token", problem: .symlinkOwner(65534, 0)),
             "the token file /p/serve-token is a symlink of uid 65534, not of this user (uid 0) or root, so it is not used: remove it (rm /p/serve-token) or start with --new-token, and a new one is made"),
            (ServeTokenFileError(path: "/p/serve-token", problem: .notAFile),
             "the token file /p/serve-token is not a regular file, so it is not used: remove it, and a new one is made"),
        ]
        for (error, line) in cases {
            XCTAssertFalse("\(error)".contains("--"), "\(error)")
            XCTAssertEqual(Advice.message(for: error), line)
        }
    }

    func testHelpNamesTheRegisteredChips() {
        // Built from the registry: the accelerometer-only chips together, the gyro and
        // thermometer on the MPU-6050 family, the LSM9DS1 and the ICM-20948.
        XCTAssertTrue(RecordCommand.configuration.discussion.contains("`t,ax,ay,az,gx,gy,gz` (MPU-6050, LSM9DS1 and ICM-20948) or `t,ax,ay,az` (ADXL345 and LIS3DH)"))
        XCTAssertTrue(ReadCommand.configuration.discussion.contains("die temperature in °C (MPU-6050, LSM9DS1 and ICM-20948)"))
        XCTAssertTrue(CalibrateCommand.configuration.discussion.contains("(and the gyro bias on the MPU-6050, LSM9DS1 and ICM-20948)"))
    }

    func testEveryPublicErrorTypeNamesItsCategory() throws {
        // Every public or package type of the package that conforms to Error, by its declaration, and every
        // type declared or extended as CategorizedError: a public error without a category would
        // leave the tool through ArgumentParser with exit 1.
        let sources = packageRoot + "/Sources"
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        let declaration = try NSRegularExpression(pattern: #"(?:public|package) (?:final )?(?:struct|enum|class) (\w+)\s*:\s*([^{]*)\{"#)
        let extensionLine = try NSRegularExpression(pattern: #"extension (\w+)\s*:\s*[^{]*\bCategorizedError\b"#)
        var errors: Set<String> = [], categorized: Set<String> = []
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for match in declaration.matches(in: text, range: range) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                let conformances = text[Range(match.range(at: 2), in: text)!].split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                if conformances.contains("Error") || conformances.contains("CategorizedError") { errors.insert(name) }
                if conformances.contains("CategorizedError") { categorized.insert(name) }
            }
            for match in extensionLine.matches(in: text, range: range) {
                categorized.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        XCTAssertGreaterThan(errors.count, 20, "the scan found the package's errors")
        XCTAssertEqual(errors.subtracting(categorized).sorted(), [], "public errors without a category")
    }

    func testTheToolAddsTheFixToTheLibrarysLine() {
        let lines: [(Error, String)] = [
            (I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x69),
             "I²C no device answers at 0x69 on /dev/i2c-1: check the wiring (SDA, SCL, 3V3, GND) and the address pin (MPU-6050 AD0: 0x68 low / 0x69 high; ADXL345 ALT ADDRESS: 0x53 low / 0x1D high; LIS3DH SDO/SA0: 0x18 low / 0x19 high; LSM9DS1 SDO_A/G: 0x6A low / 0x6B high; ICM-20948 AD0: 0x68 low / 0x69 high), then try `tiltboard probe`"),
            (I2CError(kind: .noSuchBus, device: "/dev/i2c-7", errno: ENOENT, detail: "No such file or directory"),
             "I²C bus /dev/i2c-7 does not exist (errno 2 No such file or directory): enable I²C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt, then reboot) or check the bus number with `ls /dev/i2c-*`"),
            (I2CError(kind: .permissionDenied, device: "/dev/i2c-1"),
             "I²C bus /dev/i2c-1: permission denied: install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the i2c group (sudo usermod -aG i2c $USER, then log in again)"),
            (I2CError(kind: .timeout, device: "/dev/i2c-1", address: 0x68),
             "I²C timeout on /dev/i2c-1 (address 0x68): check the wiring and pull-ups, shorten the cable or lower the bus speed (dtparam=i2c_arm_baudrate=100000)"),
            (SensorError.wrongChip(found: 0x42, address: 0x68, bus: "/dev/i2c-1", expected: ExpectedChip(id: 0x68, part: "MPU-6050")),
             "found 0x42 at 0x68 on /dev/i2c-1, expected 0x68 (MPU-6050): check the board file's chip and address, or run `tiltboard probe`"),
            // Errors whose own line says what to do get nothing added.
            (SensorError.unsupportedSetting(.sampleRate(hz: 0), chip: "MPU-6050", allowed: .positiveRate),
             "MPU-6050 cannot use a sample rate of 0.0 Hz: give a positive rate in Hz"),
            (BoardFileError(file: "b.json", key: "sensor.address", problem: .notAllowed(value: "32", allowed: .address(part: "MPU-6050", addresses: [0x68, 0x69]))),
             "board file b.json: sensor.address: 32 is not allowed (the MPU-6050 answers at 0x68 or 0x69)"),
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

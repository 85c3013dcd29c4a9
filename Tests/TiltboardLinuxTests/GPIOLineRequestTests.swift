import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

/// Requests through the real libgpiod against directories without GPIO chips; the behaviour on a
/// live chip is checked under QEMU with gpio-sim by `Tests/hil/run-hil.sh`.
final class GPIOLineRequestTests: XCTestCase {
    func testLabelLookupInAnEmptyDirectoryReportsNoChips() throws {
        let dir = try TemporaryDirectory()
        let error = outputError(chip: "pinctrl-bcm2711", directory: dir.path)
        XCTAssertEqual(error?.kind, .chipNotFound)
        XCTAssertEqual(error?.problem, .noChips(spec: "pinctrl-bcm2711", directory: dir.path))
    }

    func testEntriesThatAreNotChipsAreSkipped() throws {
        let dir = try TemporaryDirectory()
        try dir.createFile("gpiochip0")
        let error = outputError(chip: "pinctrl-bcm2711", directory: dir.path)
        XCTAssertEqual(error?.kind, .chipNotFound)
        XCTAssertEqual(error?.problem, .noChips(spec: "pinctrl-bcm2711", directory: dir.path))
    }

    func testAPathThatIsNotAChipIsRejected() throws {
        let dir = try TemporaryDirectory()
        try dir.createFile("gpiochip0")
        let error = outputError(chip: dir.path + "/gpiochip0", directory: dir.path)
        XCTAssertEqual(error?.kind, .chipNotFound)
        guard case let .notAChip(path, code)? = error?.problem else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(path, dir.path + "/gpiochip0")
        XCTAssertNotEqual(code, 0)
    }

    func testAMissingDeviceNameIsNotFound() throws {
        let dir = try TemporaryDirectory()
        let error = outputError(chip: "gpiochip3", directory: dir.path)
        XCTAssertEqual(error?.kind, .chipNotFound)
        XCTAssertEqual(error?.problem, .noChips(spec: "gpiochip3", directory: dir.path))
    }

    func testInputLineUsesTheSameLookup() throws {
        let dir = try TemporaryDirectory()
        do {
            _ = try GpiodInputLine(chip: "pinctrl-bcm2711", line: .name("GPIO4"), activeLow: false,
                                   consumer: "tiltboard", deviceDirectory: dir.path)
            XCTFail("expected chipNotFound")
        } catch let error as GPIOError {
            XCTAssertEqual(error.kind, .chipNotFound)
        }
    }

    func testPublicInitializerOnAMachineWithoutGPIO() throws {
        guard GPIOChipLookup.devicePaths(in: "/dev").isEmpty else {
            throw XCTSkip("this machine has GPIO chips; the HIL test covers real chips")
        }
        XCTAssertThrowsError(try GpiodOutputLine(chip: "pinctrl-bcm2711", line: .name("GPIO17"))) { error in
            XCTAssertEqual((error as? GPIOError)?.kind, .chipNotFound)
            XCTAssertEqual((error as? GPIOError)?.problem, .noChips(spec: "pinctrl-bcm2711", directory: "/dev"), "\(error)")
        }
    }

    private func outputError(chip: String, directory: String) -> GPIOError? {
        do {
            _ = try GpiodOutputLine(chip: chip, line: .offset(17), activeLow: false, consumer: "tiltboard",
                                    deviceDirectory: directory)
            return nil
        } catch {
            return error as? GPIOError
        }
    }
}

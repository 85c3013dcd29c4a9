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
        XCTAssertEqual(error?.message.contains("no GPIO chips found in \(dir.path)"), true, error?.message ?? "no error")
    }

    func testEntriesThatAreNotChipsAreSkipped() throws {
        let dir = try TemporaryDirectory()
        try dir.createFile("gpiochip0")
        let error = outputError(chip: "pinctrl-bcm2711", directory: dir.path)
        XCTAssertEqual(error?.kind, .chipNotFound)
        XCTAssertEqual(error?.message.contains("no GPIO chips found"), true, error?.message ?? "no error")
    }

    func testAPathThatIsNotAChipIsRejected() throws {
        let dir = try TemporaryDirectory()
        try dir.createFile("gpiochip0")
        let error = outputError(chip: dir.path + "/gpiochip0", directory: dir.path)
        XCTAssertEqual(error?.kind, .chipNotFound)
        XCTAssertEqual(error?.message.hasPrefix("\(dir.path)/gpiochip0 is not a GPIO chip ("), true, error?.message ?? "no error")
    }

    func testAMissingDeviceNameIsNotFound() throws {
        let dir = try TemporaryDirectory()
        let error = outputError(chip: "gpiochip3", directory: dir.path)
        XCTAssertEqual(error?.kind, .chipNotFound)
        XCTAssertEqual(error?.message.hasPrefix("GPIO chip gpiochip3 not found: no GPIO chips found"), true, error?.message ?? "no error")
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
            XCTAssertEqual((error as? GPIOError)?.message.contains("no GPIO chips found in /dev"), true, "\(error)")
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

import Foundation
import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

/// The motor line's failures as the CLI prints them, through the real libgpiod on device folders
/// that hold no GPIO chip (busy lines and real chips are covered by the gpio-sim HIL run).
final class GPIOErrorPathTests: XCTestCase {
    func testACharacterDeviceThatIsNotAChipSaysHowToNameAChip() {
        XCTAssertThrowsError(try GpiodOutputLine(chip: "/dev/null", line: .offset(17), activeLow: false,
                                                 consumer: "tiltboard", deviceDirectory: "/dev")) { error in
            let e = error as? GPIOError
            XCTAssertEqual(e?.kind, .chipNotFound)
            XCTAssertEqual(e?.message.hasPrefix("/dev/null is not a GPIO chip ("), true, "\(error)")
            XCTAssertEqual(e?.message.hasSuffix("name the chip by label (e.g. pinctrl-bcm2711) or as /dev/gpiochipN"), true, "\(error)")
        }
    }

    func testLookalikeEntriesAreNotListedAsChips() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/gpiochip1", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/gpiochip2", withDestinationPath: "/dev/null")
        try dir.createFile("gpiochip3")
        XCTAssertTrue(GPIOChipInfo.available(in: dir.path).isEmpty)
        XCTAssertThrowsError(try GpiodOutputLine(chip: "pinctrl-rp1", line: .name("GPIO17"), activeLow: false,
                                                 consumer: "tiltboard", deviceDirectory: dir.path)) { error in
            XCTAssertEqual("\(error)",
                "GPIO chip pinctrl-rp1 not found: no GPIO chips found in \(dir.path); on a Raspberry Pi they are always there (check `ls /dev/gpiochip*`), elsewhere the kernel needs a GPIO driver")
        }
    }

    /// The CLI prints `description` (and its advice, where it has one): it must be the whole message.
    func testEveryMessageIsPrintedWhole() {
        let chip = GPIOChipInfo(name: "gpiochip0", label: "pinctrl-bcm2711", path: "/dev/gpiochip0", lineCount: 58)
        let errors: [GPIOError] = [
            .chipNotFound("pinctrl-rp1", present: [chip]),
            .permissionDenied("/dev/gpiochip0"),
            .lineBusy("pinctrl-bcm2711 line 17 (GPIO17)", consumer: "pigpio"),
            .lineNotFound(.offset(99), on: chip),
        ]
        for error in errors {
            XCTAssertEqual("\(error)", error.message)
            XCTAssertFalse(error.message.contains("\n"), error.message)
        }
        XCTAssertTrue("\(errors[0])".contains("chips present: gpiochip0 [pinctrl-bcm2711, 58 lines]"), "\(errors[0])")
        XCTAssertEqual("\(errors[1])", "GPIO chip /dev/gpiochip0: permission denied")  // the CLI adds the udev rule
        XCTAssertTrue("\(errors[2])".contains("in use by \"pigpio\""), "\(errors[2])")
    }
}

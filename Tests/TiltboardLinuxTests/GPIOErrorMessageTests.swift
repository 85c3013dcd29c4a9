import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

final class GPIOErrorMessageTests: XCTestCase {
    let pi4 = GPIOChipInfo(name: "gpiochip0", label: "pinctrl-bcm2711", path: "/dev/gpiochip0", lineCount: 58)
    let expander = GPIOChipInfo(name: "gpiochip1", label: "raspberrypi-exp-gpio", path: "/dev/gpiochip1", lineCount: 8)

    func testChipNotFoundWithoutChipsSaysSo() {
        let error = GPIOError.chipNotFound("pinctrl-rp1", present: [])
        XCTAssertEqual(error.kind, .chipNotFound)
        XCTAssertTrue(error.message.hasPrefix("GPIO chip pinctrl-rp1 not found: no GPIO chips found in /dev;"), error.message)
        XCTAssertTrue(error.message.contains("ls /dev/gpiochip*"), error.message)
    }

    func testChipNotFoundListsEveryChipWithItsLabel() {
        let error = GPIOError.chipNotFound("pinctrl-rp1", present: [pi4, expander])
        XCTAssertEqual(error.kind, .chipNotFound)
        XCTAssertTrue(error.message.contains(
            "chips present: gpiochip0 [pinctrl-bcm2711, 58 lines], gpiochip1 [raspberrypi-exp-gpio, 8 lines];"), error.message)
        XCTAssertTrue(error.message.contains("Pi 5: pinctrl-rp1"), error.message)
        XCTAssertTrue(error.message.contains("Pi 4: pinctrl-bcm2711"), error.message)
        XCTAssertTrue(error.message.contains("older Pis: pinctrl-bcm2835"), error.message)
    }

    func testPermissionDeniedNamesTheChipAndLeavesTheFixToTheProgram() {
        // The udev rule and the gpio group are the command-line tool's advice (ExitTableTests).
        let error = GPIOError.permissionDenied("/dev/gpiochip0")
        XCTAssertEqual(error.kind, .permissionDenied)
        XCTAssertEqual(error.message, "GPIO chip /dev/gpiochip0: permission denied")
    }

    func testLineBusyNamesTheConsumer() {
        let error = GPIOError.lineBusy("pinctrl-bcm2711 line 17 (GPIO17)", consumer: "gpioset")
        XCTAssertEqual(error.kind, .lineBusy)
        XCTAssertTrue(error.message.hasPrefix("GPIO pinctrl-bcm2711 line 17 (GPIO17) is in use by \"gpioset\";"), error.message)
        let anonymous = GPIOError.lineBusy("pinctrl-bcm2711 line 17 (GPIO17)", consumer: nil)
        XCTAssertTrue(anonymous.message.contains("in use by another program or a kernel driver"), anonymous.message)
    }

    func testLineNotFoundGivesTheValidRangeOrTheListingCommand() {
        let byOffset = GPIOError.lineNotFound(.offset(60), on: pi4)
        XCTAssertEqual(byOffset.kind, .lineNotFound)
        XCTAssertTrue(byOffset.message.contains("pinctrl-bcm2711 (gpiochip0) has no line 60: its lines are 0…57"), byOffset.message)
        let byName = GPIOError.lineNotFound(.name("GPIO99"), on: pi4)
        XCTAssertTrue(byName.message.contains("has no line named GPIO99"), byName.message)
        XCTAssertTrue(byName.message.contains("`gpioinfo gpiochip0`"), byName.message)
    }

    func testIOErrorQuotesTheKernel() {
        let error = GPIOError.io("setting the level", "pinctrl-bcm2711 line 17 (GPIO17)", GPIOErrno(code: 16))
        XCTAssertEqual(error.kind, .io)
        XCTAssertEqual(error.message,
            "GPIO pinctrl-bcm2711 line 17 (GPIO17): setting the level failed: Device or resource busy (errno 16); check that the chip still exists (`gpiodetect`) and retry")
    }
}

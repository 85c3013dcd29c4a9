import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

/// Every GPIO failure of the Linux layer is a kind with the fields its message needs (the
/// sentences are the command line's: ErrorWordingTests).
final class GPIOErrorMessageTests: XCTestCase {
    let pi4 = GPIOChipInfo(name: "gpiochip0", label: "pinctrl-bcm2711", path: "/dev/gpiochip0", lineCount: 58)
    let expander = GPIOChipInfo(name: "gpiochip1", label: "raspberrypi-exp-gpio", path: "/dev/gpiochip1", lineCount: 8)

    func testChipNotFoundWithoutChipsSaysSo() {
        let error = GPIOError.chipNotFound("pinctrl-rp1", present: [])
        XCTAssertEqual(error.kind, .chipNotFound)
        XCTAssertEqual(error.problem, .noChips(spec: "pinctrl-rp1", directory: "/dev"))
    }

    func testChipNotFoundListsEveryChipWithItsLabel() {
        let error = GPIOError.chipNotFound("pinctrl-rp1", present: [pi4, expander])
        XCTAssertEqual(error.kind, .chipNotFound)
        XCTAssertEqual(error.problem, .chipNotFound(spec: "pinctrl-rp1", present: [
            GPIOChipSummary(name: "gpiochip0", label: "pinctrl-bcm2711", lineCount: 58),
            GPIOChipSummary(name: "gpiochip1", label: "raspberrypi-exp-gpio", lineCount: 8),
        ]))
    }

    func testPermissionDeniedNamesTheChip() {
        let error = GPIOError.permissionDenied("/dev/gpiochip0")
        XCTAssertEqual(error.kind, .permissionDenied)
        XCTAssertEqual(error.problem, .permissionDenied(path: "/dev/gpiochip0"))
    }

    func testLineBusyNamesTheConsumer() {
        let error = GPIOError.lineBusy("pinctrl-bcm2711 line 17 (GPIO17)", consumer: "gpioset")
        XCTAssertEqual(error.kind, .lineBusy)
        XCTAssertEqual(error.problem, .lineBusy(line: "pinctrl-bcm2711 line 17 (GPIO17)", consumer: "gpioset"))
        let anonymous = GPIOError.lineBusy("pinctrl-bcm2711 line 17 (GPIO17)", consumer: nil)
        XCTAssertEqual(anonymous.problem, .lineBusy(line: "pinctrl-bcm2711 line 17 (GPIO17)", consumer: nil))
    }

    func testLineNotFoundCarriesTheChip() {
        let byOffset = GPIOError.lineNotFound(.offset(60), on: pi4)
        XCTAssertEqual(byOffset.kind, .lineNotFound)
        XCTAssertEqual(byOffset.problem, .noLineOffset(60, chip: pi4.summary))
        let byName = GPIOError.lineNotFound(.name("GPIO99"), on: pi4)
        XCTAssertEqual(byName.kind, .lineNotFound)
        XCTAssertEqual(byName.problem, .noLineNamed("GPIO99", chip: pi4.summary))
        XCTAssertEqual(pi4.summary, GPIOChipSummary(name: "gpiochip0", label: "pinctrl-bcm2711", lineCount: 58))
    }

    func testIOErrorKeepsTheKernelsErrno() {
        let error = GPIOError.io(.setLevel, "pinctrl-bcm2711 line 17 (GPIO17)", GPIOErrno(code: 16))
        XCTAssertEqual(error.kind, .io)
        XCTAssertEqual(error.problem, .failed(.setLevel, line: "pinctrl-bcm2711 line 17 (GPIO17)", errno: 16))
    }

    /// A library error describes itself without a sentence: its kind and fields, on one line.
    func testTheDescriptionIsTheKindAndFieldsOnOneLine() {
        let error = GPIOError.permissionDenied("/dev/gpiochip0")
        XCTAssertEqual("\(error)", "GPIOError(permissionDenied(path: \"/dev/gpiochip0\"))")
    }
}

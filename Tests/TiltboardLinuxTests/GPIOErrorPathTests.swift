import Foundation
import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

/// The motor line's failures as the CLI prints them, through the real libgpiod on device folders
/// that hold no GPIO chip (busy lines and real chips are covered by the gpio-sim HIL run).
final class GPIOErrorPathTests: XCTestCase {
    func testACharacterDeviceThatIsNotAChipIsSaidToBeNoChip() {
        XCTAssertThrowsError(try GpiodOutputLine(chip: "/dev/null", line: .offset(17), activeLow: false,
                                                 consumer: "tiltboard", deviceDirectory: "/dev")) { error in
            let e = error as? GPIOError
            XCTAssertEqual(e?.kind, .chipNotFound)
            guard case let .notAChip(path, code)? = e?.problem else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/dev/null")
            XCTAssertNotEqual(code, 0)
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
            XCTAssertEqual((error as? GPIOError)?.problem, .noChips(spec: "pinctrl-rp1", directory: dir.path))
        }
    }
}

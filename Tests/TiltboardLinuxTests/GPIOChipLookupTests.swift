import XCTest
@testable import TiltboardLinux

final class GPIOChipLookupTests: XCTestCase {
    func testChipStringsAreReadAsPathNameNumberOrLabel() {
        XCTAssertEqual(GPIOChipLookup.parse("pinctrl-bcm2711"), .label("pinctrl-bcm2711"))
        XCTAssertEqual(GPIOChipLookup.parse("pinctrl-rp1"), .label("pinctrl-rp1"))
        XCTAssertEqual(GPIOChipLookup.parse("gpiochip0"), .deviceName("gpiochip0"))
        XCTAssertEqual(GPIOChipLookup.parse("gpiochip12"), .deviceName("gpiochip12"))
        XCTAssertEqual(GPIOChipLookup.parse("4"), .deviceName("gpiochip4"))
        XCTAssertEqual(GPIOChipLookup.parse("/dev/gpiochip4"), .path("/dev/gpiochip4"))
        XCTAssertEqual(GPIOChipLookup.parse("gpiochip"), .label("gpiochip"))
        XCTAssertEqual(GPIOChipLookup.parse("gpiochipA"), .label("gpiochipA"))
    }

    func testDevicePathsAreTheGpiochipEntriesInNumberOrder() throws {
        let dir = try TemporaryDirectory()
        for name in ["gpiochip10", "gpiochip2", "gpiochip0", "gpiomem", "gpiochipX", "i2c-1"] {
            try dir.createFile(name)
        }
        XCTAssertEqual(GPIOChipLookup.devicePaths(in: dir.path),
                       [dir.path + "/gpiochip0", dir.path + "/gpiochip2", dir.path + "/gpiochip10"])
    }

    func testAMissingDirectoryHasNoChips() {
        XCTAssertEqual(GPIOChipLookup.devicePaths(in: "/nonexistent-tiltboard-dir"), [])
        XCTAssertEqual(GPIOChipInfo.available(in: "/nonexistent-tiltboard-dir"), [])
    }

    func testChipDescriptionNamesNumberLabelAndSize() {
        let chip = GPIOChipInfo(name: "gpiochip0", label: "pinctrl-bcm2711", path: "/dev/gpiochip0", lineCount: 58)
        XCTAssertEqual(chip.description, "gpiochip0 [pinctrl-bcm2711, 58 lines]")
    }
}

/// A scratch directory removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path + "/tiltboard-gpio-\(UInt64.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
        path = base
    }

    func createFile(_ name: String) throws {
        guard FileManager.default.createFile(atPath: path + "/" + name, contents: Data()) else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

import Foundation
import XCTest

final class UdevRulesTests: XCTestCase {
    func testRulesGiveI2CAndGPIONodesToTheirGroupsAndNothingIsWorldWritable() throws {
        let text = try String(contentsOfFile: packageRoot + "/udev/60-tiltboard.rules", encoding: .utf8)
        let rules = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        XCTAssertEqual(rules.count, 3)
        func field(_ rule: String, _ key: String) -> String? {
            for part in rule.components(separatedBy: ", ") {
                for op in ["==", "="] where part.hasPrefix(key + op) {
                    return String(part.dropFirst(key.count + op.count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
            return nil
        }
        let i2c = try XCTUnwrap(rules.first { field($0, "SUBSYSTEM") == "i2c-dev" })
        XCTAssertEqual(field(i2c, "GROUP"), "i2c")
        XCTAssertEqual(field(i2c, "MODE"), "0660")
        let gpio = try XCTUnwrap(rules.first { field($0, "KERNEL")?.hasPrefix("gpiochip") == true })
        XCTAssertEqual(field(gpio, "SUBSYSTEM"), "gpio")
        XCTAssertEqual(field(gpio, "GROUP"), "gpio")
        XCTAssertEqual(field(gpio, "MODE"), "0660")
        let uinput = try XCTUnwrap(rules.first { field($0, "KERNEL") == "uinput" })
        XCTAssertEqual(field(uinput, "SUBSYSTEM"), "misc")
        XCTAssertEqual(field(uinput, "GROUP"), "uinput")
        XCTAssertEqual(field(uinput, "MODE"), "0660")
        for rule in rules {
            let mode = try XCTUnwrap(field(rule, "MODE").flatMap { Int($0, radix: 8) }, rule)
            XCTAssertEqual(mode & 0o007, 0, "world access in: \(rule)")
        }
        XCTAssertTrue(text.contains("sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger"))
        XCTAssertTrue(text.contains("sudo groupadd -f i2c; sudo groupadd -f gpio; sudo usermod -aG i2c,gpio $USER"))
        XCTAssertTrue(text.contains("sudo groupadd -f uinput; sudo usermod -aG uinput $USER"))
    }
}

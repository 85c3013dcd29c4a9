import Foundation
import XCTest
import TiltboardCommands
import TiltboardDrivers
@testable import TiltboardCLI

/// `probe --all-buses` on a staged sysfs, and `--write-boards` on the simulated bus.
final class ProbeAllBusesCommandTests: XCTestCase {
    func testProbeAllBusesNamesEachBusAndItsMultiplexerChannel() throws {
        let folder = try makeScratchFolder(self)
        let sysfs = folder + "/sys"
        for (n, name) in [(90, "bcm2835 (i2c@7e804000)"), (91, "i2c-90-mux (chan_id 3)")] {
            let dir = sysfs + "/class/i2c-dev/i2c-\(n)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data((name + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/name"))
        }
        // /dev/i2c-90 and -91 do not exist: each bus says why it was not probed.
        let r = try CLIRunner.run(["probe", "--all-buses"], environment: ["TILTBOARD_SYSFS": sysfs])
        XCTAssertEqual(r.status, 69, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertEqual(lines[0], "/dev/i2c-90  bcm2835 (i2c@7e804000)")
        XCTAssertTrue(lines[1].hasPrefix("  not probed: "), lines[1])
        XCTAssertEqual(lines[2], "/dev/i2c-91  i2c-90-mux (chan_id 3): channel 3 of the multiplexer on /dev/i2c-90")
        XCTAssertTrue(lines[3].hasPrefix("  not probed: "), lines[3])
        XCTAssertEqual(r.stderr, "tiltboard: error: no supported chip answered on /dev/i2c-90, /dev/i2c-91: check the wiring (SDA, SCL, 3V3, GND) and that the sensor has power\n")

        let none = try CLIRunner.run(["probe", "--all-buses"], environment: ["TILTBOARD_SYSFS": folder + "/empty"])
        XCTAssertEqual(none.status, 69)
        XCTAssertTrue(none.stderr.hasPrefix("tiltboard: error: no I²C bus found ("), none.stderr)
        XCTAssertEqual(try CLIRunner.run(["probe", "--all-buses", "--all"]).status, 64)
        let both = try CLIRunner.run(["probe", "--all-buses", "--bus", "simulated"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.contains("--all-buses asks every bus; give it or --bus, not both"), both.stderr)
    }

    func testWrittenBoardFilesReadOnTheSimulatedBusAndAreNeverOverwritten() throws {
        let folder = try makeScratchFolder(self)
        let plain = try CLIRunner.run(["probe", "--bus", "simulated"])
        let r = try CLIRunner.run(["probe", "--bus", "simulated", "--write-boards", folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, plain.stdout, "the listing is today's")
        let names = ["mpu6050-simulated-0x68.json", "adxl345-simulated-0x53.json", "lis3dh-simulated-0x18.json",
                     "lsm9ds1-simulated-0x6a.json", "icm20948-simulated-0x69.json"]
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), names.sorted())
        XCTAssertEqual(r.stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: wrote ") }.count, 5, r.stderr)
        XCTAssertEqual(try String(contentsOfFile: folder + "/mpu6050-simulated-0x68.json", encoding: .utf8), """
        {
          "name": "MPU-6050 at 0x68 on simulated",
          "sensor": { "chip": "mpu6050", "bus": "simulated", "address": "0x68" }
        }

        """)
        for name in names {
            let read = try CLIRunner.run(["read", "--board", folder + "/" + name, "--count", "2", "--json"], environment: ["XDG_CONFIG_HOME": folder + "/config"])
            XCTAssertEqual(read.status, 0, "\(name): \(read.stderr)")
            XCTAssertEqual(read.stdout.split(separator: "\n").count, 2, name)
        }
        try Data("mine".utf8).write(to: URL(fileURLWithPath: folder + "/adxl345-simulated-0x53.json"))
        let again = try CLIRunner.run(["probe", "--bus", "simulated", "--write-boards", folder])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("tiltboard: kept \(folder)/adxl345-simulated-0x53.json: it exists already (not overwritten)"), again.stderr)
        XCTAssertEqual(try String(contentsOfFile: folder + "/adxl345-simulated-0x53.json", encoding: .utf8), "mine")
    }
}

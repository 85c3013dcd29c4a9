import Foundation
import XCTest
import Tiltboard
import TiltboardCore
import TiltboardDrivers
@testable import TiltboardCLI

/// `tiltboard doctor` by its output and exit code, on staged machines (`--system-root`).
final class DoctorCommandTests: XCTestCase {
    private func stagedMachine() throws -> (root: String, board: String, env: [String: String]) {
        let folder = try makeScratchFolder(self)
        let root = folder + "/root"
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: root + "/dev/i2c-1", contents: nil, attributes: [.posixPermissions: 0o600]))
        let board = folder + "/board.json"
        try Data("""
        {"name":"doctor cli","sensor":{"chip":"mpu6050","bus":"/dev/i2c-1","address":"0x68"},
         "motor":{"chip":"pinctrl-bcm2835","line":"GPIO17"}}
        """.utf8).write(to: URL(fileURLWithPath: board))
        // Readable by the unprivileged user the permission test runs as.
        for path in [folder, root, root + "/dev"] {
            try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: board)
        return (root, board, ["HOME": folder, "XDG_CONFIG_HOME": folder + "/config"])
    }

    func testBusWithoutPermissionExits77WithTheUdevFix() throws {
        let (root, board, env) = try stagedMachine()
        // Root ignores file modes: the open is refused only to an unprivileged user.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("no setpriv") }
        let out = try makeScratchFolder(self) + "/out"
        FileManager.default.createFile(atPath: out, contents: nil)
        child.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", try CLIRunner.binaryPath(),
                           "doctor", "--board", board, "--system-root", root]
        child.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        child.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        try child.run()
        child.waitUntilExit()
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(child.terminationStatus, 77, text)
        XCTAssertEqual(lines.first, "✓ I²C enabled: /dev/i2c-1 is present")
        XCTAssertTrue(lines.contains("✗ I²C permission: /dev/i2c-1: Permission denied — fix: install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the i2c group (sudo usermod -aG i2c $USER, then log in again)"), text)
        // The motor line fails too (no GPIO chip staged), but the first failure sets the code.
        XCTAssertTrue(lines.contains { $0.hasPrefix("✗ motor line: GPIO chip pinctrl-bcm2835 not found") }, text)
        XCTAssertEqual(lines.last, "doctor: 2 of 7 checks failed")
    }

    func testJSONReportsEachCheckAndTheExitCode() throws {
        let (root, board, env) = try stagedMachine()
        try FileManager.default.removeItem(atPath: root + "/dev/i2c-1")
        let r = try CLIRunner.run(["doctor", "--board", board, "--system-root", root, "--json"], environment: env)
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stdout.filter { $0 == "\n" }.count, 1, "one line")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["exitCode"] as? Int, 69)
        let checks = try XCTUnwrap(object["checks"] as? [[String: Any]])
        XCTAssertEqual(checks.map { $0["id"] as? String }, ["i2c-enabled", "motor-line", "interrupt-line", "realtime", "profile"])
        XCTAssertEqual(checks[0]["status"] as? String, "fail")
        XCTAssertEqual(checks[0]["cause"] as? String, "unavailable")
        XCTAssertEqual(checks[0]["detail"] as? String, "I²C enabled: /dev/i2c-1 not found (no /dev/i2c-* at all)")
        XCTAssertEqual(checks[4]["status"] as? String, "skip")
        XCTAssertEqual(checks[4]["detail"] as? String, "profile: none at \(env["XDG_CONFIG_HOME"]!)/tiltboard/profiles/doctor-cli.json yet")
    }

    func testAKernelDriverOwningTheSensorExits69WithTheOverlayAndUnbindFix() throws {
        let (root, board, env) = try stagedMachine()
        let fm = FileManager.default
        try fm.setAttributes([.posixPermissions: 0o666], ofItemAtPath: root + "/dev/i2c-1")
        let device = root + "/sys/bus/i2c/devices/1-0068"
        try fm.createDirectory(atPath: device, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/sys/bus/i2c/drivers/inv-mpu6050-i2c", withIntermediateDirectories: true)
        try Data("mpu6050\n".utf8).write(to: URL(fileURLWithPath: device + "/name"))
        try fm.createSymbolicLink(atPath: device + "/driver", withDestinationPath: "../../drivers/inv-mpu6050-i2c")
        let r = try CLIRunner.run(["doctor", "--board", board, "--system-root", root], environment: env)
        XCTAssertEqual(r.status, 69, r.stdout + r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.prefix(4), [
            "✓ I²C enabled: /dev/i2c-1 is present",
            "· bus clock: not in the device tree for i2c-1; assuming it suits 100 Hz",
            "✓ I²C permission: /dev/i2c-1 can be opened for reading and writing",
            "✗ kernel driver: inv-mpu6050-i2c owns 0x68 on /dev/i2c-1 — fix: remove dtoverlay=i2c-sensor,mpu6050 (or the older dtoverlay=mpu6050) from /boot/firmware/config.txt and reboot, or release it until the next boot with `echo 1-0068 | sudo tee /sys/bus/i2c/drivers/inv-mpu6050-i2c/unbind`",
        ], r.stdout)
        XCTAssertFalse(r.stdout.contains("sensor:"), "the sensor is not asked behind the driver's back: \(r.stdout)")
    }

    func testTheDoctorsBusComesFromTheCommandsOnePlaceBelowTheStagedRoot() throws {
        let board = BoardDescription(name: "doctor test", source: "test", sensor: .init(chip: .mpu6050, bus: "/dev/i2c-1", address: 0x68))
        let backend = try CommandBoard.backend(for: board, clock: ManualClock(), devicesBelow: "/staged")
        XCTAssertEqual((backend as? LinuxBoard)?.busPath, "/staged/dev/i2c-1")
        XCTAssertEqual((backend as? LinuxBoard)?.sysfsRoot, "/staged/sys")
        XCTAssertEqual((backend as? LinuxBoard)?.sensorAddress, 0x68)
        let simulated = try BoardDescription.load(path: packageRoot + "/Boards/simulated-adxl345.json")
        XCTAssertTrue(try CommandBoard.backend(for: simulated, clock: ManualClock(), devicesBelow: "/staged") is SimulatedBoard)
    }

    func testSimulatedBoardPasses() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["doctor", "--board", packageRoot + "/Boards/simulated-adxl345.json"],
                                  environment: ["HOME": folder, "XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").first, "✓ simulated board: no I²C bus needed")
        XCTAssertTrue(r.stdout.hasSuffix("doctor: no problems found in 5 checks\n"), r.stdout)
    }
}

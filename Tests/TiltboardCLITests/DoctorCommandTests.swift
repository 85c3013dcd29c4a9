import Foundation
import XCTest
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
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
        let folder = URL(fileURLWithPath: root).deletingLastPathComponent().path
        child.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", try CLIRunner.binary(stagedIn: folder),
                           "doctor", "--board", board, "--system-root", root]
        child.currentDirectoryURL = URL(fileURLWithPath: folder)
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
        // A key is absent when it has no value: the motor line fails without a fix, the profile is skipped with one.
        XCTAssertEqual(checks.map { Set($0.keys) }, [["id", "status", "detail", "fix", "cause"], ["id", "status", "detail", "cause"],
                                                     ["id", "status", "detail"], Set(checks[3].keys), ["id", "status", "detail", "fix"]])
        XCTAssertEqual(checks[0]["fix"] as? String, "enable I²C: sudo raspi-config → Interface Options → I2C (dtparam=i2c_arm=on), then reboot; elsewhere sudo modprobe i2c-dev")
        XCTAssertEqual(checks[2]["detail"] as? String, "interrupt line: none in the board file (only --wake-on-motion needs one)")
        XCTAssertEqual(checks[4]["fix"] as? String, "hold the board as you play and run `tiltboard calibrate`")
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

    /// Every finding as the line `doctor` prints for it, its fix from the advice table.
    func testEachFindingIsWordedAsItsLine() {
        let clock100 = "bus clock: 100 kHz (/proc/device-tree/soc/i2c@7e804000/clock-frequency)"
        let wiring = "check the wiring (SDA, SCL, 3V3, GND) and the address pin (MPU-6050 AD0: 0x68 low / 0x69 high; ADXL345 ALT ADDRESS: 0x53 low / 0x1D high; LIS3DH SDO/SA0: 0x18 low / 0x19 high; LSM9DS1 SDO_A/G: 0x6A low / 0x6B high; ICM-20948 AD0: 0x68 low / 0x69 high), then try `tiltboard probe`"
        let limits = "to allow it: add '@i2c - rtprio 50' and '@i2c - memlock unlimited' to /etc/security/limits.d/tiltboard.conf, then log in again"
        let mpu = SensorIdentity(chip: .mpu6050, part: "MPU-6500 (clone ID 0x70)", chipID: 0x70, bus: "/dev/i2c-1", address: 0x68, warning: CloneWarning(idRegister: "WHO_AM_I", part: "MPU-6500", genuinePart: "MPU-6050"))
        let adxl = SensorIdentity(chip: .adxl345, part: "ADXL345", chipID: 0xE5, bus: "/dev/i2c-1", address: 0x53)
        let binding = I2CDriverBinding(driver: "inv-mpu6050-i2c", device: "1-0068", deviceName: "mpu6050", bus: "/dev/i2c-1", address: 0x68)
        let cases: [(DoctorCheck.Status, DoctorFinding, String)] = [
            (.pass, .simulatedBoard, "✓ simulated board: no I²C bus needed"),
            (.pass, .busPresent(device: "/dev/i2c-1"), "✓ I²C enabled: /dev/i2c-1 is present"),
            (.fail, .i2cDevNotLoaded(device: "/dev/i2c-1", adapter: 1),
             "✗ I²C enabled: adapter i2c-1 exists but /dev/i2c-1 does not: the i2c-dev module is not loaded — fix: sudo modprobe i2c-dev, and add i2c-dev to /etc/modules so it loads at boot"),
            (.fail, .busMissing(device: "/dev/i2c-1", present: [], bootConfig: .init(file: "/boot/firmware/config.txt", enablesI2C: false), i2cDevLoaded: false),
             "✗ I²C enabled: /dev/i2c-1 not found (no /dev/i2c-* at all) — fix: add dtparam=i2c_arm=on to /boot/firmware/config.txt (or sudo raspi-config → Interface Options → I2C), then reboot"),
            (.fail, .busMissing(device: "/dev/i2c-1", present: [], bootConfig: .init(file: "/boot/config.txt", enablesI2C: true), i2cDevLoaded: false),
             "✗ I²C enabled: /dev/i2c-1 not found (no /dev/i2c-* at all) — fix: sudo modprobe i2c-dev, and add i2c-dev to /etc/modules so it loads at boot"),
            (.fail, .busMissing(device: "/dev/i2c-1", present: ["/dev/i2c-3", "/dev/i2c-20"], bootConfig: nil, i2cDevLoaded: true),
             "✗ I²C enabled: /dev/i2c-1 not found (present: /dev/i2c-3, /dev/i2c-20) — fix: set the board file's sensor.bus to one of: /dev/i2c-3, /dev/i2c-20"),
            (.fail, .busMissing(device: "/dev/i2c-1", present: [], bootConfig: nil, i2cDevLoaded: false),
             "✗ I²C enabled: /dev/i2c-1 not found (no /dev/i2c-* at all) — fix: enable I²C: sudo raspi-config → Interface Options → I2C (dtparam=i2c_arm=on), then reboot; elsewhere sudo modprobe i2c-dev"),
            (.skip, .busClockUnknown(adapter: 1, rateHz: 100), "· bus clock: not in the device tree for i2c-1; assuming it suits 100 Hz"),
            (.skip, .busClockUnknown(adapter: 1, rateHz: 12.5), "· bus clock: not in the device tree for i2c-1; assuming it suits 12.5 Hz"),
            (.pass, .busClock(hz: 100_000, file: "/proc/device-tree/soc/i2c@7e804000/clock-frequency", chip: .mpu6050, rateHz: 100, load: 0.156, limit: nil),
             "✓ \(clock100); 100 Hz × 14-byte samples use 16 % of the bus"),
            (.fail, .busClock(hz: 100_000, file: "/proc/device-tree/soc/i2c@7e804000/clock-frequency", chip: .mpu6050, rateHz: 1000, load: 1.56, limit: .overloaded(chipMaxHz: 400_000)),
             "✗ \(clock100); 1000 Hz × 14-byte samples use 156 % of the bus; more than half leaves no room — fix: add dtparam=i2c_arm_baudrate=400000 to /boot/firmware/config.txt and reboot, or lower sensor.rateHz"),
            (.fail, .busClock(hz: 400_000, file: "f", chip: .mpu6050, rateHz: 2000, load: 0.78, limit: .overloaded(chipMaxHz: 400_000)),
             "✗ bus clock: 400 kHz (f); 2000 Hz × 14-byte samples use 78 % of the bus; more than half leaves no room — fix: lower sensor.rateHz, or set sensor.fifo to true"),
            (.fail, .busClock(hz: 100_000, file: "/proc/device-tree/soc/i2c@7e804000/clock-frequency", chip: .adxl345, rateHz: 400, load: 0.336, limit: .rateAboveAdvice(maxRateHz: 200, fastHz: 400_000)),
             "✗ \(clock100); 400 Hz × 6-byte samples use 34 % of the bus; the ADXL345 data sheet advises at most 200 Hz below 400 kHz — fix: add dtparam=i2c_arm_baudrate=400000 to /boot/firmware/config.txt and reboot, or set sensor.rateHz to 200 or less"),
            (.fail, .busClock(hz: 1_000_000, file: "f", chip: .mpu6050, rateHz: 100, load: 0.0156, limit: .aboveChipMaximum(maxHz: 400_000)),
             "✗ bus clock: 1000 kHz (f); 100 Hz × 14-byte samples use 2 % of the bus; the MPU-6050 takes at most 400 kHz — fix: set dtparam=i2c_arm_baudrate=400000 (or lower) in /boot/firmware/config.txt and reboot"),
            (.pass, .busOpens(device: "/dev/i2c-1"), "✓ I²C permission: /dev/i2c-1 can be opened for reading and writing"),
            (.fail, .busOpenFailed(device: "/dev/i2c-1", errno: 6, reason: "No such device or address"),
             "✗ I²C permission: /dev/i2c-1: No such device or address (errno 6) — fix: check that /dev/i2c-1 is an i2c-dev node (ls -l /dev/i2c-1)"),
            (.fail, .busPermissionDenied(device: "/dev/i2c-1", reason: "Permission denied", group: "i2c", access: .noUdevRule),
             "✗ I²C permission: /dev/i2c-1: Permission denied — fix: install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the i2c group (sudo usermod -aG i2c $USER, then log in again)"),
            (.fail, .busPermissionDenied(device: "/dev/i2c-1", reason: "Permission denied", group: "i2c", access: .notInGroup),
             "✗ I²C permission: /dev/i2c-1: Permission denied — fix: join the i2c group: sudo usermod -aG i2c $USER, then log in again"),
            (.fail, .busPermissionDenied(device: "/dev/i2c-1", reason: "Permission denied", group: "i2c", access: .groupNotInThisLogin),
             "✗ I²C permission: /dev/i2c-1: Permission denied — fix: you are in the i2c group but this login is not: log out and in again (or run newgrp i2c)"),
            (.fail, .busPermissionDenied(device: "/dev/i2c-1", reason: "Permission denied", group: "i2c", access: .ownedBy(group: "gpio")),
             "✗ I²C permission: /dev/i2c-1: Permission denied — fix: the udev rule is installed but /dev/i2c-1 belongs to group gpio: sudo udevadm control --reload && sudo udevadm trigger"),
            (.pass, .noKernelDriver(address: 0x68, bus: "/dev/i2c-1"), "✓ kernel driver: none bound to 0x68 on /dev/i2c-1"),
            (.fail, .kernelDriverBound(binding, address: 0x68, bus: "/dev/i2c-1"),
             "✗ kernel driver: inv-mpu6050-i2c owns 0x68 on /dev/i2c-1 — fix: remove dtoverlay=i2c-sensor,mpu6050 (or the older dtoverlay=mpu6050) from /boot/firmware/config.txt and reboot, or release it until the next boot with `echo 1-0068 | sudo tee /sys/bus/i2c/drivers/inv-mpu6050-i2c/unbind`"),
            (.pass, .sensorFound(mpu, chip: .mpu6050, address: 0x68, bus: "/dev/i2c-1"),
             "✓ sensor: MPU-6500 (clone ID 0x70) at 0x68 on /dev/i2c-1: a clone, used as an MPU-6050 with a warning"),
            (.pass, .sensorFound(adxl, chip: .adxl345, address: 0x53, bus: "/dev/i2c-1"), "✓ sensor: ADXL345 at 0x53 on /dev/i2c-1 (ID 0xe5)"),
            (.fail, .sensorNotAnswering(I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x69), address: 0x69, bus: "/dev/i2c-1"),
             "✗ sensor: nothing answers at 0x69 on /dev/i2c-1 — fix: \(wiring)"),
            (.fail, .busFailed(I2CError(kind: .bus, device: "/dev/i2c-1", errno: 5, detail: "Input/output error")),
             "✗ sensor: I²C bus error on /dev/i2c-1 (errno 5 Input/output error) — fix: check the wiring and pull-ups, shorten the cable or lower the bus speed (dtparam=i2c_arm_baudrate=100000)"),
            (.fail, .sensorFailed(.wrongChip(found: 0x42, address: 0x68, bus: "/dev/i2c-1", expected: ExpectedChip(id: 0x68, part: "MPU-6050"))),
             "✗ sensor: found 0x42 at 0x68 on /dev/i2c-1, expected 0x68 (MPU-6050) — fix: check the board file's chip and address, or run `tiltboard probe`"),
            (.fail, .sensorOther("it broke"), "✗ sensor: it broke"),
            (.pass, .lineSimulated(.motor), "✓ motor line: simulated"),
            (.pass, .lineFree(.motor, name: "pinctrl-bcm2835 line 17 (GPIO17)"), "✓ motor line: pinctrl-bcm2835 line 17 (GPIO17) is free for the motor"),
            (.pass, .lineFree(.interrupt, name: "pinctrl-bcm2835 line 4 (GPIO4)"), "✓ interrupt line: pinctrl-bcm2835 line 4 (GPIO4) is free for the sensor's INT pin"),
            (.fail, .lineHeld(.motor, SystemInspector.LineState(name: "pinctrl-bcm2711 line 17 (GPIO17)", used: true, consumer: "gpioset")),
             "✗ motor line: GPIO pinctrl-bcm2711 line 17 (GPIO17) is in use by \"gpioset\"; stop that program (see `gpioinfo`), remove the overlay that claims the pin, or wire the motor to another line"),
            (.fail, .lineFailed(.interrupt, GPIOError(.permissionDenied(path: "/dev/gpiochip0"))),
             "✗ interrupt line: GPIO chip /dev/gpiochip0: permission denied — fix: install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the gpio group (sudo usermod -aG gpio $USER, then log in again)"),
            (.fail, .lineFailed(.motor, GPIOError(.other("m"))), "✗ motor line: m"),
            (.skip, .noInterruptLine, "· interrupt line: none in the board file (only --wake-on-motion needs one)"),
            (.pass, .realtime(.init(isRoot: true, rtprio: 0, memlockBytes: nil)),
             "✓ realtime: --realtime can have SCHED_FIFO (root, memlock unlimited)"),
            (.pass, .realtime(.init(isRoot: false, rtprio: 50, memlockBytes: 65536 * 1024)),
             "✓ realtime: --realtime can have SCHED_FIFO (rtprio 50, memlock 65536 KiB)"),
            (.skip, .realtime(.init(isRoot: false, rtprio: 0, memlockBytes: 8192 * 1024)),
             "· realtime: not permitted (rtprio 0, memlock 8192 KiB); only --realtime needs it — fix: \(limits)"),
            (.skip, .profileMissing(path: "/p.json"), "· profile: none at /p.json yet — fix: hold the board as you play and run `tiltboard calibrate`"),
            (.pass, .profileFound(path: "/p.json", createdAt: "2026-11-21T08:30:00Z", sensorCalibration: false),
             "✓ profile: /p.json (neutral pose from 2026-11-21T08:30:00Z)"),
            (.pass, .profileFound(path: "/p.json", createdAt: "2026-11-21T08:30:00Z", sensorCalibration: true),
             "✓ profile: /p.json (neutral pose from 2026-11-21T08:30:00Z, sensor calibration)"),
            (.fail, .profileUnreadable(path: "/p.json", "odd"), "✗ profile /p.json: odd"),
        ]
        for (status, finding, want) in cases {
            XCTAssertEqual(DoctorCommand.line(for: DoctorCheck(id: "x", status: status, finding: finding)).text, want)
        }
        XCTAssertThrowsError(try ProfileStore.decode([], path: "p.json")) { error in
            let line = DoctorCommand.line(for: DoctorCheck(id: "profile", status: .fail, finding: .profileInvalid(error as! ProfileError), cause: .unavailable))
            XCTAssertEqual(line, .init(id: "profile", status: .fail, detail: "profile p.json: the file is empty", fix: nil, cause: .unavailable))
        }
    }
}

import Foundation
import Tiltboard
import TiltboardCommands
import XCTest
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardSimulator

/// `Doctor` against staged machines: a temporary folder holding the /dev, /sys, /proc/device-tree
/// and /etc a Raspberry Pi would have (or lack), and a simulated bus behind the board's address.
final class DoctorTests: XCTestCase {
    private var root = ""
    private var profileDir = ""

    override func setUpWithError() throws {
        root = try makeScratchFolder(self)
        profileDir = try makeScratchFolder(self)
    }

    private func stage(_ path: String, _ bytes: [UInt8] = []) throws {
        let full = root + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }
    private func stage(_ path: String, text: String) throws { try stage(path, Array(text.utf8)) }
    private func stageDir(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: root + path, withIntermediateDirectories: true)
    }
    /// A Pi 3B's device tree: alias i2c1 → /soc/i2c@7e804000 with `clock-frequency` = hz (big-endian u32).
    private func stageClock(_ hz: UInt32) throws {
        try stage("/proc/device-tree/aliases/i2c1", text: "/soc/i2c@7e804000\0")
        try stage("/proc/device-tree/soc/i2c@7e804000/clock-frequency",
                  [UInt8(hz >> 24), UInt8(hz >> 16 & 0xFF), UInt8(hz >> 8 & 0xFF), UInt8(hz & 0xFF)])
    }

    private func board(_ chip: ChipKind = .mpu6050, rateHz: Double = 100, address: UInt8? = nil) -> BoardDescription {
        BoardDescription(name: "doctor test", source: "test",
                         sensor: .init(chip: chip, bus: "/dev/i2c-1", address: address ?? chip.addresses[0], rateHz: rateHz))
    }

    /// A doctor whose bus has `device` at `address`, or nothing at all.
    private func doctor(_ board: BoardDescription, device: ((ManualClock) -> SimulatedI2CDevice)? = nil,
                        at address: UInt8 = 0x68, opened: OpenedPaths = OpenedPaths()) -> Doctor {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        return Doctor(board: board, system: SystemInspector(root: root), profilePath: profileDir + "/p.json",
                      clock: clock, backend: StagedBus {
            opened.paths.append(board.sensor.bus)
            let bus = SimulatedI2CBus(name: "/dev/i2c-1")
            if let device { bus.attach(device(clock), at: address) }
            return bus
        })
    }

    /// A board backend whose bus is `open()`; its lines are never opened by the doctor.
    private struct StagedBus: BoardBackend {
        var open: () throws -> I2CBus
        func openBus() throws -> I2CBus { try open() }
        func openMotorLine(_ motor: BoardDescription.MotorSection) throws -> GPIOOutputLine { fatalError("not opened") }
        func openInterruptLine(_ interrupt: BoardDescription.InterruptSection) throws -> GPIOInputLine? { nil }
    }
    private final class OpenedPaths { var paths: [String] = [] }

    private func check(_ id: String, in checks: [DoctorCheck], file: StaticString = #filePath, line: UInt = #line) throws -> DoctorCheck {
        try XCTUnwrap(checks.first { $0.id == id }, "no \(id) check in \(checks.map(\.id))", file: file, line: line)
    }

    private let flat = MotionScript.builtIn(named: "flat")!

    // MARK: - I²C enabled

    func testAdapterWithoutDevNodeAsksForI2CDev() throws {
        try stageDir("/sys/bus/i2c/devices/i2c-1")
        try stageDir("/dev")
        let checks = doctor(board()).run()
        let c = try check("i2c-enabled", in: checks)
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.cause, .unavailable)
        XCTAssertEqual(c.finding, .i2cDevNotLoaded(device: "/dev/i2c-1", adapter: 1))
        XCTAssertNil(checks.first { $0.id == "sensor" }, "the sensor cannot be asked without a bus")
        XCTAssertEqual(Doctor.firstFailure(checks), .unavailable)
    }

    func testNoBusAndI2COffInConfigTxtNamesTheFile() throws {
        try stage("/boot/firmware/config.txt", text: "# dtparam=i2c_arm=on\ndtparam=audio=on\n")
        let c = try check("i2c-enabled", in: doctor(board()).run())
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.finding, .busMissing(device: "/dev/i2c-1", present: [],
                                              bootConfig: .init(file: "/boot/firmware/config.txt", enablesI2C: false), i2cDevLoaded: false))
    }

    func testI2COnInConfigTxtButNoModulePointsAtI2CDev() throws {
        try stage("/boot/firmware/config.txt", text: "dtparam=audio=on,i2c_arm=on  # sensor\n")
        let c = try check("i2c-enabled", in: doctor(board()).run())
        XCTAssertEqual(c.finding, .busMissing(device: "/dev/i2c-1", present: [],
                                              bootConfig: .init(file: "/boot/firmware/config.txt", enablesI2C: true), i2cDevLoaded: false))
    }

    func testOtherBusPresentIsNamedInTheFix() throws {
        try stage("/dev/i2c-20")
        try stage("/dev/i2c-3")
        try stageDir("/sys/module/i2c_dev")
        let c = try check("i2c-enabled", in: doctor(board()).run())
        XCTAssertEqual(c.finding, .busMissing(device: "/dev/i2c-1", present: ["/dev/i2c-3", "/dev/i2c-20"],
                                              bootConfig: nil, i2cDevLoaded: true))
    }

    // MARK: - Bus clock

    func testBusClockFromTheDeviceTreeAlias() throws {
        try stage("/dev/i2c-1")
        try stageClock(100_000)
        let c = try check("bus-clock", in: doctor(board(rateHz: 100)).run())
        XCTAssertEqual(c.status, .pass)
        // 100 Hz × ((3 + 14) × 9 + 3) bits / 100 kHz = 15.6 %
        XCTAssertEqual(c.finding, .busClock(hz: 100_000, file: "/proc/device-tree/soc/i2c@7e804000/clock-frequency",
                                            chip: .mpu6050, rateHz: 100, load: 0.156, limit: nil))
    }

    func testOfNodeWinsOverTheAlias() throws {
        try stage("/dev/i2c-1")
        try stageClock(100_000)
        try stage("/sys/bus/i2c/devices/i2c-1/of_node/clock-frequency", [0x00, 0x06, 0x1A, 0x80])   // 400000
        let c = try check("bus-clock", in: doctor(board(rateHz: 1000)).run())
        XCTAssertEqual(c.status, .pass, "\(c.finding)")
        XCTAssertEqual(c.finding, .busClock(hz: 400_000, file: "/sys/bus/i2c/devices/i2c-1/of_node/clock-frequency",
                                            chip: .mpu6050, rateHz: 1000, load: 0.39, limit: nil))
    }

    func testMPU6050At1kHzOnA100kHzBusIsTooMuch() throws {
        try stage("/dev/i2c-1")
        try stageClock(100_000)
        let c = try check("bus-clock", in: doctor(board(rateHz: 1000)).run())
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.cause, .unavailable)
        XCTAssertEqual(c.finding, .busClock(hz: 100_000, file: "/proc/device-tree/soc/i2c@7e804000/clock-frequency",
                                            chip: .mpu6050, rateHz: 1000, load: 1.56, limit: .overloaded(chipMaxHz: 400_000)))
        XCTAssertEqual(Doctor.busLoad(chip: .mpu6050, rateHz: 1000, clockHz: 100_000), 1.56, accuracy: 1e-12)
    }

    func testADXL345Above200HzNeeds400kHz() throws {
        try stage("/dev/i2c-1")
        try stageClock(100_000)
        // 400 Hz × 84 bits = 34 % of the bus: fine by load, refused by the data sheet's advice.
        let c = try check("bus-clock", in: doctor(board(.adxl345, rateHz: 400)).run())
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.finding, .busClock(hz: 100_000, file: "/proc/device-tree/soc/i2c@7e804000/clock-frequency",
                                            chip: .adxl345, rateHz: 400, load: 0.336,
                                            limit: .rateAboveAdvice(maxRateHz: 200, fastHz: 400_000)))
        let ok = try check("bus-clock", in: doctor(board(.adxl345, rateHz: 200)).run())
        XCTAssertEqual(ok.status, .pass, "\(ok.finding)")
    }

    func testClockAboveFastModeIsRefused() throws {
        try stage("/dev/i2c-1")
        try stageClock(1_000_000)
        let c = try check("bus-clock", in: doctor(board()).run())
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.finding, .busClock(hz: 1_000_000, file: "/proc/device-tree/soc/i2c@7e804000/clock-frequency",
                                            chip: .mpu6050, rateHz: 100, load: 0.0156, limit: .aboveChipMaximum(maxHz: 400_000)))
    }

    // MARK: - Permission (the open itself is staged as an unprivileged user in the CLI tests)

    func testPermissionWithoutUdevRule() throws {
        try stage("/dev/i2c-1")
        XCTAssertEqual(doctor(board()).permissionState("/dev/i2c-1", group: "i2c"), .noUdevRule)
    }

    func testPermissionWithRuleNotInTheGroupOrNotInThisLoginOrAnotherGroup() throws {
        try stage("/dev/i2c-1")
        try stage("/etc/udev/rules.d/60-tiltboard.rules")
        XCTAssertEqual(chown(root + "/dev/i2c-1", 0, 4242), 0, "tests run as root")
        let me = getuid()
        try stage("/etc/passwd", text: "tester:x:\(me):\(me + 1):T:/:/bin/sh\n")
        try stage("/etc/group", text: "gpio:x:4243:\ni2c:x:4242:\n")
        XCTAssertEqual(doctor(board()).permissionState("/dev/i2c-1", group: "i2c"), .notInGroup)
        try stage("/etc/group", text: "gpio:x:4243:\ni2c:x:4242:someone,tester\n")
        XCTAssertEqual(doctor(board()).permissionState("/dev/i2c-1", group: "i2c"), .groupNotInThisLogin)
        try stage("/etc/group", text: "gpio:x:4242:tester\n")
        XCTAssertEqual(doctor(board()).permissionState("/dev/i2c-1", group: "i2c"), .ownedBy(group: "gpio"))
    }

    // MARK: - What answers at the address

    private func stagedBus() throws {
        try stage("/dev/i2c-1")
    }

    /// `/sys/bus/i2c/devices/<device>` in the staged root, bound to `driver` when one is given.
    private func stageI2CDevice(_ device: String, name: String, driver: String?) throws {
        try stage("/sys/bus/i2c/devices/\(device)/name", text: name + "\n")
        guard let driver else { return }
        try stageDir("/sys/bus/i2c/drivers/\(driver)")
        try FileManager.default.createSymbolicLink(atPath: root + "/sys/bus/i2c/devices/\(device)/driver",
                                                   withDestinationPath: "../../drivers/\(driver)")
    }

    func testAKernelDriverOwningTheAddressFailsAndTheSensorIsNotAsked() throws {
        try stagedBus()
        try stageI2CDevice("1-0068", name: "mpu6050", driver: "inv-mpu6050-i2c")
        let opened = OpenedPaths()
        let checks = doctor(board(), device: { SimulatedMPU6050(clock: $0, motion: self.flat) }, opened: opened).run()
        let c = try check("kernel-driver", in: checks)
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.cause, .unavailable)
        XCTAssertEqual(c.finding, .kernelDriverBound(I2CDriverBinding(driver: "inv-mpu6050-i2c", device: "1-0068", deviceName: "mpu6050",
                                                                      bus: "/dev/i2c-1", address: 0x68),
                                                     address: 0x68, bus: "/dev/i2c-1"))
        XCTAssertEqual(checks.map(\.id), ["i2c-enabled", "bus-clock", "i2c-permission", "kernel-driver", "motor-line", "interrupt-line",
                                          "realtime", "profile"])
        XCTAssertEqual(try check("motor-line", in: checks).status, .skip, "a board without a motor has none to check")
        XCTAssertEqual(try check("motor-line", in: checks).finding, .noMotor)
        XCTAssertEqual(opened.paths, [], "the bus is not opened behind the kernel driver's back")
        XCTAssertEqual(Doctor.firstFailure(checks), .unavailable)
    }

    func testADeviceWithoutADriverOrNoDeviceAtAllPasses() throws {
        try stagedBus()
        // 0x68 declared but unbound; another address bound.
        try stageI2CDevice("1-0068", name: "mpu6050", driver: nil)
        try stageI2CDevice("1-0018", name: "lis3dh", driver: "st-accel-i2c")
        for address: UInt8 in [0x68, 0x69] {
            let checks = doctor(board(address: address), device: { SimulatedMPU6050(clock: $0, motion: self.flat) }, at: address).run()
            let c = try check("kernel-driver", in: checks)
            XCTAssertEqual(c.status, .pass)
            XCTAssertEqual(c.finding, .noKernelDriver(address: address, bus: "/dev/i2c-1"))
            XCTAssertEqual(try check("sensor", in: checks).status, .pass)
        }
    }

    func testNothingAtTheAddress() throws {
        try stagedBus()
        let checks = doctor(board()).run()
        let c = try check("sensor", in: checks)
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.cause, .unavailable)
        guard case let .sensorNotAnswering(error, address, bus) = c.finding else { return XCTFail("\(c.finding)") }
        XCTAssertEqual(error.kind, .noAcknowledgeAddress)
        XCTAssertEqual(error.address, 0x68)
        XCTAssertEqual(address, 0x68)
        XCTAssertEqual(bus, "/dev/i2c-1")
        XCTAssertEqual(Doctor.firstFailure(checks), .unavailable)
    }

    func testABusFailureIsKeptAsItsError() throws {
        try stagedBus()
        var d = doctor(board())
        let failure = I2CError(kind: .bus, device: "/dev/i2c-1", errno: EIO, detail: "Input/output error")
        d.backend = StagedBus { throw failure }
        let c = try check("sensor", in: d.run())
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.cause, .unavailable)
        XCTAssertEqual(c.finding, .busFailed(failure))
    }

    func testWrongChipIDIsNamed() throws {
        try stagedBus()
        let c = try check("sensor", in: doctor(board(), device: { SimulatedMPU6050(clock: $0, motion: self.flat, whoAmI: 0x42) }).run())
        XCTAssertEqual(c.status, .fail)
        guard case let .sensorFailed(.wrongChip(found, address, bus, _)) = c.finding else { return XCTFail("\(c.finding)") }
        XCTAssertEqual([found, address], [0x42, 0x68])
        XCTAssertEqual(bus, "/dev/i2c-1")
    }

    func testAnADXL345WhereAnMPU6050WasExpected() throws {
        try stagedBus()
        let c = try check("sensor", in: doctor(board(), device: { SimulatedADXL345(clock: $0, motion: self.flat) }).run())
        XCTAssertEqual(c.status, .fail)
        guard case let .sensorFailed(.wrongChip(_, address, bus, _)) = c.finding else { return XCTFail("\(c.finding)") }
        XCTAssertEqual(address, 0x68)
        XCTAssertEqual(bus, "/dev/i2c-1")
    }

    func testCloneIsNamedAndPasses() throws {
        try stagedBus()
        let checks = doctor(board(), device: { SimulatedMPU6050(clock: $0, motion: self.flat, whoAmI: 0x70) }).run()
        let c = try check("sensor", in: checks)
        XCTAssertEqual(c.status, .pass)
        guard case let .sensorFound(identity, chip, address, bus) = c.finding else { return XCTFail("\(c.finding)") }
        XCTAssertEqual(identity.chipID, 0x70)
        XCTAssertTrue(identity.part.hasPrefix("MPU-6500"), identity.part)
        XCTAssertNotNil(identity.warning, "a clone carries a warning")
        XCTAssertEqual(chip, .mpu6050)
        XCTAssertEqual(address, 0x68)
        XCTAssertEqual(bus, "/dev/i2c-1")
        XCTAssertNil(Doctor.firstFailure(checks), checks.map { "\($0.finding)" }.joined(separator: "\n"))
    }

    func testGenuineChipIsOpenedOnceThroughTheBackend() throws {
        try stagedBus()
        let box = OpenedPaths()
        let d = doctor(board(.adxl345), device: { SimulatedADXL345(clock: $0, motion: self.flat) }, at: 0x53, opened: box)
        let c = try check("sensor", in: d.run())
        guard case let .sensorFound(identity, chip, address, bus) = c.finding else { return XCTFail("\(c.finding)") }
        XCTAssertEqual(identity.part, "ADXL345")
        XCTAssertEqual(identity.chipID, 0xE5)
        XCTAssertNil(identity.warning)
        XCTAssertEqual(chip, .adxl345)
        XCTAssertEqual(address, 0x53)
        XCTAssertEqual(bus, "/dev/i2c-1")
        XCTAssertEqual(box.paths, ["/dev/i2c-1"])
    }

    // MARK: - GPIO, profile

    func testMissingGPIOChipFailsTheMotorLine() throws {
        try stagedBus()
        try stageDir("/dev")
        var b = board()
        b.motor = .init(line: .init(chip: "pinctrl-bcm2835", line: .name("GPIO17")))
        let c = try check("motor-line", in: doctor(b).run())
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.cause, .unavailable)
        guard case let .lineFailed(role, error) = c.finding else { return XCTFail("\(c.finding)") }
        XCTAssertEqual(role, .motor)
        XCTAssertEqual(error.problem, .noChips(spec: "pinctrl-bcm2835", directory: "\(root)/dev"), "\(error)")
    }

    func testProfileForAnotherBoardFails() throws {
        try stagedBus()
        let other = ProfileBoardIdentity(name: "another board", chip: .mpu6050, bus: "/dev/i2c-1", address: 0x68, chipID: 0x68)
        let profile = CalibrationProfile(board: other, createdAt: "2026-11-21T08:30:00Z", sampleCount: 200,
                                         noiseMg: Vector3(1, 1, 1),
                                         neutral: .init(rotation: .identity, meanRawG: Vector3(0, 0, 1), tiltDeg: 0, clamped: false))
        try ProfileStore.save(profile, path: profileDir + "/p.json")
        let checks = doctor(board(), device: { SimulatedMPU6050(clock: $0, motion: self.flat) }).run()
        let c = try check("profile", in: checks)
        XCTAssertEqual(c.status, .fail)
        guard case let .profileInvalid(error) = c.finding else { return XCTFail("\(c.finding)") }
        XCTAssertEqual(error.problem, .otherBoard(.name(profile: "another board", board: "doctor test")))
        XCTAssertEqual(Doctor.firstFailure(checks), .unavailable)

        var mine = profile
        mine.board = ProfileBoardIdentity(board: board(), chipID: 0x68)
        try ProfileStore.save(mine, path: profileDir + "/p.json")
        let ok = try check("profile", in: doctor(board(), device: { SimulatedMPU6050(clock: $0, motion: self.flat) }).run())
        XCTAssertEqual(ok.status, .pass, "\(ok.finding)")
        XCTAssertEqual(ok.finding, .profileFound(path: profileDir + "/p.json", createdAt: "2026-11-21T08:30:00Z", sensorCalibration: false))
    }

    func testNoProfileIsNotAFailure() throws {
        try stagedBus()
        let checks = doctor(board(), device: { SimulatedMPU6050(clock: $0, motion: self.flat) }).run()
        let c = try check("profile", in: checks)
        XCTAssertEqual(c.status, .skip)
        XCTAssertEqual(c.finding, .profileMissing(path: profileDir + "/p.json"))
        XCTAssertNil(Doctor.firstFailure(checks))
    }

    func testFirstFailureDecides() {
        let checks = [DoctorCheck(id: "a", status: .pass, finding: .noInterruptLine),
                      DoctorCheck(id: "b", status: .fail, finding: .noInterruptLine, cause: .permission),
                      DoctorCheck(id: "c", status: .fail, finding: .noInterruptLine, cause: .unavailable)]
        XCTAssertEqual(Doctor.firstFailure(checks), .permission)
        XCTAssertEqual(Doctor.firstFailure(Array(checks.reversed())), .unavailable)
        XCTAssertNil(Doctor.firstFailure([checks[0], DoctorCheck(id: "d", status: .skip, finding: .noInterruptLine)]))
    }

    func testRealtimeAndAMissingInterruptLineAreSkippedOrPassedWithTheirFacts() throws {
        try stagedBus()
        let checks = doctor(board(), device: { SimulatedMPU6050(clock: $0, motion: self.flat) }).run()
        XCTAssertEqual(try check("interrupt-line", in: checks), DoctorCheck(id: "interrupt-line", status: .skip, finding: .noInterruptLine))
        let limits = SystemInspector.realtimeLimits()
        XCTAssertEqual(try check("realtime", in: checks),
                       DoctorCheck(id: "realtime", status: limits.allowed ? .pass : .skip, finding: .realtime(limits)))
    }
}

import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import Tiltboard

/// One check of `tiltboard doctor`: which step was checked, how it came out, and what was found.
/// The finding holds facts (paths, numbers, errors); the program words them and their fixes.
package struct DoctorCheck: Sendable, Equatable {
    package enum Status: String, Sendable, Codable {
        /// ✓
        case pass
        /// ✗: counts as a failure.
        case fail
        /// ·: optional and not set up (realtime, a profile not made yet); not a failure.
        case skip
    }
    /// Stable id for tools: `i2c-enabled`, `bus-clock`, `i2c-permission`, `kernel-driver`, `sensor`, `motor-line`,
    /// `interrupt-line`, `realtime`, `profile`; with the motor-noise check, `motor-noise` and
    /// `motor-noise-idle`, `-switching`, `-running`, `-outages`, `-jumps`.
    package var id: String
    package var status: Status
    /// What was found.
    package var finding: DoctorFinding
    /// What kind of failure it is (the CLI's exit code: 69 unavailable, 77 permission); nil unless failed.
    package var cause: Cause?

    package enum Cause: String, Sendable, Codable {
        case unavailable, permission
    }

    package init(id: String, status: Status, finding: DoctorFinding, cause: Cause? = nil) {
        self.id = id; self.status = status; self.finding = finding; self.cause = cause
    }
}

/// What one check of the doctor found, as facts.
package enum DoctorFinding: Sendable, Equatable {
    // i2c-enabled
    /// A simulated board: no bus to look for.
    case simulatedBoard
    /// The board's bus device node exists.
    case busPresent(device: String)
    /// The kernel has the adapter but the i2c-dev module that gives it a node is not loaded.
    case i2cDevNotLoaded(device: String, adapter: Int)
    /// The bus device node is missing: the nodes that are present, the firmware's config.txt
    /// (nil when there is none) and whether i2c-dev is loaded.
    case busMissing(device: String, present: [String], bootConfig: BootConfig?, i2cDevLoaded: Bool)

    // bus-clock
    /// No clock for adapter N in the device tree; the board's rate is assumed to fit.
    case busClockUnknown(adapter: Int, rateHz: Double)
    /// The clock read from `file`, the board's chip and rate, the share of the bus one sample
    /// takes (`Doctor.busLoad`), and the limit it breaks, nil when none.
    case busClock(hz: Int, file: String, chip: ChipKind, rateHz: Double, load: Double, limit: BusClockLimit?)

    // i2c-permission
    case busOpens(device: String)
    /// The open failed for a reason other than permission.
    case busOpenFailed(device: String, errno: Int32, reason: String)
    /// The open was refused: the group the device should belong to, and where this user stands.
    case busPermissionDenied(device: String, reason: String, group: String, access: PermissionState)

    // kernel-driver
    case noKernelDriver(address: UInt8, bus: String)
    case kernelDriverBound(I2CDriverBinding, address: UInt8, bus: String)

    // sensor
    /// What answers: the chip's identity (a clone carries a warning), taken as `chip`.
    case sensorFound(SensorIdentity, chip: ChipKind, address: UInt8, bus: String)
    /// Nothing acknowledges the board's address.
    case sensorNotAnswering(I2CError, address: UInt8, bus: String)
    /// The bus failed otherwise.
    case busFailed(I2CError)
    /// The chip answered but is not the expected one, or failed as a chip.
    case sensorFailed(SensorError)
    /// Any other failure opening the sensor, in its own words.
    case sensorOther(String)

    // motor-line, interrupt-line
    case lineSimulated(LineRole)
    case lineFree(LineRole, name: String)
    case lineHeld(LineRole, SystemInspector.LineState)
    case lineFailed(LineRole, GPIOError)
    case lineOther(LineRole, String)
    /// The board file has no interrupt line (only waking on motion needs one).
    case noInterruptLine
    /// The board file has no motor: nothing to check (and nothing to buzz).
    case noMotor

    // motor-noise
    /// What the motor-noise check sampled.
    case motorNoiseMeasured(MotorNoiseCheck.Report)
    /// One kind of trouble the motor-noise check counts, found (failed) or not (passed).
    case motorNoise(MotorNoiseAspect, MotorNoiseCheck.Report)
    /// The check stopped before it was done (a signal): the counts so far.
    case motorNoiseStopped(MotorNoiseCheck.Report)

    // realtime
    /// The limits that decide whether the loop thread may have SCHED_FIFO and locked memory.
    case realtime(SystemInspector.RealtimeLimits)

    // profile
    case profileMissing(path: String)
    case profileFound(path: String, createdAt: String, sensorCalibration: Bool)
    case profileInvalid(ProfileError)
    case profileUnreadable(path: String, String)

    /// The Raspberry Pi firmware's config.txt and whether it turns the ARM I²C bus on.
    package struct BootConfig: Sendable, Equatable {
        package var file: String
        package var enablesI2C: Bool
        package init(file: String, enablesI2C: Bool) { self.file = file; self.enablesI2C = enablesI2C }
    }

    /// The limit a bus clock breaks.
    package enum BusClockLimit: Sendable, Equatable {
        /// Faster than the chip takes.
        case aboveChipMaximum(maxHz: Int)
        /// The chip's data sheet advises at most `maxRateHz` while the clock is below `fastHz`.
        case rateAboveAdvice(maxRateHz: Double, fastHz: Int)
        /// More than `Doctor.maxBusLoad` of the bus; `chipMaxHz` is the fastest clock the chip takes.
        case overloaded(chipMaxHz: Int)
    }

    /// Where a user refused a device node stands.
    package enum PermissionState: Sendable, Equatable {
        /// The package's udev rule is not installed (or the node cannot be examined).
        case noUdevRule
        /// The rule is installed but the node belongs to another group.
        case ownedBy(group: String)
        /// Listed in the group, but this login does not carry it.
        case groupNotInThisLogin
        /// Not in the group.
        case notInGroup
    }

    /// What the motor-noise check counts, each pointing at one wiring fix.
    package enum MotorNoiseAspect: String, Sendable, Equatable, CaseIterable {
        /// Bus errors with the motor off: a marginal bus (pull-ups).
        case idle
        /// Bus errors just after the motor switched: the coil's spike (flyback diode).
        case switching
        /// Bus errors while the motor ran: noise at the bus's speed (lower bus clock).
        case running
        /// The sensor lost, or reset, while the motor ran: its supply sagged (separate supply or capacitor).
        case outages
        /// Samples far from both neighbours: corrupted data (shorter or twisted cable).
        case jumps

        /// The count this aspect found in `report`.
        package func count(in report: MotorNoiseCheck.Report) -> Int {
            switch self {
            case .idle: return report.idleErrors
            case .switching: return report.switchingErrors
            case .running: return report.runningErrors
            case .outages: return report.outages
            case .jumps: return report.jumps
            }
        }

        /// Whether `report` shows this trouble: any count at all, except that errors while the
        /// motor runs or switches count only beyond what the rest of the time explains.
        package func found(in report: MotorNoiseCheck.Report) -> Bool {
            switch self {
            case .switching: return report.switchingFound
            case .running: return report.runningFound
            case .idle, .outages, .jumps: return count(in: report) > 0
            }
        }
    }

    /// Which GPIO line a line check is about.
    package enum LineRole: String, Sendable, Equatable {
        case motor, interrupt
    }
}

/// Walks every step a Raspberry Pi user trips on, for one board file.
///
/// The machine is seen through `SystemInspector` (a staged folder in tests) and the board's bus
/// through the backend the program chose, so every outcome can be produced without hardware.
package struct Doctor {
    package var board: BoardDescription
    package var system: SystemInspector
    package var profilePath: String
    package var clock: MonotonicClock
    /// The board's bus and lines, opened as the program decided (`LinuxBoard`, `SimulatedBoard`).
    package var backend: BoardBackend

    package init(board: BoardDescription, system: SystemInspector = SystemInspector(), profilePath: String,
                clock: MonotonicClock, backend: BoardBackend) {
        self.board = board; self.system = system; self.profilePath = profilePath; self.clock = clock
        self.backend = backend
    }

    /// What the first failure was, nil when nothing failed: it decides the exit code.
    package static func firstFailure(_ checks: [DoctorCheck]) -> DoctorCheck.Cause? {
        checks.first { $0.status == .fail }?.cause
    }

    package func run() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        var chipID: UInt8?
        if board.isSimulated {
            checks.append(DoctorCheck(id: "i2c-enabled", status: .pass, finding: .simulatedBoard))
            // The simulated chip answers for the profile check; a failure to open it is shown.
            let (check, id) = sensor()
            if check.status == .fail { checks.append(check) }
            chipID = id
        } else {
            let enabled = i2cEnabled()
            checks.append(enabled)
            if enabled.status == .pass {
                if let clock = busClock() { checks.append(clock) }
                let permission = i2cPermission()
                checks.append(permission)
                if permission.status == .pass {
                    let owner = kernelDriver()
                    checks.append(owner)
                    if owner.status == .pass {
                        let (check, id) = sensor()
                        checks.append(check)
                        chipID = id
                    }
                }
            }
        }
        if let motor = board.motor {
            checks.append(line("motor-line", .motor, motor.line))
        } else {
            checks.append(DoctorCheck(id: "motor-line", status: .skip, finding: .noMotor))
        }
        if let interrupt = board.interrupt {
            checks.append(line("interrupt-line", .interrupt, interrupt.line))
        } else {
            checks.append(DoctorCheck(id: "interrupt-line", status: .skip, finding: .noInterruptLine))
        }
        checks.append(realtime())
        checks.append(profile(chipID: chipID))
        return checks
    }

    // MARK: - I²C

    private var busDevice: String { board.sensor.bus }

    func i2cEnabled() -> DoctorCheck {
        let id = "i2c-enabled"
        if system.exists(busDevice) {
            return DoctorCheck(id: id, status: .pass, finding: .busPresent(device: busDevice))
        }
        if let number = SystemInspector.busNumber(busDevice), system.adapterPresent(number), !system.i2cDevLoaded {
            return DoctorCheck(id: id, status: .fail, finding: .i2cDevNotLoaded(device: busDevice, adapter: number),
                               cause: .unavailable)
        }
        let config = system.bootConfigEnablesI2C().map { DoctorFinding.BootConfig(file: $0.file, enablesI2C: $0.enabled) }
        return DoctorCheck(id: id, status: .fail,
                           finding: .busMissing(device: busDevice, present: system.i2cDevices(), bootConfig: config,
                                                i2cDevLoaded: system.i2cDevLoaded),
                           cause: .unavailable)
    }

    /// The bus time one sample takes, as a fraction of the sample period: a register-address
    /// write, a repeated start and `sampleBytes` read back, 9 clocks a byte (I²C-bus specification
    /// UM10204 §3.1.5–3.1.10) plus start, repeated start and stop.
    package static func busLoad(chip: ChipKind, rateHz: Double, clockHz: Int) -> Double {
        let bits = Double((3 + chip.sampleBytes) * 9 + 3)
        return rateHz * bits / Double(clockHz)
    }

    /// Above this share of the bus the loop has no room for FIFO counts, retries and the
    /// kernel's own gaps between messages.
    package static let maxBusLoad = 0.5

    func busClock() -> DoctorCheck? {
        guard let n = SystemInspector.busNumber(busDevice) else { return nil }
        let id = "bus-clock"
        let chip = board.sensor.chip, rate = board.sensor.rateHz
        guard let (hz, file) = system.busClockHz(n) else {
            return DoctorCheck(id: id, status: .skip, finding: .busClockUnknown(adapter: n, rateHz: rate))
        }
        let load = Self.busLoad(chip: chip, rateHz: rate, clockHz: hz)
        let maxClock = chip.details.maxBusClockHz
        let limit: DoctorFinding.BusClockLimit?
        if hz > maxClock {
            limit = .aboveChipMaximum(maxHz: maxClock)
        } else if let advised = chip.details.maxRateHzBelowFastBus, hz < maxClock, rate > advised {
            limit = .rateAboveAdvice(maxRateHz: advised, fastHz: maxClock)
        } else if load > Self.maxBusLoad {
            limit = .overloaded(chipMaxHz: maxClock)
        } else {
            limit = nil
        }
        return DoctorCheck(id: id, status: limit == nil ? .pass : .fail,
                           finding: .busClock(hz: hz, file: file, chip: chip, rateHz: rate, load: load, limit: limit),
                           cause: limit == nil ? nil : .unavailable)
    }

    func i2cPermission() -> DoctorCheck {
        let id = "i2c-permission"
        guard let failure = system.openFailure(busDevice) else {
            return DoctorCheck(id: id, status: .pass, finding: .busOpens(device: busDevice))
        }
        guard failure.isPermission else {
            return DoctorCheck(id: id, status: .fail,
                               finding: .busOpenFailed(device: busDevice, errno: failure.errno, reason: failure.reason),
                               cause: .unavailable)
        }
        return DoctorCheck(id: id, status: .fail,
                           finding: .busPermissionDenied(device: busDevice, reason: failure.reason, group: "i2c",
                                                         access: permissionState(busDevice, group: "i2c")),
                           cause: .permission)
    }

    /// Where this user stands with a device node it may not open: the udev rule, the node's
    /// group, membership in `wanted` and whether this login carries it.
    package func permissionState(_ device: String, group wanted: String) -> DoctorFinding.PermissionState {
        guard system.udevRule() != nil, let access = system.deviceAccess(of: device) else { return .noUdevRule }
        guard access.group == wanted else { return .ownedBy(group: access.group) }
        if access.userInGroup && !access.processHasGroup { return .groupNotInThisLogin }
        return .notInGroup
    }

    /// Whether a kernel driver (an IIO driver bound by a device-tree overlay) owns the board's
    /// address: the commands refuse such a sensor, as both would configure the same chip.
    func kernelDriver() -> DoctorCheck {
        let id = "kernel-driver"
        let address = board.sensor.address
        guard let binding = system.i2cDriverBinding(bus: busDevice, address: address) else {
            return DoctorCheck(id: id, status: .pass, finding: .noKernelDriver(address: address, bus: busDevice))
        }
        return DoctorCheck(id: id, status: .fail, finding: .kernelDriverBound(binding, address: address, bus: busDevice),
                           cause: .unavailable)
    }

    /// What answers at the board's address, identified as the commands would.
    func sensor() -> (DoctorCheck, UInt8?) {
        let id = "sensor"
        let address = board.sensor.address
        do {
            let bus = try backend.openBus()
            let sensor = try board.sensor.chip.openSensor(bus: bus, address: address, clock: clock)
            let identity = sensor.identity
            return (DoctorCheck(id: id, status: .pass,
                                finding: .sensorFound(identity, chip: board.sensor.chip, address: address, bus: busDevice)),
                    identity.chipID)
        } catch {
            return (sensorFailure(error), nil)
        }
    }

    /// The failed `sensor` check for an error opening or reading the sensor.
    func sensorFailure(_ error: Error) -> DoctorCheck {
        let id = "sensor"
        let address = board.sensor.address
        switch error {
        case let error as I2CError:
            let code: DoctorCheck.Cause = error.kind == .permissionDenied ? .permission : .unavailable
            if error.kind == .noAcknowledgeAddress {
                return DoctorCheck(id: id, status: .fail, finding: .sensorNotAnswering(error, address: address, bus: busDevice),
                                   cause: code)
            }
            return DoctorCheck(id: id, status: .fail, finding: .busFailed(error), cause: code)
        case let error as SensorError:
            return DoctorCheck(id: id, status: .fail, finding: .sensorFailed(error), cause: .unavailable)
        default:
            return DoctorCheck(id: id, status: .fail, finding: .sensorOther("\(describe(error))"), cause: .unavailable)
        }
    }

    // MARK: - GPIO

    func line(_ id: String, _ role: DoctorFinding.LineRole, _ selector: BoardDescription.LineSelector) -> DoctorCheck {
        if board.isSimulated {
            return DoctorCheck(id: id, status: .pass, finding: .lineSimulated(role))
        }
        do {
            let state = try system.gpioLine(chip: selector.chip, line: selector.line)
            if state.used {
                return DoctorCheck(id: id, status: .fail, finding: .lineHeld(role, state), cause: .unavailable)
            }
            return DoctorCheck(id: id, status: .pass, finding: .lineFree(role, name: state.name))
        } catch let error as GPIOError {
            return DoctorCheck(id: id, status: .fail, finding: .lineFailed(role, error),
                               cause: error.kind == .permissionDenied ? .permission : .unavailable)
        } catch {
            return DoctorCheck(id: id, status: .fail, finding: .lineOther(role, "\(describe(error))"), cause: .unavailable)
        }
    }

    // MARK: - Motor noise

    /// The motor-noise check (`MotorNoiseCheck`) on the board's sensor, pulsing `motor` (the
    /// board's motor line, opened by the program): one summary and one check per aspect, or the
    /// sensor's failure when it cannot be opened. A board without a motor gets one skipped check.
    package func motorNoise(_ check: MotorNoiseCheck, motor: GPIOOutputLine?, shouldStop: () -> Bool = { false }) -> [DoctorCheck] {
        guard let motor, board.motor != nil else {
            return [DoctorCheck(id: "motor-noise", status: .skip, finding: .noMotor)]
        }
        var busClock: Int?
        if let n = SystemInspector.busNumber(busDevice) { busClock = system.busClockHz(n)?.hz }
        let rate = check.rateHz(chip: board.sensor.chip, busClockHz: busClock)
        do {
            let bus = FailureTimingBus(try backend.openBus(), clock: clock)
            defer { bus.close() }
            let sensor = try board.sensor.chip.openSensor(bus: bus, address: board.sensor.address, clock: clock)
            defer { try? sensor.sleep() }
            let report = try check.run(sensor: sensor, bus: bus, configuration: board.sensor.configuration, rateHz: rate,
                                       motor: motor, clock: clock, shouldStop: shouldStop)
            if report.seconds < check.settings.totalSeconds && shouldStop() {
                return [DoctorCheck(id: "motor-noise", status: .skip, finding: .motorNoiseStopped(report))]
            }
            return Self.motorNoiseChecks(report)
        } catch {
            var failed = sensorFailure(error)
            failed.id = "motor-noise"
            return [failed]
        }
    }

    /// The checks a motor-noise report makes: what was sampled, then each aspect, failed when
    /// the report shows it (`MotorNoiseAspect.found`).
    package static func motorNoiseChecks(_ report: MotorNoiseCheck.Report) -> [DoctorCheck] {
        [DoctorCheck(id: "motor-noise", status: .pass, finding: .motorNoiseMeasured(report))]
            + DoctorFinding.MotorNoiseAspect.allCases.map { aspect in
                let found = aspect.found(in: report)
                return DoctorCheck(id: "motor-noise-\(aspect.rawValue)", status: found ? .fail : .pass,
                                   finding: .motorNoise(aspect, report), cause: found ? .unavailable : nil)
            }
    }

    // MARK: - Realtime and profile

    func realtime() -> DoctorCheck {
        let limits = SystemInspector.realtimeLimits()
        return DoctorCheck(id: "realtime", status: limits.allowed ? .pass : .skip, finding: .realtime(limits))
    }

    func profile(chipID: UInt8?) -> DoctorCheck {
        let id = "profile"
        let expected = chipID.map { ProfileBoardIdentity(board: board, chipID: $0) }
        do {
            guard let profile = try ProfileStore.load(path: profilePath, expectedBoard: expected) else {
                return DoctorCheck(id: id, status: .skip, finding: .profileMissing(path: profilePath))
            }
            return DoctorCheck(id: id, status: .pass,
                               finding: .profileFound(path: profilePath, createdAt: profile.createdAt,
                                                      sensorCalibration: profile.sensor != nil))
        } catch let error as ProfileError {
            return DoctorCheck(id: id, status: .fail, finding: .profileInvalid(error), cause: .unavailable)
        } catch {
            return DoctorCheck(id: id, status: .fail, finding: .profileUnreadable(path: profilePath, "\(describe(error))"), cause: .unavailable)
        }
    }
}

/// The share of an I²C bus that the boards on it take, at its clock (`BusBudget`).
package struct BusShareFinding: Sendable, Equatable {
    /// The bus device, `/dev/i2c-N`.
    package var bus: String
    /// The clock the share is taken at, Hz.
    package var clockHz: Int
    /// The device-tree file the clock came from; nil when none says and `assumedClockHz` was taken.
    package var clockFile: String?
    /// Each board's plan on the bus, in the order given.
    package var boards: [BusBudget]
    /// Their bus time per second / 1 s.
    package var share: Double
    /// Whether the share is past `BusBudget.warningShare`.
    package var overWarning: Bool { share > BusBudget.warningShare }

    package init(bus: String, clockHz: Int, clockFile: String?, boards: [BusBudget], share: Double) {
        self.bus = bus; self.clockHz = clockHz; self.clockFile = clockFile; self.boards = boards; self.share = share
    }

    /// The clock taken when the device tree names none: Standard-mode's highest, 100 kHz (UM10204
    /// §6.1 Table 10, fSCL), which is also the Raspberry Pi's default `i2c_arm_baudrate`
    /// (raspberrypi/linux arch/arm/boot/dts/overlays/README: "default 100000").
    package static let assumedClockHz = 100_000
}

extension Doctor {
    /// The share of the board's bus that it and `others` on the same bus take, at the clock the
    /// device tree gives (else `BusShareFinding.assumedClockHz`); nil for a simulated board or a
    /// bus that is not `/dev/i2c-N`.
    package func busShare(others: [BoardDescription] = [], fifoAboveHz: Double, fifoTickHz: Double) -> BusShareFinding? {
        guard !board.isSimulated, let n = SystemInspector.busNumber(busDevice) else { return nil }
        let clock = system.busClockHz(n)
        let hz = clock?.hz ?? BusShareFinding.assumedClockHz
        let boards = ([board] + others.filter { $0.sensor.bus == busDevice && !$0.isSimulated })
            .map { BusBudget.planned($0.sensor, fifoAboveHz: fifoAboveHz, fifoTickHz: fifoTickHz) }
        return BusShareFinding(bus: busDevice, clockHz: hz, clockFile: clock?.file, boards: boards,
                               share: BusBudget.share(of: boards, clockHz: Double(hz)))
    }
}

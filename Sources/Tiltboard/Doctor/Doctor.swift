import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// One line of `tiltboard doctor`: what was checked, what was found and, when it failed, the fix.
public struct DoctorCheck: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        /// ✓
        case pass
        /// ✗: counts as a failure.
        case fail
        /// ·: optional and not set up (realtime, a profile not made yet); not a failure.
        case skip
    }
    /// Stable id for tools: `i2c-enabled`, `bus-clock`, `i2c-permission`, `kernel-driver`, `sensor`, `motor-line`,
    /// `interrupt-line`, `realtime`, `profile`.
    public var id: String
    public var status: Status
    /// What was found, one line.
    public var detail: String
    /// What to do about it; nil when nothing is to be done.
    public var fix: String?
    /// What kind of failure it is (the CLI's exit code: 69 unavailable, 77 permission); nil unless failed.
    public var cause: Cause?

    public enum Cause: String, Sendable, Codable {
        case unavailable, permission
    }

    public init(id: String, status: Status, detail: String, fix: String? = nil, cause: Cause? = nil) {
        self.id = id; self.status = status; self.detail = detail; self.fix = fix; self.cause = cause
    }
}

/// Walks every step a Raspberry Pi user trips on, for one board file.
///
/// The machine is seen through `SystemInspector` (a staged folder in tests) and the board's bus
/// through the backend the program chose, so every outcome can be produced without hardware.
public struct Doctor {
    public var board: BoardDescription
    public var system: SystemInspector
    public var profilePath: String
    public var clock: MonotonicClock
    /// The board's bus and lines, opened as the program decided (`LinuxBoard`, `SimulatedBoard`).
    public var backend: BoardBackend
    /// The fix for a failure a check meets (the bus, the chip, a GPIO line), as the program
    /// tells its user; nil when it has none.
    public var advice: (Error) -> String?

    public init(board: BoardDescription, system: SystemInspector = SystemInspector(), profilePath: String,
                clock: MonotonicClock, backend: BoardBackend, advice: @escaping (Error) -> String? = { _ in nil }) {
        self.board = board; self.system = system; self.profilePath = profilePath; self.clock = clock
        self.backend = backend
        self.advice = advice
    }

    /// What the first failure was, nil when nothing failed: it decides the exit code.
    public static func firstFailure(_ checks: [DoctorCheck]) -> DoctorCheck.Cause? {
        checks.first { $0.status == .fail }?.cause
    }

    public func run() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        var chipID: UInt8?
        if board.isSimulated {
            checks.append(DoctorCheck(id: "i2c-enabled", status: .pass, detail: "simulated board: no I²C bus needed"))
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
            checks.append(line("motor-line", "motor line", motor.line, wanted: "the motor"))
        }
        if let interrupt = board.interrupt {
            checks.append(line("interrupt-line", "interrupt line", interrupt.line, wanted: "the sensor's INT pin"))
        } else {
            checks.append(DoctorCheck(id: "interrupt-line", status: .skip,
                                      detail: "interrupt line: none in the board file (only --wake-on-motion needs one)"))
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
            return DoctorCheck(id: id, status: .pass, detail: "I²C enabled: \(busDevice) is present")
        }
        let present = system.i2cDevices()
        let others = present.isEmpty ? "no /dev/i2c-* at all" : "present: \(present.joined(separator: ", "))"
        let number = SystemInspector.busNumber(busDevice)
        if let number, system.adapterPresent(number), !system.i2cDevLoaded {
            return DoctorCheck(id: id, status: .fail,
                               detail: "I²C enabled: adapter i2c-\(number) exists but \(busDevice) does not: the i2c-dev module is not loaded",
                               fix: "sudo modprobe i2c-dev, and add i2c-dev to /etc/modules so it loads at boot",
                               cause: .unavailable)
        }
        let config = system.bootConfigEnablesI2C()
        let fix: String
        if let config, !config.enabled {
            fix = "add dtparam=i2c_arm=on to \(config.file) (or sudo raspi-config → Interface Options → I2C), then reboot"
        } else if config != nil, !system.i2cDevLoaded {
            fix = "sudo modprobe i2c-dev, and add i2c-dev to /etc/modules so it loads at boot"
        } else if !present.isEmpty {
            fix = "set the board file's sensor.bus to one of: \(present.joined(separator: ", "))"
        } else {
            fix = "enable I²C: sudo raspi-config → Interface Options → I2C (dtparam=i2c_arm=on), then reboot; elsewhere sudo modprobe i2c-dev"
        }
        return DoctorCheck(id: id, status: .fail, detail: "I²C enabled: \(busDevice) not found (\(others))",
                           fix: fix, cause: .unavailable)
    }

    /// The bus time one sample takes, as a fraction of the sample period: a register-address
    /// write, a repeated start and `sampleBytes` read back, 9 clocks a byte (I²C-bus specification
    /// UM10204 §3.1.5–3.1.10) plus start, repeated start and stop.
    public static func busLoad(chip: ChipKind, rateHz: Double, clockHz: Int) -> Double {
        let bits = Double((3 + chip.sampleBytes) * 9 + 3)
        return rateHz * bits / Double(clockHz)
    }

    /// Above this share of the bus the loop has no room for FIFO counts, retries and the
    /// kernel's own gaps between messages.
    public static let maxBusLoad = 0.5

    func busClock() -> DoctorCheck? {
        guard let n = SystemInspector.busNumber(busDevice) else { return nil }
        let id = "bus-clock"
        guard let (hz, file) = system.busClockHz(n) else {
            return DoctorCheck(id: id, status: .skip, detail: "bus clock: not in the device tree for i2c-\(n); assuming it suits \(formatHz(board.sensor.rateHz))")
        }
        let chip = board.sensor.chip, rate = board.sensor.rateHz
        let load = Self.busLoad(chip: chip, rateHz: rate, clockHz: hz)
        let found = "bus clock: \(hz / 1000) kHz (\(file)); \(formatHz(rate)) × \(chip.sampleBytes)-byte samples use \(Int((load * 100).rounded())) % of the bus"
        let raise = "add dtparam=i2c_arm_baudrate=400000 to /boot/firmware/config.txt and reboot"
        let maxClock = chip.chip.maxBusClockHz
        if hz > maxClock {
            return DoctorCheck(id: id, status: .fail, detail: found + "; the \(chip.partName) takes at most \(maxClock / 1000) kHz",
                               fix: "set dtparam=i2c_arm_baudrate=\(maxClock) (or lower) in /boot/firmware/config.txt and reboot",
                               cause: .unavailable)
        }
        if let limit = chip.chip.maxRateHzBelowFastBus, hz < maxClock, rate > limit {
            return DoctorCheck(id: id, status: .fail, detail: found + "; the \(chip.partName) data sheet advises at most \(formatHz(limit)) below \(maxClock / 1000) kHz",
                               fix: raise + ", or set sensor.rateHz to \(Int(limit)) or less", cause: .unavailable)
        }
        if load > Self.maxBusLoad {
            return DoctorCheck(id: id, status: .fail, detail: found + "; more than half leaves no room",
                               fix: hz < maxClock ? raise + ", or lower sensor.rateHz" : "lower sensor.rateHz, or set sensor.fifo to true",
                               cause: .unavailable)
        }
        return DoctorCheck(id: id, status: .pass, detail: found)
    }

    func i2cPermission() -> DoctorCheck {
        let id = "i2c-permission"
        guard let failure = system.openFailure(busDevice) else {
            return DoctorCheck(id: id, status: .pass, detail: "I²C permission: \(busDevice) can be opened for reading and writing")
        }
        let text = failure.reason
        guard failure.isPermission else {
            return DoctorCheck(id: id, status: .fail, detail: "I²C permission: \(busDevice): \(text) (errno \(failure.errno))",
                               fix: "check that \(busDevice) is an i2c-dev node (ls -l \(busDevice))", cause: .unavailable)
        }
        return DoctorCheck(id: id, status: .fail, detail: "I²C permission: \(busDevice): \(text)",
                           fix: permissionFix(busDevice, group: "i2c"), cause: .permission)
    }

    /// The fix for a device node this user may not open: the udev rule, the group, or a new login.
    public func permissionFix(_ device: String, group wanted: String) -> String {
        let install = "install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger)"
        guard system.udevRule() != nil, let access = system.deviceAccess(of: device) else {
            return install + " and join the \(wanted) group (sudo usermod -aG \(wanted) $USER, then log in again)"
        }
        guard access.group == wanted else {
            return "the udev rule is installed but \(device) belongs to group \(access.group): sudo udevadm control --reload && sudo udevadm trigger"
        }
        if access.userInGroup && !access.processHasGroup {
            return "you are in the \(wanted) group but this login is not: log out and in again (or run newgrp \(wanted))"
        }
        return "join the \(wanted) group: sudo usermod -aG \(wanted) $USER, then log in again"
    }

    /// Whether a kernel driver (an IIO driver bound by a device-tree overlay) owns the board's
    /// address: the commands refuse such a sensor, as both would configure the same chip.
    func kernelDriver() -> DoctorCheck {
        let id = "kernel-driver"
        let address = board.sensor.address
        guard let binding = system.i2cDriverBinding(bus: busDevice, address: address) else {
            return DoctorCheck(id: id, status: .pass, detail: "kernel driver: none bound to \(address.hex) on \(busDevice)")
        }
        return DoctorCheck(id: id, status: .fail,
                           detail: "kernel driver: \(binding.driver) owns \(address.hex) on \(busDevice)",
                           fix: advice(KernelDriverBoundError(binding: binding)), cause: .unavailable)
    }

    /// What answers at the board's address, identified as the commands would.
    func sensor() -> (DoctorCheck, UInt8?) {
        let id = "sensor"
        let where_ = "\(board.sensor.address.hex) on \(busDevice)"
        do {
            let bus = try backend.openBus()
            let sensor = try board.sensor.chip.openSensor(bus: bus, address: board.sensor.address, clock: clock)
            let identity = sensor.identity
            if identity.warning != nil {
                return (DoctorCheck(id: id, status: .pass,
                                    detail: "sensor: \(identity.part) at \(where_): a clone, used as an \(board.sensor.chip.partName) with a warning"),
                        identity.chipID)
            }
            return (DoctorCheck(id: id, status: .pass, detail: "sensor: \(identity.part) at \(where_) (ID \(identity.chipID.hex))"),
                    identity.chipID)
        } catch let error as I2CError {
            let code: DoctorCheck.Cause = error.kind == .permissionDenied ? .permission : .unavailable
            if error.kind == .noAcknowledgeAddress {
                return (DoctorCheck(id: id, status: .fail,
                                    detail: "sensor: nothing answers at \(where_)", fix: advice(error), cause: code), nil)
            }
            return (DoctorCheck(id: id, status: .fail, detail: "sensor: \(error.description)", fix: advice(error), cause: code), nil)
        } catch let error as SensorError {
            return (DoctorCheck(id: id, status: .fail, detail: "sensor: \(error.description)", fix: advice(error),
                                cause: .unavailable), nil)
        } catch {
            return (DoctorCheck(id: id, status: .fail, detail: "sensor: \(error)", cause: .unavailable), nil)
        }
    }

    // MARK: - GPIO

    func line(_ id: String, _ title: String, _ selector: BoardDescription.LineSelector, wanted: String) -> DoctorCheck {
        if board.isSimulated {
            return DoctorCheck(id: id, status: .pass, detail: "\(title): simulated")
        }
        do {
            let state = try system.gpioLine(chip: selector.chip, line: selector.line)
            if state.used {
                return DoctorCheck(id: id, status: .fail, detail: "\(title): \(SystemInspector.busyMessage(state))",
                                   cause: .unavailable)
            }
            return DoctorCheck(id: id, status: .pass, detail: "\(title): \(state.name) is free for \(wanted)")
        } catch let error as GPIOError {
            switch error.kind {
            case .permissionDenied:
                return DoctorCheck(id: id, status: .fail, detail: "\(title): \(error.description)", fix: advice(error),
                                   cause: .permission)
            default:
                return DoctorCheck(id: id, status: .fail, detail: "\(title): \(error.description)", cause: .unavailable)
            }
        } catch {
            return DoctorCheck(id: id, status: .fail, detail: "\(title): \(error)", cause: .unavailable)
        }
    }

    // MARK: - Realtime and profile

    func realtime() -> DoctorCheck {
        let limits = SystemInspector.realtimeLimits()
        let memlock = limits.memlockBytes.map { "\($0 / 1024) KiB" } ?? "unlimited"
        if limits.allowed {
            return DoctorCheck(id: "realtime", status: .pass,
                               detail: "realtime: --realtime can have SCHED_FIFO (\(limits.isRoot ? "root" : "rtprio \(limits.rtprio)"), memlock \(memlock))")
        }
        return DoctorCheck(id: "realtime", status: .skip,
                           detail: "realtime: not permitted (rtprio 0, memlock \(memlock)); only --realtime needs it",
                           fix: "to allow it: add '@i2c - rtprio 50' and '@i2c - memlock unlimited' to /etc/security/limits.d/tiltboard.conf, then log in again")
    }

    func profile(chipID: UInt8?) -> DoctorCheck {
        let id = "profile"
        let expected = chipID.map { ProfileBoardIdentity(board: board, chipID: $0) }
        do {
            guard let profile = try ProfileStore.load(path: profilePath, expectedBoard: expected) else {
                return DoctorCheck(id: id, status: .skip, detail: "profile: none at \(profilePath) yet",
                                   fix: "hold the board as you play and run `tiltboard calibrate`")
            }
            let sensor = profile.sensor == nil ? "" : ", sensor calibration"
            return DoctorCheck(id: id, status: .pass,
                               detail: "profile: \(profilePath) (neutral pose from \(profile.createdAt)\(sensor))")
        } catch let error as ProfileError {
            return DoctorCheck(id: id, status: .fail, detail: error.description, cause: .unavailable)
        } catch {
            return DoctorCheck(id: id, status: .fail, detail: "profile \(profilePath): \(error)", cause: .unavailable)
        }
    }

    private func formatHz(_ hz: Double) -> String {
        hz == hz.rounded() ? "\(Int(hz)) Hz" : "\(hz) Hz"
    }
}

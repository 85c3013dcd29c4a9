import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardServer

/// What to do about an error, as the command-line tool says it. The library's errors say what
/// failed and where; the fix (wiring, the udev rule, a command to run) is the tool's to give.
enum Advice {
    /// `error`'s one line, followed by the fix when there is one.
    static func message(for error: Error) -> String {
        let line = worded(error)
        guard let fix = advice(for: error) else { return line }
        switch error {
        case let error as ProfileError where error.remedy != .nameAProfileFile: return "\(line) (\(fix))"
        case let error as UInputError where error.kind == .missing: return "\(line); \(fix)"
        default: return "\(line): \(fix)"
        }
    }

    /// The error's line in this tool's terms: the option that set what failed, and the option
    /// that changes it. The libraries name no option of the command line.
    static func worded(_ error: Error) -> String {
        switch error {
        case let error as UDPSenderError: return "--udp \(describe(error))"
        case let error as OutputFileError where error.kind == .overwriteNotAsked:
            return "\(describe(error)): choose another name or pass --force to replace it"
        case let error as FaceTimeout: return "\(describe(error)), or allow more time with --timeout"
        case let error as BoardFileError where error.key.isEmpty && error.errno == ENOENT:
            return "\(describe(error)) (see Boards/ for examples, or omit --board to use the simulated board)"
        case let error as ServeTokenFileError:
            let shown = ServeTokenFileError.shown(error.path)
            switch error.problem {
            case .owner, .symlinkOwner: return "\(describe(error)): remove it (rm \(shown)) or start with --new-token, and a new one is made"
            case .mode: return "\(describe(error)): chmod 600 \(shown)"
            case .notAFile: return "\(describe(error)): remove it, and a new one is made"
            }
        default: return "\(describe(error))"
        }
    }

    /// The likely fix for `error`, nil when its message says all there is.
    static func advice(for error: Error) -> String? {
        switch error {
        case let error as I2CError: return advice(for: error.kind)
        case SensorError.wrongChip: return "check the board file's chip and address, or run `tiltboard probe`"
        case let error as KernelDriverBoundError: return kernelDriverFix(error.binding)
        // The last failure ends the line, so its fix follows it.
        case let error as SensorLostError: return error.lastError.flatMap(advice(for:))
        case let error as GPIOError where error.kind == .permissionDenied:
            return udevRuleAndGroup("gpio")
        case let error as UInputError:
            switch error.kind {
            case .missing:
                return "load it with `sudo modprobe uinput`, and at every boot with `echo uinput | sudo tee /etc/modules-load.d/uinput.conf`"
            case .permissionDenied:
                return "install udev/60-tiltboard.rules (it gives the uinput group access, mode 0660) and join the group with `sudo groupadd -f uinput && sudo usermod -aG uinput $USER`, then log out and in"
            case .io: return nil
            }
        case let error as ProfileError:
            switch error.remedy {
            case .recalibrateOrRestore: return "run `tiltboard calibrate` to measure a new one, or restore \(shownPath(error.path)).bak"
            case .calibrateThisBoard: return "run `tiltboard calibrate` for this board, or pass its own --profile"
            case .nameAProfileFile: return "give --profile the path of a profile file (or a symlink to one)"
            case nil: return nil
            }
        default: return nil
        }
    }

    /// The udev rule installed and applied to the nodes already there, and `group` joined: the
    /// fix for a device node this user may not open, from every command and from `doctor`.
    static func udevRuleAndGroup(_ group: String) -> String {
        "install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the \(group) group (sudo usermod -aG \(group) $USER, then log in again)"
    }

    /// The fix `doctor` gives for what one of its checks found, nil when there is nothing to do.
    /// A failure the other commands also meet (the bus, the chip, a GPIO line, a kernel driver)
    /// gets the same fix they give.
    static func doctorFix(for finding: DoctorFinding) -> String? {
        let loadI2CDev = "sudo modprobe i2c-dev, and add i2c-dev to /etc/modules so it loads at boot"
        let raiseClock = "add dtparam=i2c_arm_baudrate=400000 to /boot/firmware/config.txt and reboot"
        switch finding {
        case .i2cDevNotLoaded:
            return loadI2CDev
        case let .busMissing(_, present, bootConfig, i2cDevLoaded):
            if let bootConfig, !bootConfig.enablesI2C {
                return "add dtparam=i2c_arm=on to \(bootConfig.file) (or sudo raspi-config → Interface Options → I2C), then reboot"
            }
            if bootConfig != nil, !i2cDevLoaded { return loadI2CDev }
            if !present.isEmpty { return "set the board file's sensor.bus to one of: \(present.joined(separator: ", "))" }
            return "enable I²C: sudo raspi-config → Interface Options → I2C (dtparam=i2c_arm=on), then reboot; elsewhere sudo modprobe i2c-dev"
        case let .busClock(hz, _, _, _, _, limit?):
            switch limit {
            case let .aboveChipMaximum(maxHz):
                return "set dtparam=i2c_arm_baudrate=\(maxHz) (or lower) in /boot/firmware/config.txt and reboot"
            case let .rateAboveAdvice(maxRateHz, _):
                return raiseClock + ", or set sensor.rateHz to \(Int(maxRateHz)) or less"
            case let .overloaded(chipMaxHz):
                return hz < chipMaxHz ? raiseClock + ", or lower sensor.rateHz" : "lower sensor.rateHz, or set sensor.fifo to true"
            }
        case let .busOpenFailed(device, _, _):
            return "check that \(device) is an i2c-dev node (ls -l \(device))"
        case let .busPermissionDenied(device, _, group, access):
            switch access {
            case .noUdevRule: return udevRuleAndGroup(group)
            case let .ownedBy(other):
                return "the udev rule is installed but \(device) belongs to group \(other): sudo udevadm control --reload && sudo udevadm trigger"
            case .groupNotInThisLogin:
                return "you are in the \(group) group but this login is not: log out and in again (or run newgrp \(group))"
            case .notInGroup:
                return "join the \(group) group: sudo usermod -aG \(group) $USER, then log in again"
            }
        case let .kernelDriverBound(binding, _, _):
            return kernelDriverFix(binding)
        case let .sensorNotAnswering(error, _, _), let .busFailed(error):
            return advice(for: error)
        case let .sensorFailed(error):
            return advice(for: error)
        case let .lineFailed(_, error):
            return advice(for: error)
        case let .realtime(limits) where !limits.allowed:
            return "to allow it: add '@i2c - rtprio 50' and '@i2c - memlock unlimited' to /etc/security/limits.d/tiltboard.conf, then log in again"
        case .profileMissing:
            return "hold the board as you play and run `tiltboard calibrate`"
        case let .motorNoise(aspect, report) where aspect.found(in: report):
            return motorNoiseFix(aspect)
        case .simulatedBoard, .busPresent, .busClockUnknown, .busClock, .busOpens, .noKernelDriver, .sensorFound,
             .sensorOther, .lineSimulated, .lineFree, .lineHeld, .lineOther, .noInterruptLine, .realtime,
             .profileFound, .profileInvalid, .profileUnreadable, .noMotor, .motorNoiseMeasured, .motorNoiseStopped, .motorNoise:
            return nil
        }
    }

    /// One fix for each kind of trouble the motor-noise check finds. The pull-ups: the Pi has
    /// 1.8 kΩ on GPIO2/GPIO3 to 3.3 V (Raspberry Pi documentation, "GPIO and the 40-pin
    /// header"), and the I²C-bus specification (UM10204 §7.1) sizes them by the bus's
    /// capacitance; the bus clock: `i2c_arm_baudrate` (raspberrypi/linux
    /// arch/arm/boot/dts/overlays/README, 100000 by default).
    static func motorNoiseFix(_ aspect: DoctorFinding.MotorNoiseAspect) -> String {
        switch aspect {
        case .idle:
            return "check the pull-ups: SDA and SCL each need one to 3.3 V (the Pi has 1.8 kΩ on board); a missing one, or a breakout pulling up to 5 V, makes the bus fail even with the motor off"
        case .switching:
            return "put a flyback diode across the motor (e.g. 1N4148 or 1N5819, cathode to the motor's + side) and drive it through a transistor, never from the GPIO pin itself"
        case .running:
            return "lower the bus speed: add dtparam=i2c_arm_baudrate=50000 to /boot/firmware/config.txt and reboot (check that `tiltboard doctor` still passes the bus clock at the board's rate)"
        case .outages:
            return "give the motor a separate supply (grounds joined), or put a capacitor (100 µF beside 100 nF) across the sensor's VCC and GND"
        case .jumps:
            return "use a shorter cable to the sensor, twist SDA and SCL each with a ground wire, and keep them away from the motor's wires"
        }
    }

    /// The fix for a kernel driver that owns the sensor: the config.txt line that binds it, and
    /// how to release it until the next boot. The Raspberry Pi overlays README
    /// (raspberrypi/linux arch/arm/boot/dts/overlays/README) binds inv-mpu6050-i2c through
    /// `i2c-sensor,mpu6050` or `i2c-sensor,mpu9250` (the older `mpu6050` overlay is deprecated in
    /// their favour) and has no overlay for the LIS3DH (st-accel-i2c) or the ADXL345
    /// (adxl345_i2c): a custom overlay adds those.
    ///
    /// The Sense HAT: its ID EEPROM makes the firmware load the `rpi-sense` overlay (the same
    /// README), which declares `st,lsm9ds1-accel` at 0x6A (bound by st_accel, `st-accel-i2c`,
    /// whose `st_accel_i2c.c` matches that compatible) and `st,lsm9ds1-magn` at 0x1C (st_magn);
    /// the kernel's own LSM9DS1 driver, st_lsm6dsx (`st_lsm6dsx_i2c`), matches
    /// `st,lsm9ds1-imu`, which only a custom overlay declares. The overlay also drives the
    /// HAT's LED matrix and joystick, so the fix releases the sensor alone.
    static func kernelDriverFix(_ binding: I2CDriverBinding) -> String {
        let config = "/boot/firmware/config.txt"
        let remove: String
        switch binding.driver {
        case "inv-mpu6050-i2c":
            let part = binding.deviceName.flatMap { ["mpu6050", "mpu9250"].contains($0) ? $0 : nil } ?? "mpu6050"
            let older = part == "mpu6050" ? " (or the older dtoverlay=mpu6050)" : ""
            remove = "remove dtoverlay=i2c-sensor,\(part)\(older) from \(config) and reboot"
        case "st-accel-i2c" where binding.deviceName?.hasPrefix("lsm9ds1") == true:
            return "the Sense HAT's rpi-sense overlay (loaded from the HAT's EEPROM) binds its LSM9DS1; release it (the LED matrix and joystick keep working) with `echo \(binding.device) | sudo tee /sys/bus/i2c/drivers/\(binding.driver)/unbind`, after every boot (a systemd unit or /etc/rc.local can do it)"
        case "st_lsm6dsx_i2c":
            remove = "remove the dtoverlay line that declares st,lsm9ds1-imu (or another st_lsm6dsx part) from \(config) and reboot"
        default:
            remove = "remove the dtoverlay line that adds it from \(config) and reboot"
        }
        return remove + ", or release it until the next boot with `echo \(binding.device) | sudo tee /sys/bus/i2c/drivers/\(binding.driver)/unbind`"
    }

    private static func advice(for kind: I2CError.Kind) -> String {
        switch kind {
        case .noSuchBus:
            return "enable I²C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt, then reboot) or check the bus number with `ls /dev/i2c-*`"
        case .permissionDenied:
            return udevRuleAndGroup("i2c")
        case .noAcknowledgeAddress, .noAcknowledgeData:
            return "check the wiring (SDA, SCL, 3V3, GND) and the address pin (\(ErrorWording.addressPins)), then try `tiltboard probe`"
        case .bus, .arbitrationLost, .timeout:
            return "check the wiring and pull-ups, shorten the cable or lower the bus speed (dtparam=i2c_arm_baudrate=100000)"
        case .unsupported:
            return "this adapter lacks the transfer type; please report it with the output of `i2cdetect -F`"
        case .other:
            return "retry; if it persists, check the wiring"
        }
    }
}

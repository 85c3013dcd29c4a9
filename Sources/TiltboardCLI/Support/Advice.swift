import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// What to do about an error, as the command-line tool says it. The library's errors say what
/// failed and where; the fix (wiring, the udev rule, a command to run) is the tool's to give.
enum Advice {
    /// `error`'s one line, followed by the fix when there is one.
    static func message(for error: Error) -> String {
        guard let fix = advice(for: error) else { return "\(error)" }
        switch error {
        case let error as ProfileError where error.remedy != .nameAProfileFile: return "\(error) (\(fix))"
        case let error as UInputError where error.kind == .missing: return "\(error); \(fix)"
        default: return "\(error): \(fix)"
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
            return "install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/ && sudo udevadm trigger) and join the gpio group (sudo usermod -aG gpio $USER, then log in again)"
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

    /// The fix `doctor` shows for a failure of its sensor check: what answers is listed by
    /// `probe --all`, and a wrong chip is set from what `probe` finds.
    static func doctorFix(for error: Error) -> String? {
        switch error {
        case let error as I2CError where error.kind == .noAcknowledgeAddress:
            return "check the wiring (SDA, SCL, 3V3, GND) and the address pin (\(ChipRegistry.addressPins)); `tiltboard probe --all` lists what answers"
        case is SensorError:
            return "set the board file's sensor.chip and sensor.address to what `tiltboard probe` finds"
        default:
            return advice(for: error)
        }
    }

    /// The fix for a kernel driver that owns the sensor: the config.txt line that binds it, and
    /// how to release it until the next boot. The Raspberry Pi overlays README
    /// (raspberrypi/linux arch/arm/boot/dts/overlays/README) binds inv-mpu6050-i2c through
    /// `i2c-sensor,mpu6050` or `i2c-sensor,mpu9250` (the older `mpu6050` overlay is deprecated in
    /// their favour) and has no overlay for the LIS3DH (st-accel-i2c) or the ADXL345
    /// (adxl345_i2c): a custom overlay adds those.
    static func kernelDriverFix(_ binding: I2CDriverBinding) -> String {
        let config = "/boot/firmware/config.txt"
        let remove: String
        switch binding.driver {
        case "inv-mpu6050-i2c":
            let part = binding.deviceName.flatMap { ["mpu6050", "mpu9250"].contains($0) ? $0 : nil } ?? "mpu6050"
            let older = part == "mpu6050" ? " (or the older dtoverlay=mpu6050)" : ""
            remove = "remove dtoverlay=i2c-sensor,\(part)\(older) from \(config) and reboot"
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
            return "install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/) and join the i2c group (sudo usermod -aG i2c $USER, then log in again)"
        case .noAcknowledgeAddress, .noAcknowledgeData:
            return "check the wiring (SDA, SCL, 3V3, GND) and the address pin (\(ChipRegistry.addressPins)), then try `tiltboard probe`"
        case .bus, .arbitrationLost, .timeout:
            return "check the wiring and pull-ups, shorten the cable or lower the bus speed (dtparam=i2c_arm_baudrate=100000)"
        case .unsupported:
            return "this adapter lacks the transfer type; please report it with the output of `i2cdetect -F`"
        case .other:
            return "retry; if it persists, check the wiring"
        }
    }
}

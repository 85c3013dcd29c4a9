import Tiltboard
import TiltboardCore
import TiltboardDrivers

/// What to do about an error, as the command-line tool says it. The library's errors say what
/// failed and where; the fix (wiring, the udev rule, a command to run) is the tool's to give.
enum Advice {
    /// `error`'s one line, followed by the fix when there is one.
    static func message(for error: Error) -> String {
        advice(for: error).map { "\(error): \($0)" } ?? "\(error)"
    }

    /// The likely fix for `error`, nil when its message says all there is.
    static func advice(for error: Error) -> String? {
        switch error {
        case let error as I2CError: return advice(for: error.kind)
        case SensorError.wrongChip: return "check the board file's chip and address, or run `tiltboard probe`"
        // The last failure ends the line, so its fix follows it.
        case let error as SensorLostError: return error.lastError.flatMap(advice(for:))
        default: return nil
        }
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

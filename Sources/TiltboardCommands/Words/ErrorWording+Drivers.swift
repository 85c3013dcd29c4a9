import Tiltboard
import TiltboardCore
import TiltboardDrivers

// The sentences for TiltboardDrivers' bus and sensor errors, and for the loop's lost sensor, which
// quotes its last error.

extension ErrorWording {
    /// The sentence for a sensor error (or a lost sensor), or nil when `error` is neither.
    package static func drivers(_ error: Error) -> String? {
        switch error {
        case let error as I2CError: return i2c(error)
        case let error as SensorError: return sensor(error)
        case let error as SensorLostError: return sensorLost(error)
        default: return nil
        }
    }

    /// One line: what failed on the bus and where, with the kernel's errno and text. What to do
    /// about it is the command line's advice.
    package static func i2c(_ error: I2CError) -> String {
        let device = error.device
        var what = "I²C "
        switch error.kind {
        case .noSuchBus: what += "bus \(device) does not exist"
        case .permissionDenied: what += "bus \(device): permission denied"
        case .noAcknowledgeAddress: what += "no device answers at \(error.address.map(\.hex) ?? "?") on \(device)"
        case .noAcknowledgeData: what += "device \(error.address.map(\.hex) ?? "?") on \(device) stopped acknowledging"
        case .bus: what += "bus error on \(device)"
        case .arbitrationLost: what += "arbitration lost on \(device)"
        case .timeout: what += "timeout on \(device)"
        case .unsupported: what += "transfer not supported by the adapter of \(device)"
        case .other: what += "failure on \(device)"
        }
        var context: [String] = []
        if let address = error.address, error.kind != .noAcknowledgeAddress, error.kind != .noAcknowledgeData {
            context.append("address \(address.hex)")
        }
        if let register = error.register { context.append("register \(register.hex)") }
        if let errno = error.errno { context.append("errno \(errno)" + (error.detail.map { " \($0)" } ?? "")) }
        else if let refusal = error.refusal { context.append(refusalWords(refusal)) }
        else if let cause = error.cause { context.append(causeWords(cause)) }
        else if let detail = error.detail { context.append(detail) }
        if !context.isEmpty { what += " (" + context.joined(separator: ", ") + ")" }
        return what
    }

    /// What a failure without an errno was: `short read: 3 of 14 bytes`, `simulated: no device`.
    package static func causeWords(_ cause: I2CError.Cause) -> String {
        switch cause {
        case let .shortRead(read, expected): return "short read: \(read) of \(expected) bytes"
        case let .partialTransfer(transferred, messages): return "only \(transferred) of \(messages) messages transferred"
        case .simulatedNoDevice: return "simulated: no device"
        case .simulatedFault: return "simulated fault"
        }
    }

    /// Each chip's address pin and addresses, for advice on wiring:
    /// `MPU-6050 AD0: 0x68 low / 0x69 high; ADXL345 ALT ADDRESS: 0x53 low / 0x1D high`.
    package static var addressPins: String {
        ChipRegistry.all.map {
            "\($0.partName) \($0.addressPinName): \($0.addresses[0].hex(uppercase: true)) low / \($0.addresses[1].hex(uppercase: true)) high"
        }.joined(separator: "; ")
    }

    /// Why the adapter cannot do the transfer.
    package static func refusalWords(_ refusal: I2CError.Refusal) -> String {
        switch refusal {
        case let .noUsableTransfers(mask):
            return "adapter offers neither plain I²C nor SMBus byte-data transfers (functionality \(mask.hex))"
        case let .smbusWriteBeforeRead(bytes): return "the adapter only does SMBus transfers, which cannot send \(bytes) bytes before a read"
        case let .messageTooLong(bytes): return "transfer of \(bytes) bytes exceeds the 8192-byte message limit"
        case let .simulatedDataBeforeRead(bytes):
            return "the simulated bus takes only a sub-address before a repeated-start read, not \(bytes) data bytes"
        }
    }

    /// A chip that is not the one expected, does not keep its configuration, or cannot take a setting.
    package static func sensor(_ error: SensorError) -> String {
        switch error {
        case let .wrongChip(found, address, bus, expected):
            return "found \(found.hex) at \(address.hex) on \(bus), expected \(expectedChip(expected))"
        case let .verifyFailed(register, wrote, read, bus, address):
            return "register \(register.hex) of the chip at \(address.hex) on \(bus) reads back \(read.hex) after writing \(wrote.hex): "
                + "the chip is not keeping its configuration (power, wiring or a clone part)"
        case let .unsupportedSetting(setting, chip, allowed):
            return "\(chip) cannot use \(settingWords(setting)): \(allowedWords(allowed, for: setting))"
        case let .configurationLost(register, configured, read, bus, address):
            return "register \(register.hex) of the chip at \(address.hex) on \(bus) reads \(read.hex), not the configured \(configured.hex): "
                + "the chip reset (a power glitch or brown-out) and lost its configuration"
        }
    }

    /// `0x68 (MPU-6050) or a known compatible ID (0x70, 0x98)`, `0x70 (MPU-6500, as when the board was opened)`.
    package static func expectedChip(_ expected: ExpectedChip) -> String {
        if expected.asWhenOpened { return "\(expected.id.hex) (\(expected.part), as when the board was opened)" }
        let first = "\(expected.id.hex) (\(expected.part))"
        guard !expected.compatibleIDs.isEmpty else { return first }
        return first + " or a known compatible ID (" + expected.compatibleIDs.map(\.hex).joined(separator: ", ") + ")"
    }

    /// The warning for a clone or compatible part: `WHO_AM_I 0x70 at 0x68 on /dev/i2c-1 is an MPU-6500, not a genuine MPU-6050: …`.
    package static func cloneWarning(_ warning: CloneWarning, of identity: SensorIdentity) -> String {
        "\(warning.idRegister) \(identity.chipID.hex) at \(identity.address.hex) on \(identity.bus) is an \(warning.part), "
            + "not a genuine \(warning.genuinePart): accepted as compatible; if readings look wrong, try a genuine \(warning.genuinePart)"
    }

    /// `accelerometer range 6 g`, `a sample rate of 0.0 Hz`, `wake-on-motion`.
    package static func settingWords(_ setting: SensorSetting) -> String {
        switch setting {
        case let .accelerometerRange(g): return "accelerometer range \(g) g"
        case let .gyroRange(dps): return "gyro range \(dps) °/s"
        case let .sampleRate(hz): return "a sample rate of \(hz) Hz"
        case let .motionThreshold(g): return "a motion threshold of \(g) g"
        case .offsetRegisters: return "offset registers"
        case .wakeOnMotion: return "wake-on-motion"
        }
    }

    /// What the chip takes instead, and what to do.
    package static func allowedWords(_ allowed: SensorSettingAllowed, for setting: SensorSetting) -> String {
        switch allowed {
        case let .oneOf(values):
            let unit: String
            switch setting {
            case .gyroRange: unit = "°/s"
            case .sampleRate: unit = "Hz"
            default: unit = "g"
            }
            return "choose one of \(values.map(String.init).joined(separator: ", ")) \(unit)"
        case .positiveRate: return "give a positive rate in Hz"
        case let .upToG(most): return "give more than 0 and at most \(most) g"
        case .noOffsetRegisters: return "it has none; the profile corrects in software"
        case .offsetRegistersNotProgrammed: return "this driver does not program them; the profile corrects in software"
        case .interruptGeneratorNotArmed: return "this driver does not arm its interrupt generator; run without wake-on-motion"
        case .wakeOnMotionNotArmed: return "this driver does not arm its wake-on-motion yet; run without wake-on-motion"
        }
    }

    /// The loop gave up on a sensor: the chip, the span and its last error, worded in turn.
    package static func sensorLost(_ error: SensorLostError) -> String {
        let seconds = error.seconds
        let s = seconds == seconds.rounded() && seconds < 1e9 ? String(Int(seconds)) : String(seconds)
        return "no sample from the \(error.part) at \(error.address.hex) on \(error.bus) for \(s) s, giving up; "
            + "last error: \(error.lastError.map { describe($0) } ?? "none")"
    }
}

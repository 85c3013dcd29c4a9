import TiltboardCore

/// What a driver found when it identified the chip.
public struct SensorIdentity: Sendable, Equatable, Codable {
    /// The chip family.
    public var chip: ChipKind
    /// The part actually found, e.g. "MPU-6050" or "MPU-6500 (clone ID 0x70)".
    public var part: String
    /// WHO_AM_I / DEVID value read.
    public var chipID: UInt8
    /// The bus device (`/dev/i2c-1`) or `simulated`.
    public var bus: String
    /// The chip's 7-bit I²C address.
    public var address: UInt8
    /// Set when the ID is a known clone or compatible part, accepted with a warning.
    public var warning: CloneWarning?

    /// An identity as a driver reports it.
    public init(chip: ChipKind, part: String, chipID: UInt8, bus: String, address: UInt8, warning: CloneWarning? = nil) {
        self.chip = chip; self.part = part; self.chipID = chipID; self.bus = bus; self.address = address; self.warning = warning
    }
}

/// A part accepted in place of its family's reference part (a clone or a compatible part): the
/// identity's warning, which a program words for people (the ID, bus and address are the identity's).
public struct CloneWarning: Sendable, Equatable, Codable {
    /// The ID register's name as the data sheet writes it: `WHO_AM_I`.
    public var idRegister: String
    /// The part found: `MPU-6500`.
    public var part: String
    /// The family's reference part it stands in for, the one to try when readings look wrong: `MPU-6050`.
    public var genuinePart: String

    /// A warning that `part` answered where `genuinePart` was expected.
    public init(idRegister: String, part: String, genuinePart: String) {
        self.idRegister = idRegister; self.part = part; self.genuinePart = genuinePart
    }
}

/// The chip a driver expected to find, for `SensorError.wrongChip`.
public struct ExpectedChip: Sendable, Equatable, CustomStringConvertible {
    /// The reference part's ID register value.
    public var id: UInt8
    /// The part's name: `MPU-6050`, or the part found when the board was opened.
    public var part: String
    /// The IDs of the other parts accepted as compatible, in the driver's order.
    public var compatibleIDs: [UInt8]
    /// True when the chip was checked again after the board was opened, and `id` is what it answered then.
    public var asWhenOpened: Bool

    /// The chip `part` answering `id`, or one of `compatibleIDs`.
    public init(id: UInt8, part: String, compatibleIDs: [UInt8] = [], asWhenOpened: Bool = false) {
        self.id = id; self.part = part; self.compatibleIDs = compatibleIDs; self.asWhenOpened = asWhenOpened
    }

    /// The fields, for a log: `0x68 MPU-6050 [0x70, 0x71]`.
    public var description: String {
        "\(id.hex) \(part)" + (compatibleIDs.isEmpty ? "" : " [\(compatibleIDs.map(\.hex).joined(separator: ", "))]")
            + (asWhenOpened ? " opened" : "")
    }
}

/// Settings a driver programs into the chip.
public struct SensorConfiguration: Sendable, Equatable, Codable {
    /// Full-scale accelerometer range in g: 2, 4, 8 or 16.
    public var accelRangeG: Int
    /// Full-scale gyro range in °/s (MPU-6050): 250, 500, 1000 or 2000.
    public var gyroRangeDps: Int
    /// Output data rate in Hz; the driver picks the nearest rate the chip supports.
    public var rateHz: Double
    /// Collect samples in the chip's FIFO (read them with `drainFIFO`).
    public var useFIFO: Bool

    /// A configuration; the defaults are ±2 g, ±500 °/s, 100 Hz, no FIFO.
    public init(accelRangeG: Int = 2, gyroRangeDps: Int = 500, rateHz: Double = 100, useFIFO: Bool = false) {
        self.accelRangeG = accelRangeG; self.gyroRangeDps = gyroRangeDps; self.rateHz = rateHz; self.useFIFO = useFIFO
    }
}

/// A chip setting that `SensorError.unsupportedSetting` names, with the value asked for.
public enum SensorSetting: Sendable, Equatable {
    /// The accelerometer's full-scale range, in g.
    case accelerometerRange(g: Int)
    /// The gyroscope's full-scale range, in degrees per second.
    case gyroRange(degreesPerSecond: Int)
    /// The output data rate, in Hz.
    case sampleRate(hz: Double)
    /// The wake-on-motion threshold, in g.
    case motionThreshold(g: Double)
    /// The chip's accelerometer offset registers.
    case offsetRegisters
    /// Wake-on-motion (the chip's motion interrupt).
    case wakeOnMotion
}

/// What a chip can take instead of an unsupported setting.
public enum SensorSettingAllowed: Sendable, Equatable {
    /// One of these values, in the setting's unit.
    case oneOf([Int])
    /// A positive, finite rate.
    case positiveRate
    /// More than 0 and at most this many g.
    case upToG(Double)
    /// The chip has no such registers; the profile corrects in software.
    case noOffsetRegisters
    /// The driver does not program the chip's offset registers; the profile corrects in software.
    case offsetRegistersNotProgrammed
    /// The driver does not arm the chip's interrupt generator.
    case interruptGeneratorNotArmed
    /// The driver does not arm the chip's wake-on-motion yet.
    case wakeOnMotionNotArmed
}

/// A driver failure above the bus level.
public enum SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The chip ID is not one the driver accepts: `expected` names the accepted IDs and part.
    case wrongChip(found: UInt8, address: UInt8, bus: String, expected: ExpectedChip)
    /// A register read back differently from what was written.
    case verifyFailed(register: UInt8, wrote: UInt8, read: UInt8, bus: String, address: UInt8)
    /// A setting the chip (its part name) cannot take, with the value asked for, and what it
    /// can take instead.
    case unsupportedSetting(SensorSetting, chip: String, allowed: SensorSettingAllowed)
    /// A register `configure` set reads back at another value: the chip reset (a brown-out or
    /// power glitch returns it to its power-on state) or something else rewrote it.
    case configurationLost(register: UInt8, configured: UInt8, read: UInt8, bus: String, address: UInt8)

    /// The case and its fields, for a log: `SensorError.verifyFailed(register: 0x23, …)`. A
    /// program words it for people.
    public var description: String {
        switch self {
        case let .wrongChip(found, address, bus, expected):
            return "SensorError.wrongChip(found: \(found.hex), address: \(address.hex), bus: \(bus), expected: \(expected))"
        case let .verifyFailed(register, wrote, read, bus, address):
            return "SensorError.verifyFailed(register: \(register.hex), wrote: \(wrote.hex), read: \(read.hex), bus: \(bus), address: \(address.hex))"
        case let .unsupportedSetting(setting, chip, allowed):
            return "SensorError.unsupportedSetting(\(setting), chip: \(chip), allowed: \(allowed))"
        case let .configurationLost(register, configured, read, bus, address):
            return "SensorError.configurationLost(register: \(register.hex), configured: \(configured.hex), read: \(read.hex), bus: \(bus), address: \(address.hex))"
        }
    }
}

/// A motion sensor driver: identify, configure, read samples in physical units.
///
/// `read` and `drainFIFO` do one bus transaction per sample or per FIFO batch and allocate nothing.
public protocol MotionSensor: AnyObject {
    /// The part found at `init`: chip, part name, ID, bus and address.
    var identity: SensorIdentity { get }
    /// The settings of the last `configure` (the defaults before it).
    var configuration: SensorConfiguration { get }
    /// The output data rate actually programmed, in Hz.
    var actualRateHz: Double { get }
    /// FIFO overflows `drainFIFO` met (each one reset the FIFO and lost its contents); 0 for a
    /// chip whose FIFO keeps the newest samples instead.
    var fifoOverflows: Int { get }
    /// FIFO frames `drainFIFO` dropped on purpose since `configure` (the MPU-6050 family's first
    /// frame after start-up, whose gyro sample is out of specification).
    var fifoFramesSkipped: Int { get }

    /// Programs range, rate and filter, reads every written register back, and starts measuring.
    func configure(_ configuration: SensorConfiguration) throws
    /// Reads one coherent sample (one burst). `t` is stamped by the caller's clock.
    func read(at t: Double) throws -> Sample
    /// Reads every sample waiting in the FIFO, oldest first, calling `body` for each. `t` is the
    /// caller's time for now. Sample times are spaced by the output period, ending when the FIFO
    /// count was read (`t` plus the driver's clock since the call), and increase strictly from
    /// call to call while `t` does not go back (`FIFOTimestamps`). Returns how many were read.
    @discardableResult
    func drainFIFO(at t: Double, _ body: (Sample) -> Void) throws -> Int
    /// Puts the chip into sleep / standby.
    func sleep() throws
    /// Reads the ID register again; throws `SensorError.wrongChip` when it no longer holds the ID
    /// found at `init` (another part, or a glitching bus).
    func reidentify() throws
    /// One single-byte read of a register that `configure` set and a power-on reset clears
    /// (MPU-6050 PWR_MGMT_1, ADXL345 POWER_CTL); throws `SensorError.configurationLost` when it
    /// differs. Before the first `configure` there is nothing to check and nothing is read.
    func checkConfiguration() throws
    /// Programs the chip's own offset registers so its output is corrected by `accelOffsetG`
    /// (subtracted) and, where present, `gyroBiasDps`.
    func writeOffsets(accelOffsetG: Vector3, gyroBiasDps: Vector3?) throws
    /// Programs the chip's own motion detector (MPU-6050 motion interrupt, ADXL345 activity) to
    /// flag acceleration changes above `thresholdG` on any axis, and routes the flag to its INT
    /// pin, active high and latched until `acknowledgeMotionInterrupt` reads it. Sampling goes on.
    func armMotionInterrupt(thresholdG: Double) throws
    /// Reads (and so clears) the chip's interrupt status; true if motion was flagged since the
    /// previous read. The INT pin drops when the latch clears.
    func acknowledgeMotionInterrupt() throws -> Bool
    /// After motion woke the loop: puts back what `armMotionInterrupt` changed in the sampling
    /// (a part that compares consecutive samples is armed at a rate of its own), so reads go on
    /// as configured.
    func disarmMotionInterrupt() throws
}

/// A driver of this package: the accepted part found at `init`, its offset registers, FIFO,
/// temperature formula and motion registers (`ChipVariant`).
package protocol ChipVariantReporting: AnyObject {
    var chipVariant: any ChipVariant { get }
}

extension MotionSensor {
    /// The accepted part found at `init` (`ChipVariantReporting`; every driver of this package
    /// reports one).
    package var chipVariant: any ChipVariant { (self as! any ChipVariantReporting).chipVariant }

    /// Arming changed nothing in the sampling.
    public func disarmMotionInterrupt() throws {}
}

import TiltboardCore

/// A chip family's name in board files and profiles (`"mpu6050"`, `"adxl345"`): the key of
/// `ChipRegistry`.
///
/// Only registered names make a `ChipKind`: `init(rawValue:)` returns nil for any other, and
/// decoding one throws, so holding a `ChipKind` means its `chip` description exists. Each chip's
/// folder declares its own constant (`extension ChipKind { static let mpu6050 … }`).
public struct ChipKind: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    public let rawValue: String

    /// The registered chip named `rawValue`, or nil.
    public init?(rawValue: String) {
        guard ChipRegistry.all.contains(where: { $0.kind.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    /// For a chip description declaring its own name; nothing else makes an unchecked kind.
    init(registering rawValue: String) { self.rawValue = rawValue }

    /// Every registered chip, in registry (probe) order.
    public static var allCases: [ChipKind] { ChipRegistry.all.map(\.kind) }

    /// What the registry knows about this chip.
    package var details: any ChipDescription { ChipRegistry.description(of: self) }

    public var description: String { rawValue }
    /// The reference part's name (`ChipDescription.partName`).
    public var partName: String { details.partName }
    /// Addresses the chip answers at, the default first (`ChipDescription.addresses`).
    public var addresses: [UInt8] { details.addresses }
    /// Bytes of one sample burst (`ChipDescription.sampleBytes`).
    public var sampleBytes: Int { details.sampleBytes }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let kind = ChipKind(rawValue: text) else {
            throw DecodedValueProblem.unknownName(kind: "chip", name: text, known: ChipRegistry.all.map(\.kind.rawValue))
                .decodingError(at: decoder.codingPath)
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// Everything that makes one chip family what it is, as data: how to recognise it, where it
/// answers, what it can be set to, its register map, and how to build its driver.
///
/// One value per family (`MPU6050Chip`, `ADXL345Chip`, …), listed once in `ChipRegistry`.
/// Code outside a chip's own folders reads these properties and never asks which chip it is;
/// the simulated chips (`TiltboardSimulator`) are built from the same `variants` and
/// `ChipVariant.registerMap`, so a wrong map entry fails a round trip instead of agreeing with
/// a private copy.
package protocol ChipDescription: Sendable {
    /// The family's accepted parts; differences between them are fields, not branches.
    associatedtype Variant: ChipVariant

    /// Board-file and profile name, e.g. `"mpu6050"`.
    var kind: ChipKind { get }
    /// The family's reference part as its data sheet names it, for messages: `"MPU-6050"`.
    var partName: String { get }
    /// What the chip does when a command ends: `"sleep"` or `"standby"` (for help and messages).
    var idleStateName: String { get }

    /// 7-bit addresses the chip can answer at, the default (address pin low) first.
    var addresses: [UInt8] { get }
    /// The data sheet's name of the pin that picks the address (`"AD0"`, `"ALT ADDRESS"`), for
    /// help and messages: `addresses[0]` with it low, `addresses[1]` high.
    var addressPinName: String { get }
    /// The register holding the chip ID: read once at open, by probe and by `reidentify`.
    var idRegister: UInt8 { get }
    /// The ID register's data-sheet name for messages: `"WHO_AM_I"`, `"DEVID"`.
    var idRegisterName: String { get }
    /// Every accepted part, the reference part first; each one's `chipID` is unique.
    var variants: [Variant] { get }

    /// Full-scale accelerometer ranges the board file may ask for, in g.
    var accelRangesG: [Int] { get }
    /// The gyroscope, or nil when the chip measures acceleration only.
    var gyroscope: GyroscopeDescription? { get }
    /// Output data rates the board file may ask for, Hz (the driver picks the nearest it can).
    var rateRangeHz: ClosedRange<Double> { get }
    /// Bytes of one sample burst (one bus read per sample): what bus-load figures count.
    var sampleBytes: Int { get }
    /// How the driver empties the FIFO: what `BusBudget` counts for a drain.
    var fifoDrain: FIFODrainForm { get }
    /// Highest SCL the chip takes, Hz (fast mode 400 kHz for both current chips).
    var maxBusClockHz: Int { get }
    /// Highest output rate the data sheet advises when the bus runs below `maxBusClockHz`, Hz;
    /// nil when it names none.
    var maxRateHzBelowFastBus: Double? { get }

    /// How far the accelerometer's zero-g output may move with temperature, from the data
    /// sheet: what the hold-still stage may absorb as drift on a part without a gyro. nil (the
    /// default) when the description gives no figure: nothing is absorbed.
    var zeroGDrift: ZeroGDrift? { get }

    /// Other devices that come with this chip on the boards that carry it (the Sense HAT's
    /// magnetometer, pressure and humidity sensors), which probe names without reading them.
    /// Empty (the default) for most chips.
    var companions: [CompanionDevice] { get }
    /// Whether the driver arms the motion interrupt (`MotionSensor.armMotionInterrupt`) for
    /// `--wake-on-motion`; true (the default) for every chip but those whose driver refuses it.
    var offersWakeOnMotion: Bool { get }

    /// Identifies the chip at `address` (reading `idRegister`) and returns its driver.
    /// Throws `SensorError.wrongChip` for an ID not in `variants`, `I2CError` when the bus fails.
    func makeDriver(bus: any I2CBus, address: UInt8, clock: any MonotonicClock) throws -> any MotionSensor
}

/// One accepted part of a family: the ID it answers with and everything in which it differs
/// from its siblings. Families add fields of their own (filter registers, motion engines) in
/// their own variant type.
package protocol ChipVariant: Sendable {
    /// The ID register's value for this part.
    var chipID: UInt8 { get }
    /// Part name for messages: `"MPU-6500"`, `"ICM-20689"`.
    var part: String { get }
    /// True for a part accepted as compatible though it is not the family's reference part
    /// (the identity then carries a `CloneWarning`); false for the reference part.
    var acceptedAsCompatible: Bool { get }
    /// This part's register map (the same value drives the driver and the simulated part).
    var registerMap: RegisterMap { get }
    /// The accelerometer's offset registers, nil when the part has none the driver programs.
    var accelOffsets: OffsetRegisters? { get }
    /// The gyroscope's offset registers, nil without a gyro or without offsets.
    var gyroOffsets: OffsetRegisters? { get }
    /// The hardware FIFO, nil when the part has none.
    var fifo: FIFOGeometry? { get }
    /// The temperature sensor's transfer function, nil when the part has none the driver reads.
    var temperature: TemperatureFormula? { get }
    /// The registers of the motion (wake-on-motion / activity) interrupt.
    var motion: MotionInterruptRegisters { get }
}

/// An accelerometer's zero-g change with temperature, as its data sheet bounds it.
package struct ZeroGDrift: Sendable, Equatable {
    /// Largest zero-g change per °C, per sensor axis, g/°C.
    package var tempcoGPerC: Vector3
    /// The operating temperature range, °C: the tempco over it is the most drift there can be.
    package var operatingRangeC: Double

    package init(tempcoGPerC: Vector3, operatingRangeC: Double) {
        self.tempcoGPerC = tempcoGPerC; self.operatingRangeC = operatingRangeC
    }
}

/// What a gyroscope can be set to.
package struct GyroscopeDescription: Sendable, Equatable {
    /// Full-scale ranges the board file may ask for, °/s.
    package var rangesDps: [Int]
    package init(rangesDps: [Int]) { self.rangesDps = rangesDps }
}

/// Offset registers that the chip adds to (or subtracts from) its output, per axis.
package struct OffsetRegisters: Sendable, Equatable {
    /// First register of X, Y and Z (the high byte for big-endian words).
    package var x: UInt8, y: UInt8, z: UInt8
    /// Bytes per axis: 1 (a signed byte) or 2 (a signed word).
    package var bytesPerAxis: Int
    /// Word byte order for `bytesPerAxis == 2`.
    package var bigEndian: Bool
    /// Physical value of one LSB: g for accelerometer offsets, °/s for gyro offsets.
    package var unitPerLSB: Double
    /// Bits of each axis's word that are reserved and must be kept as read (MPU accel offsets:
    /// bit 0 of the low byte); 0 when none.
    package var reservedMask: UInt16
    /// True when the three axes sit in consecutive registers (one burst reads them all).
    package var contiguous: Bool { y == x &+ UInt8(bytesPerAxis) && z == y &+ UInt8(bytesPerAxis) }
    /// The smallest change the registers can make, in the unit of `unitPerLSB` (reserved bits skipped).
    package var step: Double { unitPerLSB * Double(reservedMask & 1 != 0 ? 2 : 1) }
    /// The first register of `axis` (0 X, 1 Y, 2 Z).
    @inlinable package func register(axis: Int) -> UInt8 { axis == 0 ? x : axis == 1 ? y : z }

    package init(x: UInt8, y: UInt8, z: UInt8, bytesPerAxis: Int, bigEndian: Bool = true, unitPerLSB: Double,
                reservedMask: UInt16 = 0) {
        self.x = x; self.y = y; self.z = z; self.bytesPerAxis = bytesPerAxis; self.bigEndian = bigEndian
        self.unitPerLSB = unitPerLSB; self.reservedMask = reservedMask
    }
}

/// The hardware FIFO's size and shape.
package struct FIFOGeometry: Sendable, Equatable {
    /// Bytes the FIFO stores.
    package var capacityBytes: Int
    /// Bytes of one frame (one sample) as the driver enables it.
    package var frameBytes: Int
    /// Frames held outside the FIFO proper and read out with it (the ADXL345's output
    /// registers hold a 33rd sample, DS "FIFO"); 0 for most chips.
    package var extraFramesInOutputRegisters: Int
    /// Whole frames the FIFO holds, the extra ones included.
    package var capacityFrames: Int { capacityBytes / frameBytes + extraFramesInOutputRegisters }

    package init(capacityBytes: Int, frameBytes: Int, extraFramesInOutputRegisters: Int = 0) {
        self.capacityBytes = capacityBytes; self.frameBytes = frameBytes
        self.extraFramesInOutputRegisters = extraFramesInOutputRegisters
    }
}

/// A temperature sensor's transfer function: °C = raw / lsbPerC + offsetC.
package struct TemperatureFormula: Sendable, Equatable {
    /// LSB per °C.
    package var lsbPerC: Double
    /// °C at raw 0.
    package var offsetC: Double
    /// °C for a raw reading.
    @inlinable package func celsius(raw: Int16) -> Double { Double(raw) / lsbPerC + offsetC }
    /// The raw reading for `celsius` (what a simulated part puts in its registers), unclamped.
    @inlinable package func raw(celsius: Double) -> Double { (celsius - offsetC) * lsbPerC }

    package init(lsbPerC: Double, offsetC: Double) { self.lsbPerC = lsbPerC; self.offsetC = offsetC }
}

/// The registers of a chip's motion interrupt, as `armMotionInterrupt` and the simulated part use them.
package struct MotionInterruptRegisters: Sendable, Equatable {
    /// The (first) threshold register.
    package var thresholdRegister: UInt8
    /// Threshold registers in a row holding the same code (one per axis on some parts), usually 1.
    package var thresholdRegisterCount: Int
    /// g per threshold LSB, as the part compares.
    package var thresholdGPerLSB: Double
    /// g of `armMotionInterrupt`'s threshold per LSB: `thresholdGPerLSB`, unless the part
    /// compares consecutive samples and the threshold is spread over a window (MPU-6500 family).
    package var thresholdStepG: Double
    /// The interrupt enable register and the bit(s) that enable the motion event in it.
    package var enableRegister: UInt8
    package var enableMask: UInt8
    /// The status register (reading it clears the latch) and the motion bit(s) in it.
    package var statusRegister: UInt8
    package var statusMask: UInt8

    /// What a motion threshold means on every chip: a change of acceleration within about this
    /// window, s, the time constant of the MPU-6050 detector's 0.63 Hz high-pass (ACCEL_HPF 4).
    /// A part with a high-pass of its own sets it no faster than 1 / (2π × window); a part that
    /// compares consecutive samples spreads the threshold over the window.
    package static let thresholdWindowSeconds = 1 / (2 * Double.pi * 0.63)

    package init(thresholdRegister: UInt8, thresholdGPerLSB: Double, enableRegister: UInt8, enableMask: UInt8,
                statusRegister: UInt8, statusMask: UInt8, thresholdRegisterCount: Int = 1,
                thresholdStepG: Double? = nil) {
        self.thresholdRegister = thresholdRegister; self.thresholdGPerLSB = thresholdGPerLSB
        self.thresholdStepG = thresholdStepG ?? thresholdGPerLSB
        self.thresholdRegisterCount = thresholdRegisterCount
        self.enableRegister = enableRegister; self.enableMask = enableMask
        self.statusRegister = statusRegister; self.statusMask = statusMask
    }
}

/// A device at a fixed address beside a chip on the boards that carry it.
package struct CompanionDevice: Sendable, Equatable {
    /// Its 7-bit address.
    package var address: UInt8
    /// What it is, for probe's listing.
    package var name: String

    package init(address: UInt8, name: String) { self.address = address; self.name = name }
}

extension ChipDescription {
    /// No data-sheet figure given: the hold-still stage absorbs no drift.
    package var zeroGDrift: ZeroGDrift? { nil }

    /// None.
    package var companions: [CompanionDevice] { [] }

    package var offersWakeOnMotion: Bool { true }

    /// The accepted part answering with `chipID`, if any.
    package func variant(chipID: UInt8) -> Variant? { variants.first { $0.chipID == chipID } }

    /// The accepted part answering with `chipID`, type-erased (for code holding `any ChipDescription`).
    package func anyVariant(chipID: UInt8) -> (any ChipVariant)? { variant(chipID: chipID) }

    /// The reference part (the first variant).
    package var referenceVariant: Variant { variants[0] }

    /// Every accepted ID, reference part first.
    package var acceptedIDs: [UInt8] { variants.map(\.chipID) }

    /// What `SensorError.wrongChip` says was expected: the reference part's ID and name, and the
    /// IDs of the parts accepted as compatible.
    package var expectedChip: ExpectedChip {
        ExpectedChip(id: variants[0].chipID, part: partName, compatibleIDs: variants.dropFirst().map(\.chipID))
    }

    /// Reads `idRegister` at `address` and returns the accepted variant with the identity a
    /// driver reports (its warning set for a non-reference part). Throws `SensorError.wrongChip`
    /// for an ID not accepted.
    package func identify(_ device: RegisterDevice) throws -> (Variant, SensorIdentity) {
        let id = try device.readByte(idRegister)
        guard let v = variant(chipID: id) else {
            throw SensorError.wrongChip(found: id, address: device.address, bus: device.bus.name,
                                        expected: expectedChip)
        }
        let warning = v.acceptedAsCompatible ? CloneWarning(idRegister: idRegisterName, part: v.part, genuinePart: partName) : nil
        // A compatible part is named with its ID, unless its name already carries it.
        let part = !v.acceptedAsCompatible || v.part.contains("ID ") ? v.part : "\(v.part) (clone ID \(id.hex))"
        let identity = SensorIdentity(chip: kind, part: part, chipID: id, bus: device.bus.name,
                                      address: device.address, warning: warning)
        return (v, identity)
    }
}

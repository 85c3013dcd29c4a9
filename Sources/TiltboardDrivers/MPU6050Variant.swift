import TiltboardCore

/// A WHO_AM_I value the MPU-6050 driver accepts, and how that part differs (sensors.md §1.1, §1.7, §1.9).
///
/// Boards sold as MPU-6050 often carry an MPU-6500 or an unnamed clone; Linux accepts any known
/// ID with a warning, and so does this driver, adjusting what is known to differ.
public struct MPU6050Variant: Sendable, Equatable {
    /// WHO_AM_I value.
    public var chipID: UInt8
    /// Part name for messages.
    public var part: String
    /// Accel offset registers (high byte of X, Y, Z): 0x06/0x08/0x0A on the 6050, 0x77/0x7A/0x7D on the 6500 family.
    public var accelOffsetRegisters: (UInt8, UInt8, UInt8)
    /// FIFO size in bytes (Linux `hw_info[].fifo_size`).
    public var fifoSize: Int
    /// Temperature: °C = raw / lsbPerC + offsetC.
    public var temperatureLSBPerC: Double
    /// °C at raw 0.
    public var temperatureOffsetC: Double
    /// True for anything but a genuine MPU-6050.
    public var isClone: Bool

    /// Describes a variant; the accepted ones are in `accepted`.
    public init(chipID: UInt8, part: String, accelOffsetRegisters: (UInt8, UInt8, UInt8), fifoSize: Int,
                temperatureLSBPerC: Double, temperatureOffsetC: Double, isClone: Bool) {
        self.chipID = chipID; self.part = part; self.accelOffsetRegisters = accelOffsetRegisters
        self.fifoSize = fifoSize; self.temperatureLSBPerC = temperatureLSBPerC
        self.temperatureOffsetC = temperatureOffsetC; self.isClone = isClone
    }

    // Written out because tuples are not Equatable.
    public static func == (a: Self, b: Self) -> Bool {
        a.chipID == b.chipID && a.part == b.part && a.accelOffsetRegisters == b.accelOffsetRegisters
            && a.fifoSize == b.fifoSize && a.temperatureLSBPerC == b.temperatureLSBPerC
            && a.temperatureOffsetC == b.temperatureOffsetC && a.isClone == b.isClone
    }

    /// The genuine part.
    public static let mpu6050 = MPU6050Variant(
        chipID: 0x68, part: "MPU-6050", accelOffsetRegisters: (0x06, 0x08, 0x0A), fifoSize: 1024,
        temperatureLSBPerC: MPU6050Scale.temperatureLSBPerC, temperatureOffsetC: MPU6050Scale.temperatureOffsetC,
        isClone: false)

    // The 6500 family: Linux's temperature scale 2.995178 m°C/LSB with offset 7011 LSB is
    // raw / 333.87 + 21 °C; accel offsets moved to 0x77 (Linux INV_MPU6500_REG_ACCEL_OFFSET).
    private static func mpu6500Family(_ id: UInt8, _ part: String) -> MPU6050Variant {
        MPU6050Variant(chipID: id, part: part, accelOffsetRegisters: (0x77, 0x7A, 0x7D), fifoSize: 512,
                       temperatureLSBPerC: 333.87, temperatureOffsetC: 21, isClone: true)
    }

    // Unnamed clones sold as MPU-6050: treated as the 6050 register layout they are sold as.
    private static func clone(_ id: UInt8, _ part: String) -> MPU6050Variant {
        var v = mpu6050
        v.chipID = id; v.part = part; v.isClone = true
        return v
    }

    /// Every accepted WHO_AM_I, genuine part first.
    public static let accepted: [MPU6050Variant] = [
        mpu6050,
        mpu6500Family(0x70, "MPU-6500"),
        mpu6500Family(0x71, "MPU-9250"),
        clone(0x72, "MPU-6050 clone (ID 0x72, seen on GY-521 boards)"),
        mpu6500Family(0x73, "MPU-9255"),
        clone(0x98, "MPU-6050 clone (ICM-20689-like, ID 0x98)"),
    ]

    /// The variant answering with `chipID`, if accepted.
    public static func variant(chipID: UInt8) -> MPU6050Variant? {
        accepted.first { $0.chipID == chipID }
    }

    /// What `wrongChip` says was expected.
    public static let expectedDescription =
        "0x68 (MPU-6050) or a known compatible ID (" + accepted.dropFirst().map { $0.chipID.hex }.joined(separator: ", ") + ")"
}

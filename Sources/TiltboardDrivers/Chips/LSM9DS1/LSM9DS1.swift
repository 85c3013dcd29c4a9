import TiltboardCore

/// Driver for the accelerometer and gyroscope of ST's LSM9DS1 over any `I2CBus`.
///
/// Both sensors run at the gyro's output rate (DS §3, operating modes); block data update on,
/// and every sample is one 25-byte burst from OUT_TEMP_L through OUT_Z_H_XL (temperature,
/// gyro, accelerometer: the registers between them are read and ignored), so one transaction
/// returns one coherent sample. Bursts rely on CTRL_REG8's IF_ADD_INC, which `configure` keeps
/// set. The magnetometer (a separate device at 0x1C/0x1E) is not used.
public final class LSM9DS1: MotionSensor, ChipVariantReporting {
    /// The part found at `init`: chip, part name, ID, bus and address.
    public let identity: SensorIdentity
    /// The settings of the last `configure` (the defaults before it).
    public private(set) var configuration = SensorConfiguration()
    public private(set) var actualRateHz: Double
    package var chipVariant: any ChipVariant { LSM9DS1Variant() }
    /// Continuous mode keeps the newest 32 samples: the FIFO never needs a reset.
    public var fifoOverflows: Int { 0 }
    public var fifoFramesSkipped: Int { 0 }

    /// WHO_AM_I of the accelerometer and gyroscope (DS §7, WHO_AM_I; the kernel's st_lsm6dsx_core.c).
    package static let deviceID: UInt8 = 0x68
    /// The part's data sheet name.
    package static let partName = "LSM9DS1"
    /// OUT_TEMP_L (0x15) through OUT_Z_H_XL (0x2D).
    package static let burstBytes = Int(LSM9DS1Register.outXLXL) + 6 - Int(LSM9DS1Register.outTempL)

    private let device: RegisterDevice
    private let clock: MonotonicClock
    private let buffer: UnsafeMutableRawBufferPointer
    private var accelGPerLSB = LSM9DS1Scale.accelMilliGPerLSB[0] / 1000
    private var gyroDpsPerLSB = LSM9DS1Scale.gyroMilliDpsPerLSB[0] / 1000
    /// CTRL_REG1_G as `configure` left it (nil before): what `checkConfiguration` expects.
    private var configuredControl1G: UInt8?
    private var stamps = FIFOTimestamps()

    /// Reads WHO_AM_I; throws `SensorError.wrongChip` unless it is 0x68.
    public init(bus: I2CBus, address: UInt8 = 0x6A, clock: MonotonicClock) throws {
        let chip = LSM9DS1Chip()
        device = RegisterDevice(bus: bus, address: address, map: chip.referenceVariant.registerMap)
        identity = try chip.identify(device).1
        self.clock = clock
        actualRateHz = 0  // power-down until configured
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// SW_RESET (every register back to its power-on value, DS §7 CTRL_REG8), then BDU with
    /// IF_ADD_INC, the gyro and accelerometer at the rate and ranges asked for, nothing routed
    /// to INT1, the FIFO reset through bypass and set to continuous (or left off), every
    /// written register read back, and a wait of `LSM9DS1Scale.settlingPeriods` output periods.
    public func configure(_ configuration: SensorConfiguration) throws {
        let chip = identity.part
        let accel = try tableIndex(of: configuration.accelRangeG, in: LSM9DS1Scale.accelRangesG,
                                   setting: { .accelerometerRange(g: $0) }, chip: chip)
        let gyro = try tableIndex(of: configuration.gyroRangeDps, in: LSM9DS1Scale.gyroRangesDps,
                                  setting: { .gyroRange(degreesPerSecond: $0) }, chip: chip)
        try checkRate(configuration.rateHz, chip: chip)
        let rate = LSM9DS1Scale.nearestRate(configuration.rateHz)

        // SW_RESET clears itself on silicon, not on i2c-stub: wait, never poll.
        try device.write(LSM9DS1Register.control8, LSM9DS1Control8.softwareReset | LSM9DS1Control8.autoIncrement)
        wait(clock, nanoseconds: LSM9DS1Scale.resetNanoseconds)
        try device.configure(LSM9DS1Register.control8, LSM9DS1Control8.blockDataUpdate | LSM9DS1Control8.autoIncrement)
        let control1G = rate.code << 5 | LSM9DS1Scale.gyroRangeCodes[gyro] << 3
        try device.configure(LSM9DS1Register.control1G, control1G)
        try device.configure(LSM9DS1Register.control6XL, rate.code << 5 | LSM9DS1Scale.accelRangeCodes[accel] << 3)
        // Written even at their power-on values: i2c-stub keeps registers across SW_RESET.
        try device.configure(LSM9DS1Register.int1Control, 0)
        try device.configure(LSM9DS1Register.control4, 0x38)
        if configuration.useFIFO {
            // Bypass empties the FIFO (DS §3.5.1); continuous keeps the newest 32.
            try device.write(LSM9DS1Register.fifoControl, LSM9DS1FIFOMode.bypass.rawValue)
            try device.configure(LSM9DS1Register.control9, LSM9DS1Control9.fifoEnable)
            try device.configure(LSM9DS1Register.fifoControl, LSM9DS1FIFOMode.continuous.rawValue)
        } else {
            try device.configure(LSM9DS1Register.control9, 0)
            try device.configure(LSM9DS1Register.fifoControl, LSM9DS1FIFOMode.bypass.rawValue)
        }
        try device.verifyConfiguration()
        wait(clock, nanoseconds: UInt64(Nanoseconds.periods(Double(LSM9DS1Scale.settlingPeriods), hz: rate.hz).rounded(.up)))

        self.configuration = configuration
        actualRateHz = rate.hz
        accelGPerLSB = LSM9DS1Scale.accelMilliGPerLSB[accel] / 1000
        gyroDpsPerLSB = LSM9DS1Scale.gyroMilliDpsPerLSB[gyro] / 1000
        configuredControl1G = control1G
    }

    public func read(at t: Double) throws -> Sample {
        try device.read(LSM9DS1Register.outTempL, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Self.burstBytes]))
        return decode(t: t)
    }

    /// FIFO_SRC's FSS gives the unread samples (0…32); each is one burst as in `read` (the
    /// FIFO moves on once OUT_Z_H_XL was read), the batch ending when FIFO_SRC was read.
    @discardableResult
    public func drainFIFO(at t: Double, _ body: (Sample) -> Void) throws -> Int {
        stamps.beginDrain(at: t, clock: clock)
        let source = try device.readByte(LSM9DS1Register.fifoSource)
        let end = stamps.countRead(clock: clock)
        let entries = Swift.min(Int(source & LSM9DS1FIFOSource.levelMask), LSM9DS1Scale.fifoDepth)
        let period = 1 / actualRateHz
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Self.burstBytes])
        for i in 0..<entries {
            try device.read(LSM9DS1Register.outTempL, into: burst)
            body(decode(t: stamps.stamp(i, of: entries, endingAt: end, period: period)))
        }
        return entries
    }

    /// Power-down: ODR_G and ODR_XL 0, ranges kept.
    public func sleep() throws {
        try device.write(LSM9DS1Register.control1G, (configuredControl1G ?? 0) & 0x1F)
        try device.write(LSM9DS1Register.control6XL, 0)
    }

    public func reidentify() throws {
        try checkChipID(device, register: LSM9DS1Register.whoAmI, expected: identity.chipID, part: identity.part)
    }

    /// CTRL_REG1_G is the tell: power-on and SW_RESET leave it at 0x00, power-down.
    public func checkConfiguration() throws {
        guard let configuredControl1G else { return }
        try device.checkHeld(LSM9DS1Register.control1G, configured: configuredControl1G)
    }

    /// The LSM9DS1 has no output offset registers (`chipVariant.accelOffsets` is nil): offsets
    /// are corrected in software only.
    public func writeOffsets(accelOffsetG: Vector3, gyroBiasDps: Vector3?) throws {
        throw SensorError.unsupportedSetting(.offsetRegisters, chip: identity.part, allowed: .noOffsetRegisters)
    }

    /// Not offered on this chip yet: its interrupt generator is not armed by this driver.
    public func armMotionInterrupt(thresholdG: Double) throws {
        throw SensorError.unsupportedSetting(.wakeOnMotion, chip: identity.part, allowed: .interruptGeneratorNotArmed)
    }

    public func acknowledgeMotionInterrupt() throws -> Bool { false }

    /// Temperature at 0, gyro at 3, accelerometer at 19 (0x28 − 0x15) of the burst.
    private func decode(t: Double) -> Sample {
        let temp = Double(int16LittleEndian(buffer, 0)) / LSM9DS1Scale.temperatureLSBPerC + LSM9DS1Scale.temperatureOffsetC
        let g = Int(LSM9DS1Register.outXLG - LSM9DS1Register.outTempL)
        let a = Int(LSM9DS1Register.outXLXL - LSM9DS1Register.outTempL)
        let gyro = Vector3(Double(int16LittleEndian(buffer, g)), Double(int16LittleEndian(buffer, g + 2)),
                           Double(int16LittleEndian(buffer, g + 4))) * gyroDpsPerLSB
        let accel = Vector3(Double(int16LittleEndian(buffer, a)), Double(int16LittleEndian(buffer, a + 2)),
                            Double(int16LittleEndian(buffer, a + 4))) * accelGPerLSB
        return Sample(t: t, accel: accel, gyro: gyro, tempC: temp)
    }
}

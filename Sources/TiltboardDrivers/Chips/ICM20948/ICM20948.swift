import TiltboardCore

/// Driver for the accelerometer and gyroscope of TDK InvenSense's ICM-20948 over any `I2CBus`.
///
/// Its registers sit in four banks behind REG_BANK_SEL (0x7F). The driver's `RegisterDevice`
/// knows the selected bank at every transaction: `configure` visits bank 2 for the rates and
/// ranges and returns to bank 0, where every sample, FIFO batch, status and ID read happens,
/// so the sampling path never writes REG_BANK_SEL. A failed transaction leaves the bank
/// unknown and the next call selects bank 0 again; DEVICE_RESET puts the part (and the
/// device's record of it) back in bank 0, as a power-on does.
///
/// Every sample is one 14-byte burst from ACCEL_XOUT_H (accel, gyro, temperature).
public final class ICM20948: MotionSensor, ChipVariantReporting {
    /// The part found at `init`: chip, part name, ID, bus and address.
    public let identity: SensorIdentity
    /// The settings of the last `configure` (the defaults before it).
    public private(set) var configuration = SensorConfiguration()
    public private(set) var actualRateHz: Double
    public private(set) var fifoOverflows = 0
    public var fifoFramesSkipped: Int { 0 }
    package var chipVariant: any ChipVariant { ICM20948Variant() }

    /// WHO_AM_I (bank 0 register 0x00, DS §8).
    package static let deviceID: UInt8 = 0xEA
    /// The part's data sheet name.
    package static let partName = "ICM-20948"

    private let device: RegisterDevice
    private let clock: MonotonicClock
    private let buffer: UnsafeMutableRawBufferPointer
    private var accelLSBPerG = ICM20948Scale.accelLSBPerG[0]
    private var gyroLSBPerDps = ICM20948Scale.gyroLSBPerDps[0]
    /// PWR_MGMT_1 as `configure` left it (nil before): what `checkConfiguration` expects.
    private var configuredPower: UInt8?
    private var stamps = FIFOTimestamps()

    /// Selects bank 0 and reads WHO_AM_I; throws `SensorError.wrongChip` unless it is 0xEA.
    public init(bus: I2CBus, address: UInt8 = 0x68, clock: MonotonicClock) throws {
        let chip = ICM20948Chip()
        device = RegisterDevice(bus: bus, address: address, map: chip.referenceVariant.registerMap)
        try device.selectBank(0)
        identity = try chip.identify(device).1
        self.clock = clock
        actualRateHz = 0
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ICM20948Scale.fifoBytes, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// DEVICE_RESET (the part returns to bank 0), wake on the auto-selected clock with every
    /// axis on; in bank 2 the gyro and accel dividers, low-pass filters and ranges; back in
    /// bank 0 the FIFO (reset, then accel, gyro and temperature in stream mode) or none; each
    /// bank's registers read back before leaving it.
    public func configure(_ configuration: SensorConfiguration) throws {
        let chip = identity.part
        let afs = try tableIndex(of: configuration.accelRangeG, in: ICM20948Scale.accelRangesG,
                                 setting: { .accelerometerRange(g: $0) }, chip: chip)
        let fs = try tableIndex(of: configuration.gyroRangeDps, in: ICM20948Scale.gyroRangesDps,
                                setting: { .gyroRange(degreesPerSecond: $0) }, chip: chip)
        try checkRate(configuration.rateHz, chip: chip)
        let divider = ICM20948Scale.divider(forRateHz: configuration.rateHz)
        let rate = ICM20948Scale.baseRateHz / (1 + Double(divider))
        let lowPass = ICM20948Scale.lowPassCode(forRateHz: rate)

        try device.selectBank(0)
        // DEVICE_RESET self-clears on silicon, not on i2c-stub: wait the time, never poll.
        try device.write(ICM20948Bank0.powerManagement1, ICM20948Bits.deviceReset | ICM20948Bits.sleep | ICM20948Bits.clockAuto)
        device.resetToPowerOnBank()
        wait(clock, nanoseconds: ICM20948Scale.resetNanoseconds)
        try device.configure(ICM20948Bank0.powerManagement1, ICM20948Bits.clockAuto)
        try device.configure(ICM20948Bank0.powerManagement2, 0)
        // Nothing on INT, no cycled (duty-cycled) sampling, no FIFO until it is set up below.
        try device.configure(ICM20948Bank0.intEnable, 0)
        try device.configure(ICM20948Bank0.lowPowerConfig, 0)
        try device.configure(ICM20948Bank0.userControl, 0)
        let wokeAt = clock.nowNanoseconds()

        try device.selectBank(2)
        try device.configure(ICM20948Bank2.gyroSampleRateDivider, divider)
        try device.configure(ICM20948Bank2.gyroConfig1, lowPass << 3 | UInt8(fs) << 1 | 1)
        let accelDivider: [UInt8] = [0, divider]
        try accelDivider.withUnsafeBytes { try device.configure(ICM20948Bank2.accelSampleRateDivider1, bytes: $0) }
        try device.configure(ICM20948Bank2.accelConfig, lowPass << 3 | UInt8(afs) << 1 | 1)
        try device.configure(ICM20948Bank2.accelIntelControl, 0)
        try device.selectBank(0)

        clock.sleep(untilNanoseconds: wokeAt &+ ICM20948Scale.wakeNanoseconds)
        if configuration.useFIFO {
            try device.configure(ICM20948Bank0.fifoMode, 0)
            try device.configure(ICM20948Bank0.fifoEnable2, ICM20948Bits.fifoAccelGyroTemp)
            try resetFIFO()
            try device.configure(ICM20948Bank0.userControl, ICM20948Bits.userFIFOEnable)
        } else {
            // Written even when off: i2c-stub keeps registers across DEVICE_RESET.
            try device.configure(ICM20948Bank0.fifoEnable2, 0)
        }
        try device.verifyConfiguration()
        // Two periods for the first sample, as on the MPU relatives.
        wait(clock, nanoseconds: UInt64(Nanoseconds.periods(2, hz: rate).rounded(.up)))

        self.configuration = configuration
        accelLSBPerG = ICM20948Scale.accelLSBPerG[afs]
        gyroLSBPerDps = ICM20948Scale.gyroLSBPerDps[fs]
        actualRateHz = rate
        configuredPower = ICM20948Bits.clockAuto
    }

    public func read(at t: Double) throws -> Sample {
        try device.selectBank(0)
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<14])
        try device.read(ICM20948Bank0.accelXOutH, into: burst)
        return decodeFrame(at: 0, t: t)
    }

    /// FIFO_COUNT, then every whole frame in one read of FIFO_R_W. A count at or past the
    /// FIFO's size minus a frame means stream mode dropped bytes mid-frame: the FIFO is reset
    /// and the batch dropped (counted in `fifoOverflows`).
    @discardableResult
    public func drainFIFO(at t: Double, _ body: (Sample) -> Void) throws -> Int {
        try device.selectBank(0)
        let frame = ICM20948Scale.fifoFrameBytes
        stamps.beginDrain(at: t, clock: clock)
        try device.read(ICM20948Bank0.fifoCountH, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<2]))
        let end = stamps.countRead(clock: clock)
        let count = Int(buffer[0] & 0x1F) << 8 | Int(buffer[1])
        if count > ICM20948Scale.fifoBytes - frame {
            try resetFIFO()
            fifoOverflows += 1
            return 0
        }
        let frames = count / frame
        guard frames > 0 else { return 0 }
        try device.read(ICM20948Bank0.fifoData, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(frames * frame)]))
        let period = 1 / actualRateHz
        for i in 0..<frames {
            body(decodeFrame(at: i * frame, t: stamps.stamp(i, of: frames, endingAt: end, period: period)))
        }
        return frames
    }

    /// PWR_MGMT_1 SLEEP, clock kept.
    public func sleep() throws {
        try device.selectBank(0)
        try device.write(ICM20948Bank0.powerManagement1, ICM20948Bits.sleep | ICM20948Bits.clockAuto)
    }

    /// Selects bank 0 (rewriting REG_BANK_SEL if the bank is unknown after a failure) and reads WHO_AM_I.
    public func reidentify() throws {
        try device.selectBank(0)
        try checkChipID(device, register: ICM20948Bank0.whoAmI, expected: identity.chipID, part: identity.part)
    }

    /// PWR_MGMT_1 is the tell: a reset leaves it at 0x41 (asleep), not the configured 0x01.
    public func checkConfiguration() throws {
        guard let configuredPower else { return }
        try device.selectBank(0)
        try device.checkHeld(ICM20948Bank0.powerManagement1, configured: configuredPower)
    }

    /// Offsets are corrected in software on this chip (`chipVariant.accelOffsets` is nil).
    public func writeOffsets(accelOffsetG: Vector3, gyroBiasDps: Vector3?) throws {
        throw SensorError.unsupportedSetting(.offsetRegisters, chip: identity.part, allowed: .offsetRegistersNotProgrammed)
    }

    /// Not offered on this chip yet.
    public func armMotionInterrupt(thresholdG: Double) throws {
        throw SensorError.unsupportedSetting(.wakeOnMotion, chip: identity.part, allowed: .wakeOnMotionNotArmed)
    }

    public func acknowledgeMotionInterrupt() throws -> Bool { false }

    private func resetFIFO() throws {
        try device.write(ICM20948Bank0.fifoReset, ICM20948Bits.fifoResetAll)
        try device.write(ICM20948Bank0.fifoReset, 0)
    }

    /// Accel, gyro, temperature: the register order of the burst and of a FIFO frame.
    private func decodeFrame(at o: Int, t: Double) -> Sample {
        let accel = Vector3(Double(int16BigEndian(buffer, o)), Double(int16BigEndian(buffer, o + 2)),
                            Double(int16BigEndian(buffer, o + 4))) / accelLSBPerG
        let gyro = Vector3(Double(int16BigEndian(buffer, o + 6)), Double(int16BigEndian(buffer, o + 8)),
                           Double(int16BigEndian(buffer, o + 10))) / gyroLSBPerDps
        let temp = Double(int16BigEndian(buffer, o + 12)) / ICM20948Scale.temperatureLSBPerC + ICM20948Scale.temperatureOffsetC
        return Sample(t: t, accel: accel, gyro: gyro, tempC: temp)
    }
}

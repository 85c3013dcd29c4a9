import TiltboardCore

/// Driver for the InvenSense MPU-6050 (and accepted compatibles) over any `I2CBus`.
///
/// Every sample is one 14-byte burst from ACCEL_XOUT_H, so accel, temperature and gyro belong to
/// the same sample (the chip refreshes its shadow registers only while the bus is idle, RM Registers 59–72).
public final class MPU6050: MotionSensor, ChipVariantReporting {
    /// The part found at `init`: chip, part name, ID, bus and address.
    public let identity: SensorIdentity
    /// The settings of the last `configure` (the defaults before it).
    public private(set) var configuration = SensorConfiguration()
    public private(set) var actualRateHz: Double
    public private(set) var fifoOverflows = 0
    public private(set) var fifoFramesSkipped = 0
    /// What the WHO_AM_I value says about the part.
    package let variant: MPU6050Variant
    package var chipVariant: any ChipVariant { variant }

    /// Bytes per FIFO frame: accel (6), temperature (2), gyro (6), the burst layout of 0x3B.
    package static let fifoFrameBytes = 14

    private let device: RegisterDevice
    private let clock: MonotonicClock
    private var accelLSBPerG = MPU6050Scale.accelLSBPerG[0]
    private var gyroLSBPerDps = MPU6050Scale.gyroLSBPerDps[0]
    /// FIFO frames still to drop after `configure`: the first gyro sample after start-up is out
    /// of specification (the kernel's `inv_mpu6050` skips it).
    private var framesToSkip = 0
    /// The register `checkConfiguration` reads and what `configure` left in it (nil before).
    private var configurationTell: (register: UInt8, value: UInt8)?
    /// SMPLRT_DIV and DLPF_CFG as `configure` set them, put back after wake-on-motion.
    private var rateSetting: (divider: UInt8, dlpf: UInt8) = (0, 0)
    private var stamps = FIFOTimestamps()
    // One buffer for bursts and FIFO batches, allocated once so reads never touch the heap.
    private let buffer: UnsafeMutableRawBufferPointer

    /// Reads WHO_AM_I and accepts an MPU-6050 or a known compatible (with `identity.warning` set).
    ///
    /// Throws `SensorError.wrongChip` for any other ID and `I2CError` when the bus fails.
    public init(bus: I2CBus, address: UInt8 = 0x68, clock: MonotonicClock) throws {
        let chip = MPU6050Chip()
        device = RegisterDevice(bus: bus, address: address, map: chip.referenceVariant.registerMap)
        (variant, identity) = try chip.identify(device)
        device.map = variant.registerMap
        self.clock = clock
        // After reset DLPF_CFG = 0 and SMPLRT_DIV = 0: 8 kHz (RM Register 25).
        actualRateHz = 8000
        // Room for a whole FIFO (4 KiB on the ICM-20689), so one transaction drains it.
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: variant.fifo!.capacityBytes, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// Data sheet waits (Product Specification rev 3.4 §6.3; Register Map rev 4.2, PWR_MGMT_1 DEVICE_RESET): reset 100 ms; registers usable 10 ms after wake.
    /// The gyro's start-up time is the variant's (`MPU6050Variant.gyroStartUpNanoseconds`).
    static let resetNanoseconds: UInt64 = 100_000_000
    static let wakeNanoseconds: UInt64 = 10_000_000
    /// Sample periods to wait after configuring before the first direct read (the kernel's
    /// `inv_mpu6050` waits two periods for the first valid sample): at 4 Hz the data registers
    /// hold zeros until then.
    static let firstReadPeriods = 2

    public func configure(_ configuration: SensorConfiguration) throws {
        let chip = identity.part
        let afs = try tableIndex(of: configuration.accelRangeG, in: MPU6050Scale.accelRangesG,
                                 setting: { .accelerometerRange(g: $0) }, chip: chip)
        let fs = try tableIndex(of: configuration.gyroRangeDps, in: MPU6050Scale.gyroRangesDps,
                                setting: { .gyroRange(degreesPerSecond: $0) }, chip: chip)
        try checkRate(configuration.rateHz, chip: chip)
        let divider = MPU6050Scale.sampleRateDivider(forRateHz: configuration.rateHz)
        let rate = MPU6050Scale.dlpfBaseRateHz / (1 + Double(divider))
        let dlpf = MPU6050Scale.dlpfConfig(forRateHz: rate)

        // DEVICE_RESET self-clears on silicon but not on i2c-stub: wait the data sheet time, never poll.
        try device.write(MPU6050Register.powerManagement1, MPU6050PowerManagement1.deviceReset.rawValue)
        wait(clock, nanoseconds: Self.resetNanoseconds)
        let power = MPU6050PowerManagement1.clockPLLXGyro.rawValue
        try device.configure(MPU6050Register.powerManagement1, power)
        let wokeAt = clock.nowNanoseconds()
        wait(clock, nanoseconds: Self.wakeNanoseconds)

        try programRate(divider: divider, dlpf: dlpf)
        let rateSetAt = clock.nowNanoseconds()
        try device.configure(MPU6050Register.gyroConfig, UInt8(fs) << 3)
        try device.configure(MPU6050Register.accelConfig, UInt8(afs) << 3)

        // Let the gyro settle before the FIFO starts collecting, so no out-of-spec frames are queued.
        clock.sleep(untilNanoseconds: wokeAt &+ variant.gyroStartUpNanoseconds)
        if configuration.useFIFO {
            try device.write(MPU6050Register.userControl, MPU6050UserControl.fifoReset.rawValue)
            try device.configure(MPU6050Register.fifoEnable, MPU6050FIFOEnable.motionAndTemperature.rawValue)
            try device.configure(MPU6050Register.userControl, MPU6050UserControl.fifoEnable.rawValue)
        } else {
            // Written even when off: i2c-stub keeps registers across DEVICE_RESET.
            try device.configure(MPU6050Register.fifoEnable, 0)
            try device.configure(MPU6050Register.userControl, 0)
        }
        try device.verifyConfiguration()
        // The first valid sample comes two periods after the rate is set: at 40 Hz and faster
        // the gyro's start-up wait has covered that already, at 4 Hz it is half a second.
        let firstSampleAt = rateSetAt &+ UInt64(Nanoseconds.periods(Double(Self.firstReadPeriods), hz: rate).rounded(.up))
        if clock.nowNanoseconds() < firstSampleAt { clock.sleep(untilNanoseconds: firstSampleAt) }

        self.configuration = configuration
        accelLSBPerG = MPU6050Scale.accelLSBPerG[afs]
        gyroLSBPerDps = MPU6050Scale.gyroLSBPerDps[fs]
        actualRateHz = rate
        rateSetting = (divider, dlpf)
        framesToSkip = configuration.useFIFO ? 1 : 0
        fifoFramesSkipped = 0
        // PWR_MGMT_1, unless the part powers on with the value configure writes (the 6500
        // family wakes at 0x01, PLL auto-select): then CONFIG, whose DLPF configure never leaves
        // at its power-on 0.
        let map = variant.registerMap, pm1 = MPU6050Register.powerManagement1
        let powerOn = map.powerOnValues.first { $0.register == pm1 }?.value ?? 0
        configurationTell = powerOn & map.readBackMask(pm1) == power & map.readBackMask(pm1)
            ? (MPU6050Register.config, dlpf) : (pm1, power)
    }

    /// SMPLRT_DIV, CONFIG's DLPF and, where the part has it, ACCEL_CONFIG2: the accel's own
    /// low-pass set like the gyro's (the kernel writes A_DLPF_CFG with CONFIG's DLPF value on
    /// every part that has the register; FCHOICE_B 0: filter on), FIFO_SIZE kept.
    private func programRate(divider: UInt8, dlpf: UInt8) throws {
        try device.configure(MPU6050Register.sampleRateDivider, divider)
        try device.configure(MPU6050Register.config, dlpf)
        if let accelConfig2 = variant.accelFilterRegister {
            try device.configure(accelConfig2, dlpf | variant.fifoSizeBits)
        }
    }

    public func read(at t: Double) throws -> Sample {
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<14])
        try device.read(MPU6050Register.accelXOutH, into: burst)
        return decodeFrame(at: 0, t: t)
    }

    @discardableResult
    public func drainFIFO(at t: Double, _ body: (Sample) -> Void) throws -> Int {
        let frame = Self.fifoFrameBytes
        // Two transactions per batch: the count, then every whole frame. An overflow needs no
        // INT_STATUS read: it leaves the count at the FIFO's size, past the threshold below.
        let countBytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<2])
        stamps.beginDrain(at: t, clock: clock)
        try device.read(MPU6050Register.fifoCountH, into: countBytes)
        let end = stamps.countRead(clock: clock)
        let count = Int(buffer[0]) << 8 | Int(buffer[1])
        let threshold = MPU6050Scale.fifoOverflowThreshold(fifoSize: variant.fifo!.capacityBytes, frameBytes: frame)
        if count >= threshold {
            // The oldest bytes were (or are about to be) dropped mid-frame: alignment is gone.
            try resetFIFO()
            fifoOverflows += 1
            return 0
        }
        let frames = Swift.min(count / frame, buffer.count / frame)
        guard frames > 0 else { return 0 }
        let batch = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(frames * frame)])
        try device.read(MPU6050Register.fifoData, into: batch)
        let skipped = Swift.min(framesToSkip, frames)
        framesToSkip -= skipped
        fifoFramesSkipped += skipped
        let period = 1 / actualRateHz
        for i in skipped..<frames {
            body(decodeFrame(at: i * frame, t: stamps.stamp(i, of: frames, endingAt: end, period: period)))
        }
        return frames - skipped
    }

    public func sleep() throws {
        try device.write(MPU6050Register.powerManagement1,
                         (MPU6050PowerManagement1.sleep.union(.clockPLLXGyro)).rawValue)
    }

    public func reidentify() throws {
        try checkChipID(device, register: MPU6050Register.whoAmI, expected: identity.chipID, part: identity.part)
    }

    /// PWR_MGMT_1 is the tell on the 6050: a reset leaves it at 0x40 (asleep, internal
    /// oscillator), and even a part whose OTP wakes it (the Linux driver's caveat) comes back
    /// with CLKSEL 0, not PLL-X. The 6500 family powers on at the configured 0x01, so there
    /// CONFIG (DLPF 0 at power-on) is read instead.
    public func checkConfiguration() throws {
        guard let configurationTell else { return }
        try device.checkHeld(configurationTell.register, configured: configurationTell.value)
    }

    /// Subtracts `accelOffsetG` from what the accel offset registers apply now (2048 LSB/g,
    /// reserved bit 0 kept), and `gyroBiasDps` from the gyro offsets (32.8 LSB per °/s), at the
    /// variant's own registers; both are read back.
    public func writeOffsets(accelOffsetG: Vector3, gyroBiasDps: Vector3?) throws {
        if let accel = variant.accelOffsets {
            try device.subtractOffsets(accelOffsetG, at: accel, scratch: buffer)
        }
        if let gyroBiasDps, let gyro = variant.gyroOffsets {
            try device.subtractOffsets(gyroBiasDps, at: gyro, scratch: buffer)
        }
        try device.verifyConfiguration()
    }

    /// Arms the variant's motion interrupt, then routes it to the pin latched active high
    /// push-pull, cleared only by reading INT_STATUS, with the motion event alone in INT_ENABLE.
    ///
    /// MPU-6050 (Register Map rev 3.2, MOT_THR / MOT_DUR): the detectors' high-pass on (ACCEL_CONFIG[2:0], range kept),
    /// MOT_THR in 32 mg steps, MOT_DUR 1 ms, MOT_COUNT 1. MPU-6500 family and ICM-20689
    /// (MPU-9250 RM rev 1.4 p.15, 39 and "Wake-on-Motion Interrupt"; the kernel's
    /// `inv_mpu6050_set_wom_threshold` / `inv_mpu6050_enable_wom`): the threshold in 4 mg steps
    /// (on the ICM-20689 in each of ACCEL_WOM_X/Y/Z_THR), then ACCEL_INTEL_CTRL =
    /// ACCEL_INTEL_EN | ACCEL_INTEL_MODE, comparing each sample with the previous one; the
    /// part samples at `MPU6500Scale.wakeOnMotionRateHz` until `disarmMotionInterrupt`, and
    /// `thresholdG` is a change within `MotionInterruptRegisters.thresholdWindowSeconds`, as the 6050's
    /// high-pass sees it. Every register written is read back.
    public func armMotionInterrupt(thresholdG: Double) throws {
        let motion = variant.motion
        let code = try motionThresholdCode(thresholdG, gPerLSB: motion.thresholdStepG, chip: identity.part)
        switch variant.motionEngine {
        case .motionDetect:
            let afs = MPU6050Scale.accelRangesG.firstIndex(of: configuration.accelRangeG) ?? 0
            try device.configure(MPU6050Register.accelConfig, UInt8(afs) << 3 | MPU6050Scale.motionHighPass)
            try device.configure(motion.thresholdRegister, code)
            try device.configure(MPU6050Register.motionDuration, 1)
            try device.configure(MPU6050Register.motionDetectControl, 0x01)
        case .wakeOnMotion:
            let rate = MPU6500Scale.wakeOnMotionRateHz
            try programRate(divider: MPU6050Scale.sampleRateDivider(forRateHz: rate), dlpf: MPU6050Scale.dlpfConfig(forRateHz: rate))
            // One write: the ICM-20689's three per-axis registers take the same code.
            let codes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<motion.thresholdRegisterCount])
            codes.initializeMemory(as: UInt8.self, repeating: code)
            try device.configure(motion.thresholdRegister, bytes: UnsafeRawBufferPointer(codes))
            try device.configure(MPU6500Register.accelIntelControl, MPU6500Scale.accelIntelEnableAndCompare)
        }
        try device.configure(MPU6050Register.intPinConfig, MPU6050InterruptPin.latch.rawValue)
        try device.configure(motion.enableRegister, motion.enableMask)
        try device.verifyConfiguration()
    }

    /// Wake-on-motion parts: the configured rate and filters again, the motion event off, and
    /// with the FIFO on a fresh FIFO (it filled at the armed rate). The 6050's detector never
    /// touched the sampling.
    public func disarmMotionInterrupt() throws {
        guard variant.motionEngine == .wakeOnMotion else { return }
        try device.configure(variant.motion.enableRegister, 0)
        try device.configure(MPU6500Register.accelIntelControl, 0)
        try programRate(divider: rateSetting.divider, dlpf: rateSetting.dlpf)
        try device.verifyConfiguration()
        if configuration.useFIFO {
            try resetFIFO()
        }
    }

    /// Reads INT_STATUS (which clears it and drops the latched pin); true if motion was flagged.
    public func acknowledgeMotionInterrupt() throws -> Bool {
        try device.readByte(variant.motion.statusRegister) & variant.motion.statusMask != 0
    }

    // MARK: - Decoding

    private func decodeFrame(at o: Int, t: Double) -> Sample {
        let accel = Vector3(Double(int16BigEndian(buffer, o)), Double(int16BigEndian(buffer, o + 2)),
                            Double(int16BigEndian(buffer, o + 4))) / accelLSBPerG
        let temp = variant.temperature!.celsius(raw: int16BigEndian(buffer, o + 6))
        let gyro = Vector3(Double(int16BigEndian(buffer, o + 8)), Double(int16BigEndian(buffer, o + 10)),
                           Double(int16BigEndian(buffer, o + 12))) / gyroLSBPerDps
        return Sample(t: t, accel: accel, gyro: gyro, tempC: temp)
    }

    private func resetFIFO() throws {
        try device.write(MPU6050Register.userControl, MPU6050UserControl.fifoReset.rawValue)
        try device.write(MPU6050Register.userControl, MPU6050UserControl.fifoEnable.rawValue)
    }
}

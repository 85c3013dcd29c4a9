import TiltboardCore

/// Driver for the InvenSense MPU-6050 (and accepted compatibles) over any `I2CBus`.
///
/// Every sample is one 14-byte burst from ACCEL_XOUT_H, so accel, temperature and gyro belong to
/// the same sample (the chip refreshes its shadow registers only while the bus is idle, RM Registers 59–72).
public final class MPU6050: MotionSensor {
    public let identity: SensorIdentity
    public private(set) var configuration = SensorConfiguration()
    public private(set) var actualRateHz: Double
    /// FIFO overflows seen by `drainFIFO`; each one reset the FIFO and lost its contents.
    public private(set) var fifoOverflows = 0
    /// What the WHO_AM_I value says about the part.
    public let variant: MPU6050Variant

    /// Bytes per FIFO frame: accel (6), temperature (2), gyro (6), the burst layout of 0x3B.
    public static let fifoFrameBytes = 14

    private let bus: I2CBus
    private let address: UInt8
    private let clock: MonotonicClock
    private var accelLSBPerG = MPU6050Scale.accelLSBPerG[0]
    private var gyroLSBPerDps = MPU6050Scale.gyroLSBPerDps[0]
    private var fifoEnabled = false
    /// PWR_MGMT_1 as `configure` left it (nil before): what `checkConfiguration` expects.
    private var configuredPower: UInt8?
    // One buffer for bursts and FIFO batches, allocated once so reads never touch the heap.
    private let buffer: UnsafeMutableRawBufferPointer

    /// Reads WHO_AM_I and accepts an MPU-6050 or a known compatible (with `identity.warning` set).
    ///
    /// Throws `SensorError.wrongChip` for any other ID and `I2CError` when the bus fails.
    public init(bus: I2CBus, address: UInt8 = 0x68, clock: MonotonicClock) throws {
        let id = try bus.readByte(address: address, register: MPU6050Register.whoAmI)
        guard let variant = MPU6050Variant.variant(chipID: id) else {
            throw SensorError.wrongChip(found: id, address: address, bus: bus.name,
                                        expected: MPU6050Variant.expectedDescription)
        }
        let warning: String? = variant.isClone
            ? "WHO_AM_I \(id.hex) at \(address.hex) on \(bus.name) is an \(variant.part), not a genuine MPU-6050: accepted as compatible; if readings look wrong, try a genuine MPU-6050"
            : nil
        let part = variant.isClone && !variant.part.contains("ID ")
            ? "\(variant.part) (clone ID \(id.hex))" : variant.part
        identity = SensorIdentity(chip: .mpu6050, part: part, chipID: id, bus: bus.name, address: address,
                                  warning: warning)
        self.variant = variant
        self.bus = bus
        self.address = address
        self.clock = clock
        // After reset DLPF_CFG = 0 and SMPLRT_DIV = 0: 8 kHz (RM Register 25).
        actualRateHz = 8000
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// Data sheet waits (sensors.md §1.12): reset 100 ms; registers usable 10 ms after wake;
    /// gyro output valid 60 ms after wake.
    static let resetNanoseconds: UInt64 = 100_000_000
    static let wakeNanoseconds: UInt64 = 10_000_000
    static let gyroSettleNanoseconds: UInt64 = 60_000_000

    public func configure(_ configuration: SensorConfiguration) throws {
        let chip = identity.part
        let afs = try tableIndex(of: configuration.accelRangeG, in: MPU6050Scale.accelRangesG,
                                 setting: "accelerometer range", unit: "g", chip: chip)
        let fs = try tableIndex(of: configuration.gyroRangeDps, in: MPU6050Scale.gyroRangesDps,
                                setting: "gyro range", unit: "°/s", chip: chip)
        try checkRate(configuration.rateHz, chip: chip)
        let divider = MPU6050Scale.sampleRateDivider(forRateHz: configuration.rateHz)
        let rate = MPU6050Scale.dlpfBaseRateHz / (1 + Double(divider))
        let dlpf = MPU6050Scale.dlpfConfig(forRateHz: rate)

        // DEVICE_RESET self-clears on silicon but not on i2c-stub: wait the data sheet time, never poll.
        try write(MPU6050Register.powerManagement1, MPU6050PowerManagement1.deviceReset.rawValue)
        wait(clock, nanoseconds: Self.resetNanoseconds)
        let power = MPU6050PowerManagement1.clockPLLXGyro.rawValue
        try write(MPU6050Register.powerManagement1, power)
        let wokeAt = clock.nowNanoseconds()
        wait(clock, nanoseconds: Self.wakeNanoseconds)

        let gyroConfig = UInt8(fs) << 3
        let accelConfig = UInt8(afs) << 3
        try write(MPU6050Register.sampleRateDivider, divider)
        try write(MPU6050Register.config, dlpf)
        try write(MPU6050Register.gyroConfig, gyroConfig)
        try write(MPU6050Register.accelConfig, accelConfig)

        // Let the gyro settle before the FIFO starts collecting, so no out-of-spec frames are queued.
        clock.sleep(untilNanoseconds: wokeAt &+ Self.gyroSettleNanoseconds)
        let fifoEnable: UInt8
        let userControl: UInt8
        if configuration.useFIFO {
            fifoEnable = MPU6050FIFOEnable.motionAndTemperature.rawValue
            userControl = MPU6050UserControl.fifoEnable.rawValue
            try write(MPU6050Register.userControl, MPU6050UserControl.fifoReset.rawValue)
        } else {
            // Written even when off: i2c-stub keeps registers across DEVICE_RESET.
            fifoEnable = 0
            userControl = 0
        }
        try write(MPU6050Register.fifoEnable, fifoEnable)
        try write(MPU6050Register.userControl, userControl)

        try verifyRegisters(bus, address: address, from: MPU6050Register.sampleRateDivider, scratch: buffer,
                            expected: (divider, 0xFF), (dlpf, 0x3F), (gyroConfig, 0xF8), (accelConfig, 0xF8))
        try verifyRegisters(bus, address: address, from: MPU6050Register.fifoEnable, scratch: buffer,
                            expected: (fifoEnable, 0xFF))
        try verifyRegisters(bus, address: address, from: MPU6050Register.userControl, scratch: buffer,
                            expected: (userControl, MPU6050UserControl.verifyMask),
                            (power, MPU6050PowerManagement1.verifyMask))

        self.configuration = configuration
        accelLSBPerG = MPU6050Scale.accelLSBPerG[afs]
        gyroLSBPerDps = MPU6050Scale.gyroLSBPerDps[fs]
        actualRateHz = rate
        fifoEnabled = configuration.useFIFO
        configuredPower = power
    }

    public func read(at t: Double) throws -> Sample {
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<14])
        try bus.read(address: address, register: MPU6050Register.accelXOutH, into: burst)
        return decodeFrame(at: 0, t: t)
    }

    @discardableResult
    public func drainFIFO(at t: Double, _ body: (Sample) -> Void) throws -> Int {
        let frame = Self.fifoFrameBytes
        // Two transactions per batch: the count, then every whole frame. An overflow needs no
        // INT_STATUS read: it leaves the count at the FIFO's size, past the threshold below.
        let countBytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<2])
        try bus.read(address: address, register: MPU6050Register.fifoCountH, into: countBytes)
        let count = Int(buffer[0]) << 8 | Int(buffer[1])
        let threshold = MPU6050Scale.fifoOverflowThreshold(fifoSize: variant.fifoSize, frameBytes: frame)
        if count >= threshold {
            // The oldest bytes were (or are about to be) dropped mid-frame: alignment is gone.
            try resetFIFO()
            fifoOverflows += 1
            return 0
        }
        let frames = Swift.min(count / frame, buffer.count / frame)
        guard frames > 0 else { return 0 }
        let batch = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(frames * frame)])
        try bus.readFIFO(address: address, register: MPU6050Register.fifoData, into: batch)
        let period = 1 / actualRateHz
        for i in 0..<frames {
            body(decodeFrame(at: i * frame, t: t - Double(frames - 1 - i) * period))
        }
        return frames
    }

    public func sleep() throws {
        try write(MPU6050Register.powerManagement1,
                  (MPU6050PowerManagement1.sleep.union(.clockPLLXGyro)).rawValue)
    }

    public func reidentify() throws {
        try checkChipID(bus, address: address, register: MPU6050Register.whoAmI, expected: identity.chipID,
                        part: identity.part)
    }

    /// PWR_MGMT_1 is the tell: a reset leaves it at 0x40 (SLEEP, internal oscillator), and even a
    /// part whose OTP wakes it (the Linux driver's caveat) comes back with CLKSEL 0, not PLL-X.
    public func checkConfiguration() throws {
        guard let configuredPower else { return }
        try checkHeld(bus, address: address, register: MPU6050Register.powerManagement1, configured: configuredPower,
                      mask: MPU6050PowerManagement1.verifyMask)
    }

    /// Subtracts `accelOffsetG` from what the factory trim applies now (2048 LSB/g, bit 0 of each
    /// low byte kept), and `gyroBiasDps` from the current gyro offsets (32.8 LSB per °/s).
    public func writeOffsets(accelOffsetG: Vector3, gyroBiasDps: Vector3?) throws {
        let regs = variant.accelOffsetRegisters
        let contiguous = regs.1 == regs.0 &+ 2 && regs.2 == regs.0 &+ 4
        var words = (Int16(0), Int16(0), Int16(0))
        if contiguous {
            let raw = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<6])
            try bus.read(address: address, register: regs.0, into: raw)
            words = (int16BigEndian(buffer, 0), int16BigEndian(buffer, 2), int16BigEndian(buffer, 4))
        } else {
            words.0 = try readWord(regs.0)
            words.1 = try readWord(regs.1)
            words.2 = try readWord(regs.2)
        }
        let updated = (Self.adjustedAccelOffset(words.0, by: accelOffsetG.x),
                       Self.adjustedAccelOffset(words.1, by: accelOffsetG.y),
                       Self.adjustedAccelOffset(words.2, by: accelOffsetG.z))
        if contiguous {
            let out = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<6])
            storeBigEndian(updated.0, into: buffer, at: 0)
            storeBigEndian(updated.1, into: buffer, at: 2)
            storeBigEndian(updated.2, into: buffer, at: 4)
            try bus.write(address: address, register: regs.0, bytes: UnsafeRawBufferPointer(out))
        } else {
            try writeWord(regs.0, updated.0)
            try writeWord(regs.1, updated.1)
            try writeWord(regs.2, updated.2)
        }

        guard let gyroBiasDps else { return }
        let raw = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<6])
        try bus.read(address: address, register: MPU6050Register.gyroOffset, into: raw)
        for axis in 0..<3 {
            let current = Double(int16BigEndian(buffer, axis * 2))
            let value = clampedInt16(current - gyroBiasDps[axis] * MPU6050Scale.gyroOffsetLSBPerDps)
            storeBigEndian(value, into: buffer, at: axis * 2)
        }
        try bus.write(address: address, register: MPU6050Register.gyroOffset, bytes: UnsafeRawBufferPointer(raw))
    }

    /// Motion interrupt (sensors.md §1.10): the detectors' high-pass on (ACCEL_CONFIG[2:0], range
    /// kept), MOT_THR in 32 mg steps, MOT_DUR 1 ms, MOT_COUNT 1, then the pin latched active high
    /// push-pull, cleared only by reading INT_STATUS, and MOT_EN alone in INT_ENABLE.
    public func armMotionInterrupt(thresholdG: Double) throws {
        let code = try motionThresholdCode(thresholdG, gPerLSB: MPU6050Scale.motionThresholdGPerLSB, chip: identity.part)
        let afs = MPU6050Scale.accelRangesG.firstIndex(of: configuration.accelRangeG) ?? 0
        try write(MPU6050Register.accelConfig, UInt8(afs) << 3 | MPU6050Scale.motionHighPass)
        try write(MPU6050Register.motionThreshold, code)
        try write(MPU6050Register.motionDuration, 1)
        try write(MPU6050Register.motionDetectControl, 0x01)
        try write(MPU6050Register.intPinConfig, MPU6050InterruptPin.latch.rawValue)
        try write(MPU6050Register.intEnable, MPU6050InterruptStatus.motion.rawValue)
    }

    /// Reads INT_STATUS (which clears it and drops the latched pin); true if MOT_INT was set.
    public func acknowledgeMotionInterrupt() throws -> Bool {
        let status = try bus.readByte(address: address, register: MPU6050Register.intStatus)
        return status & MPU6050InterruptStatus.motion.rawValue != 0
    }

    /// `current` minus `offsetG` in 2048 LSB/g, moved in steps of two so reserved bit 0 is kept.
    static func adjustedAccelOffset(_ current: Int16, by offsetG: Double) -> Int16 {
        let steps = (offsetG * MPU6050Scale.accelOffsetLSBPerG / 2).rounded()
        let bit0 = Int32(current) & 1
        var value = Double(Int32(current)) - steps * 2
        value = Swift.min(Swift.max(value, Double(Int16.min) + Double(bit0)), Double(Int16.max - 1) + Double(bit0))
        return Int16((Int32(value) & ~1) | bit0)
    }

    // MARK: - Bus helpers

    private func decodeFrame(at o: Int, t: Double) -> Sample {
        let accel = Vector3(Double(int16BigEndian(buffer, o)), Double(int16BigEndian(buffer, o + 2)),
                            Double(int16BigEndian(buffer, o + 4))) / accelLSBPerG
        let temp = Double(int16BigEndian(buffer, o + 6)) / variant.temperatureLSBPerC + variant.temperatureOffsetC
        let gyro = Vector3(Double(int16BigEndian(buffer, o + 8)), Double(int16BigEndian(buffer, o + 10)),
                           Double(int16BigEndian(buffer, o + 12))) / gyroLSBPerDps
        return Sample(t: t, accel: accel, gyro: gyro, tempC: temp)
    }

    private func resetFIFO() throws {
        try write(MPU6050Register.userControl, MPU6050UserControl.fifoReset.rawValue)
        try write(MPU6050Register.userControl, MPU6050UserControl.fifoEnable.rawValue)
    }

    private func write(_ register: UInt8, _ value: UInt8) throws {
        try bus.writeByte(address: address, register: register, value: value)
    }

    private func readWord(_ register: UInt8) throws -> Int16 {
        let raw = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<2])
        try bus.read(address: address, register: register, into: raw)
        return int16BigEndian(buffer, 0)
    }

    private func writeWord(_ register: UInt8, _ value: Int16) throws {
        storeBigEndian(value, into: buffer, at: 0)
        try bus.write(address: address, register: register,
                      bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<2]))
    }

}

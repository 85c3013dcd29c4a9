import TiltboardCore

/// Driver for ST's LIS3DH accelerometer over any `I2CBus`.
///
/// High-resolution mode (12-bit, 1/2/4/12 mg per digit) at every rate up to 1.344 kHz, low-power
/// mode (8-bit) for 1.62 and 5.376 kHz; block data update on, so the 6-byte burst from OUT_X_L
/// is one sample. Multi-byte transfers set bit 7 of the sub-address, the chip's auto-increment
/// flag; single-byte ones leave it clear. No gyroscope; the part's temperature output (TEMP_EN
/// on the auxiliary ADC, 1 digit/°C, DS Table 5) has no specified offset, so it is not read and
/// samples carry no temperature.
public final class LIS3DH: MotionSensor, ChipVariantReporting {
    /// The part found at `init`: chip, part name, ID, bus and address.
    public let identity: SensorIdentity
    /// The settings of the last `configure` (the defaults before it).
    public private(set) var configuration = SensorConfiguration()
    public private(set) var actualRateHz: Double
    package var chipVariant: any ChipVariant { LIS3DHVariant() }
    /// Stream mode keeps the newest 32 samples: the FIFO never needs a reset.
    public var fifoOverflows: Int { 0 }
    public var fifoFramesSkipped: Int { 0 }

    /// WHO_AM_I of every LIS3DH (DS WHO_AM_I description; the kernel's st_accel_core.c; ST's lis3dh_reg.h).
    package static let deviceID: UInt8 = 0x33
    /// The part's data sheet name.
    package static let partName = "LIS3DH"

    private let device: RegisterDevice
    private let clock: MonotonicClock
    private let buffer: UnsafeMutableRawBufferPointer
    /// CTRL_REG1 as `configure` left it (nil before): what `checkConfiguration` expects.
    private var configuredControl1: UInt8?
    private var mode: LIS3DHMode = .highResolution
    private var rangeCode = 0
    private var stamps = FIFOTimestamps()

    /// Reads WHO_AM_I; throws `SensorError.wrongChip` unless it is 0x33.
    public init(bus: I2CBus, address: UInt8 = 0x18, clock: MonotonicClock) throws {
        let chip = LIS3DHChip()
        device = RegisterDevice(bus: bus, address: address, map: chip.referenceVariant.registerMap)
        identity = try chip.identify(device).1
        self.clock = clock
        actualRateHz = 0  // power-down until configured
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// Writes CTRL_REG1…6 in one burst (the part has no soft reset, so every control register is
    /// set, interrupt routing and latches from an earlier session included), turns interrupt
    /// generator 1 and the temperature ADC off, resets the FIFO through bypass, reads the
    /// control registers back and waits for settled data: the 2 ms boot plus 7/ODR into
    /// high-resolution mode (1/ODR otherwise, DS Table 11).
    public func configure(_ configuration: SensorConfiguration) throws {
        let range = try tableIndex(of: configuration.accelRangeG, in: LIS3DHScale.accelRangesG,
                                   setting: { .accelerometerRange(g: $0) }, chip: identity.part)
        try checkRate(configuration.rateHz, chip: identity.part)
        let rate = LIS3DHScale.nearestRate(configuration.rateHz)
        let control1 = LIS3DHControl1.odr(rate.code) | LIS3DHControl1.allAxes
            | (rate.mode == .lowPower ? LIS3DHControl1.lowPower : 0)
        let control4 = LIS3DHControl4.blockDataUpdate | LIS3DHControl4.fullScale(UInt8(range))
            | (rate.mode == .highResolution ? LIS3DHControl4.highResolution : 0)
        let control5 = configuration.useFIFO ? LIS3DHControl5.fifoEnable : 0
        // CTRL_REG1…6: no high-pass, nothing on INT1 or INT2, no latches.
        let controls: [UInt8] = [control1, 0, 0, control4, control5, 0]

        try device.configure(LIS3DHRegister.int1Config, 0)
        try device.configure(LIS3DHRegister.temperatureConfig, 0)
        for (i, value) in controls.enumerated() { buffer[i] = value }
        try device.configure(LIS3DHRegister.control1, bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<6]))
        // Bypass empties the FIFO (DS §5.1.1); stream keeps the newest 32.
        if configuration.useFIFO { try device.write(LIS3DHRegister.fifoControl, LIS3DHFIFOMode.bypass.rawValue) }
        try device.configure(LIS3DHRegister.fifoControl,
                             (configuration.useFIFO ? LIS3DHFIFOMode.stream : .bypass).rawValue)
        try device.verifyConfiguration()

        let period = Nanoseconds.period(hz: rate.hz)
        wait(clock, nanoseconds: LIS3DHScale.bootNanoseconds
             + UInt64((Double(rate.mode.settlingPeriods) * period).rounded(.up)))
        self.configuration = configuration
        actualRateHz = rate.hz
        mode = rate.mode
        rangeCode = range
        configuredControl1 = control1
    }

    public func read(at t: Double) throws -> Sample {
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<6])
        try device.read(LIS3DHRegister.outXL, into: burst)
        return decode(t: t)
    }

    /// FIFO_SRC_REG gives the unread samples (FSS; OVRN_FIFO for a full 32), each read as one
    /// 6-byte burst from OUT_X_L (DS §5.1: reading the output registers pops the oldest sample),
    /// the batch ending when FIFO_SRC_REG was read (`FIFOTimestamps`).
    @discardableResult
    public func drainFIFO(at t: Double, _ body: (Sample) -> Void) throws -> Int {
        stamps.beginDrain(at: t, clock: clock)
        let source = try device.readByte(LIS3DHRegister.fifoSource)
        let end = stamps.countRead(clock: clock)
        let entries = source & LIS3DHFIFOSource.empty != 0 ? 0
            : source & LIS3DHFIFOSource.overrun != 0 ? LIS3DHScale.fifoDepth
            : Int(source & LIS3DHFIFOSource.levelMask)
        let period = 1 / actualRateHz
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<6])
        for i in 0..<entries {
            try device.read(LIS3DHRegister.outXL, into: burst)
            body(decode(t: stamps.stamp(i, of: entries, endingAt: end, period: period)))
        }
        return entries
    }

    /// Power-down: ODR 0, the axes kept (K `pw.value_off`).
    public func sleep() throws {
        try device.write(LIS3DHRegister.control1, LIS3DHControl1.allAxes)
    }

    public func reidentify() throws {
        try checkChipID(device, register: LIS3DHRegister.whoAmI, expected: identity.chipID, part: identity.part)
    }

    /// CTRL_REG1 is the tell: power-on leaves it at 0x07, power-down (DS register address map).
    public func checkConfiguration() throws {
        guard let configuredControl1 else { return }
        try device.checkHeld(LIS3DHRegister.control1, configured: configuredControl1)
    }

    /// The LIS3DH has no offset registers (`chipVariant.accelOffsets` is nil): offsets are
    /// corrected in software only.
    public func writeOffsets(accelOffsetG: Vector3, gyroBiasDps: Vector3?) throws {
        throw SensorError.unsupportedSetting(.offsetRegisters, chip: identity.part, allowed: .noOffsetRegisters)
    }

    /// Interrupt generator 1 on high-pass-filtered data (HP_IA1; the filter restarts from the
    /// current pose when REFERENCE is read), an X, Y or Z high event above INT1_THS, latched
    /// (LIR_INT1) and routed to INT1 (I1_IA1), active high: ST's wake-up recipe (AN3308). The
    /// high-pass is the slowest HPCF needs to be for a slow tilt to pass as on the other chips
    /// (`LIS3DHScale.motionHighPassCode`). The
    /// generator is off while its threshold and filter are set up. Sampling goes on.
    public func armMotionInterrupt(thresholdG: Double) throws {
        // INT1_THS is 7 bits, its step set by the range.
        let code = try motionThresholdCode(thresholdG, gPerLSB: LIS3DHScale.thresholdGPerLSB[rangeCode], maxCode: 127,
                                           chip: identity.part)
        let control5 = configuration.useFIFO ? LIS3DHControl5.fifoEnable : 0
        try device.write(LIS3DHRegister.int1Config, 0)
        try device.write(LIS3DHRegister.control2, LIS3DHInterrupt.highPassGenerator1 | LIS3DHScale.motionHighPassCode(rateHz: actualRateHz) << 4)
        try device.write(LIS3DHRegister.int1Threshold, code)
        try device.write(LIS3DHRegister.int1Duration, 0)
        try device.write(LIS3DHRegister.control5, control5 | LIS3DHControl5.latchInt1)
        _ = try device.readByte(LIS3DHRegister.reference)
        _ = try device.readByte(LIS3DHRegister.int1Source)
        try device.write(LIS3DHRegister.control3, LIS3DHInterrupt.int1FromGenerator1)
        try device.write(LIS3DHRegister.int1Config, LIS3DHInterrupt.anyAxisHigh)
    }

    /// Reads INT1_SRC (which clears the latch and drops INT1); true if IA was set.
    public func acknowledgeMotionInterrupt() throws -> Bool {
        try device.readByte(LIS3DHRegister.int1Source) & LIS3DHInterrupt.active != 0
    }

    /// Left-justified words: the top `mode.bits` bits are the value, in the mode's mg per digit.
    private func decode(t: Double) -> Sample {
        let shift = 16 - mode.bits
        let gPerDigit = mode.milliGPerDigit[rangeCode] / 1000
        let accel = Vector3(Double(int16LittleEndian(buffer, 0) >> shift), Double(int16LittleEndian(buffer, 2) >> shift),
                            Double(int16LittleEndian(buffer, 4) >> shift)) * gPerDigit
        return Sample(t: t, accel: accel)
    }
}

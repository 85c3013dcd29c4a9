import TiltboardCore

/// Driver for the Analog Devices ADXL345 accelerometer over any `I2CBus`.
///
/// Full resolution, right-justified: 3.9 mg/LSB in every range. Each sample is one 6-byte burst
/// from DATAX0, because any read of the data registers pops a FIFO entry (DS "FIFO").
public final class ADXL345: MotionSensor, ChipVariantReporting {
    /// The part found at `init`: chip, part name, ID, bus and address.
    public let identity: SensorIdentity
    /// The settings of the last `configure` (the defaults before it).
    public private(set) var configuration = SensorConfiguration()
    public private(set) var actualRateHz: Double
    package var chipVariant: any ChipVariant { ADXL345Variant() }
    /// Stream mode keeps the newest 32 samples: the FIFO never needs a reset.
    public var fifoOverflows: Int { 0 }
    public var fifoFramesSkipped: Int { 0 }

    /// DEVID of every ADXL345.
    package static let deviceID: UInt8 = 0xE5

    private let device: RegisterDevice
    private let clock: MonotonicClock
    private let buffer: UnsafeMutableRawBufferPointer
    /// POWER_CTL as `configure` left it (nil before): what `checkConfiguration` expects.
    private var configuredPower: UInt8?
    private var stamps = FIFOTimestamps()

    /// Reads DEVID; throws `SensorError.wrongChip` unless it is 0xE5.
    public init(bus: I2CBus, address: UInt8 = 0x53, clock: MonotonicClock) throws {
        let chip = ADXL345Chip()
        device = RegisterDevice(bus: bus, address: address, map: chip.referenceVariant.registerMap)
        identity = try chip.identify(device).1
        self.clock = clock
        actualRateHz = ADXL345Scale.rateHz(code: 0x0A)  // BW_RATE reset value
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    public func configure(_ configuration: SensorConfiguration) throws {
        let range = try tableIndex(of: configuration.accelRangeG, in: ADXL345Scale.accelRangesG,
                                   setting: { .accelerometerRange(g: $0) }, chip: identity.part)
        try checkRate(configuration.rateHz, chip: identity.part)
        let code = ADXL345Scale.rateCode(forRateHz: configuration.rateHz)
        let format = ADXL345DataFormat.fullResolution.union(.range(code: UInt8(range))).rawValue
        // Stream mode, watermark 16: a non-zero watermark keeps the flag meaningful for interrupts.
        let fifo: UInt8 = configuration.useFIFO ? ADXL345FIFOMode.stream.rawValue | 16 : ADXL345FIFOMode.bypass.rawValue
        let measure = ADXL345PowerControl.measure.rawValue

        // Format and rate are changed in standby, as the data sheet advises.
        try device.configure(ADXL345Register.powerControl, 0)
        // No soft reset exists, so interrupts armed by an earlier session (wake on motion) are
        // still enabled, mapped and detecting: switch them off first, as the kernel does at probe.
        try device.configure(ADXL345Register.intEnable, 0)
        try device.configure(ADXL345Register.intMap, 0)
        try device.configure(ADXL345Register.activityControl, 0)
        try device.configure(ADXL345Register.dataFormat, format)
        try device.configure(ADXL345Register.bandwidthRate, code)
        try device.configure(ADXL345Register.fifoControl, fifo)
        // The chip has no soft reset and OFSX/Y/Z survive until power-off; zeroing them makes
        // `writeOffsets` (relative to their content) start from the same state every session.
        let zeros = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<3])
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        try device.configure(ADXL345Register.offsetX, bytes: UnsafeRawBufferPointer(zeros))
        try device.configure(ADXL345Register.powerControl, measure)
        try device.verifyConfiguration()

        let rate = ADXL345Scale.rateHz(code: code)
        wait(clock, nanoseconds: ADXL345Scale.turnOnNanoseconds + UInt64(Nanoseconds.period(hz: rate).rounded(.up)))
        self.configuration = configuration
        actualRateHz = rate
        configuredPower = measure
    }

    public func read(at t: Double) throws -> Sample {
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<6])
        try device.read(ADXL345Register.dataX0, into: burst)
        return decode(t: t)
    }

    /// A full FIFO (32 entries) has one more sample waiting at the output filter, which moves in
    /// as entries are read (DS Register 0x39: up to 33 available): FIFO_STATUS is read again after
    /// draining a full FIFO, and what it then holds is read too. The batch's times assume the
    /// 33rd is there; when it is not, the full batch reads one period early. Each batch ends
    /// when its FIFO_STATUS was read (`FIFOTimestamps`).
    @discardableResult
    public func drainFIFO(at t: Double, _ body: (Sample) -> Void) throws -> Int {
        let depth = Self.fifoDepth
        stamps.beginDrain(at: t, clock: clock)
        let first = try fifoEntries()
        let end = stamps.countRead(clock: clock)
        try readSamples(first, endingAt: first == depth ? end - 1 / actualRateHz : end, body)
        guard first == depth else { return first }
        let more = try fifoEntries()
        try readSamples(more, endingAt: stamps.countRead(clock: clock), body)
        return first + more
    }

    /// FIFO entries, not counting the sample waiting behind a full FIFO.
    private static let fifoDepth = ADXL345Variant().fifo!.capacityBytes / ADXL345Variant().fifo!.frameBytes

    private func fifoEntries() throws -> Int {
        Int(try device.readByte(ADXL345Register.fifoStatus) & 0x3F)
    }

    private func readSamples(_ count: Int, endingAt t: Double, _ body: (Sample) -> Void) throws {
        let period = 1 / actualRateHz
        let burst = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<6])
        for i in 0..<count {
            try device.read(ADXL345Register.dataX0, into: burst)
            body(decode(t: stamps.stamp(i, of: count, endingAt: t, period: period)))
        }
    }

    public func sleep() throws {
        try device.write(ADXL345Register.powerControl, 0)
    }

    public func reidentify() throws {
        try checkChipID(device, register: ADXL345Register.deviceID, expected: identity.chipID, part: identity.part)
    }

    /// POWER_CTL is the tell: power-on leaves the part in standby (Measure clear, DS Register 0x2D).
    public func checkConfiguration() throws {
        guard let configuredPower else { return }
        try device.checkHeld(ADXL345Register.powerControl, configured: configuredPower)
    }

    /// Subtracts `accelOffsetG` from what OFSX/Y/Z apply now, in 15.6 mg steps clamped to int8,
    /// and reads them back. The ADXL345 has no gyro, so `gyroBiasDps` is ignored.
    public func writeOffsets(accelOffsetG: Vector3, gyroBiasDps: Vector3?) throws {
        try device.subtractOffsets(accelOffsetG, at: ADXL345Variant().accelOffsets!, scratch: buffer)
        try device.verifyConfiguration()
    }

    /// Activity detection (data sheet rev E: THRESH_ACT, ACT_INACT_CTL): interrupts off while THRESH_ACT (62.5 mg
    /// steps), ac-coupled X/Y/Z activity and INT_MAP (all on INT1) are set, then Activity alone
    /// enabled. The pin is active high push-pull (`configure` keeps INT_INVERT clear); the event
    /// is latched until INT_SOURCE is read. Re-arming restarts the ac reference at the current pose.
    public func armMotionInterrupt(thresholdG: Double) throws {
        let code = try motionThresholdCode(thresholdG, gPerLSB: ADXL345Scale.activityThresholdGPerLSB, chip: identity.part)
        try write(ADXL345Register.intEnable, 0)
        try write(ADXL345Register.activityThreshold, code)
        try write(ADXL345Register.activityControl, ADXL345ActivityControl.acAllAxes.rawValue)
        try write(ADXL345Register.intMap, 0)
        try write(ADXL345Register.intEnable, ADXL345Interrupt.activity.rawValue)
    }

    /// Reads INT_SOURCE (which clears the latched events and drops the pin); true if Activity was set.
    public func acknowledgeMotionInterrupt() throws -> Bool {
        let source = try device.readByte(ADXL345Register.intSource)
        return source & ADXL345Interrupt.activity.rawValue != 0
    }

    private func decode(t: Double) -> Sample {
        let accel = Vector3(Double(int16LittleEndian(buffer, 0)), Double(int16LittleEndian(buffer, 2)),
                            Double(int16LittleEndian(buffer, 4))) / ADXL345Scale.fullResolutionLSBPerG
        return Sample(t: t, accel: accel)
    }

    private func write(_ register: UInt8, _ value: UInt8) throws {
        try device.write(register, value)
    }
}

import TiltboardCore
import TiltboardDrivers

/// An MPU-6050 as its register map behaves (Register Map RM-MPU-6000A-00 rev 4.2; Product Specification PS-MPU-6000A-00 rev 3.4).
///
/// Powers up asleep with zeroed data registers. Once awake it samples on its own sample clock
/// (8 kHz or 1 kHz base from DLPF_CFG, divided by 1 + SMPLRT_DIV; accelerometer at most 1 kHz),
/// counted from the moment it woke. Work is done lazily: each bus transaction first replays
/// every sample tick since the previous one (data registers, DATA_RDY, FIFO), so the result is
/// exactly what a free-running chip would show at `clock.nowNanoseconds()`. Replay cost is
/// bounded: only the newest 1024 FIFO bytes can survive, so only those frames are computed.
/// Axes put in standby by PWR_MGMT_2, and the temperature with TEMP_DIS, hold their last value.
///
/// Motion detection (Register Map rev 3.2, MOT_THR 0x1F and MOT_DUR 0x20, dropped from rev 4.2; simplified): with MOT_EN set and ACCEL_HPF 1…4 (5, 2.5,
/// 1.25, 0.63 Hz) or 7 (hold: compared against the sample when the filter was set), every
/// sample tick runs the output acceleration through a first-order high-pass; an axis above
/// MOT_THR × 32 mg (the unit the drivers use, `MPU6050Scale.motionThresholdGPerLSB`) adds one
/// sample period to a counter, a quieter sample takes MOT_COUNT's decrement off it (0: reset),
/// and MOT_INT is latched once the counter reaches MOT_DUR ms. The detector runs at the sample
/// clock, not the chip's internal 1 kHz. `interruptPin` follows INT_STATUS & INT_ENABLE as
/// INT_PIN_CFG says (level, latched or a pulse per event, read-clear rule).
/// Wake-on-motion (MPU-6500 family, ICM-20689; MPU-9250 RM rev 1.4 p.15, 39): with
/// ACCEL_INTEL_EN and ACCEL_INTEL_MODE set in ACCEL_INTEL_CTRL and the variant's WOM bits in
/// INT_ENABLE, each sample's acceleration is compared with the previous sample's; an axis that
/// moved more than its threshold register × 4 mg latches the WOM status bit(s) (the
/// ICM-20689's per axis: X bit 7, Y bit 6, Z bit 5).
///
/// Which part it is — offset registers, writable registers, power-on values, FIFO size,
/// temperature formula, motion engine — comes from the driver's `MPU6050Variant` for its
/// WHO_AM_I, so the driver and this part share one register map.
/// Not modelled: CYCLE mode, self-test, free-fall and zero-motion, MOT_DETECT_STATUS,
/// the auxiliary I²C master, the DMP, LP_ACCEL_ODR.
package final class SimulatedMPU6050: SimulatedPart, SimulatedChip {
    /// The drivers' register map (Register Map rev 4.2 §3): one declaration for driver and part.
    private typealias Reg = MPU6050Register

    /// Factory-trimmed registers of this simulated part besides its accel offsets (non-zero on
    /// real silicon, §1.2): gyro TC with OTP_BNK_VLD (bit 0 of 0x00) set, fine gain, self-test codes.
    package static let factoryRegisters: [(register: UInt8, value: UInt8)] = [
        (0x00, 0x81), (0x01, 0x03), (0x02, 0x85), (0x03, 0x00), (0x04, 0x00), (0x05, 0x00),
        (0x0D, 0x6E), (0x0E, 0x70), (0x0F, 0x8D), (0x10, 0x55),
    ]
    /// The factory accel trim, X Y Z, in whichever registers the variant keeps its accel offsets
    /// (0x06–0x0B on the 6050, 0x77/0x7A/0x7D on the 6500 family).
    package static let factoryAccelOffsets: [UInt16] = [0xF86B, 0x0512, 0x138D]

    /// FIFO capacity in bytes: the variant's (1024 on the 6050, PS 7.17), or on a part with
    /// ACCEL_CONFIG2 FIFO_SIZE (ICM-20689, DS20689 Register 29) 512 B << FIFO_SIZE.
    package var fifoCapacity: Int {
        variant.fifoSizeBits == 0 ? variant.fifo!.capacityBytes
            : 512 << Int((regs[Int(MPU6500Register.accelConfig2)] & variant.fifoSizeBits) >> 6)
    }
    /// The part this simulates: the driver's description of its WHO_AM_I.
    package let variant: MPU6050Variant

    /// The WHO_AM_I value (0x68 genuine; clones answer 0x70, 0x72, 0x98…).
    package let whoAmI: UInt8
    /// The temperature sensor's transfer function (the variant's).
    private let temperature: TemperatureFormula
    /// The accel and gyro offset registers (the variant's).
    private let accelOffsets: OffsetRegisters
    private let gyroOffsets: OffsetRegisters

    private var regs = [UInt8](repeating: 0, count: 256)
    /// Power-on values of the accel offset words, the reference user offsets are relative to.
    private var factoryAccelOffsets: [Int] = [0, 0, 0]
    private var fifo: [UInt8]
    private var fifoHead = 0
    private var fifoCount = 0
    private var lastFIFOByte: UInt8 = 0
    private var latchedFIFOCount: UInt16 = 0
    private var awake = false
    /// The last sample produced; sensors in standby repeat their part of it.
    private var heldSample = RawSample()

    /// INT_STATUS bits raised since the pin was last updated (for the unlatched pulse).
    private var raisedSincePinUpdate: UInt8 = 0
    /// The motion detector's high-pass state: last input and output per axis, in g.
    private var highPassInput = Vector3.zero
    private var highPassOutput = Vector3.zero
    private var highPassPrimed = false
    /// Milliseconds over the threshold, against MOT_DUR.
    private var motionCounterMs = 0.0
    /// Wake-on-motion: the previous sample's acceleration, in g (nil until one was taken).
    private var previousAccel: Vector3?

    /// A part answering `whoAmI`: an accepted ID simulates that variant; any other ID (for
    /// testing how drivers reject it) an MPU-6050 answering with it.
    package init(clock: MonotonicClock, motion: MotionSource, imperfections: SensorImperfections = .ideal,
                whoAmI: UInt8 = 0x68) {
        self.whoAmI = whoAmI
        variant = MPU6050Chip().variant(chipID: whoAmI) ?? .mpu6050
        temperature = variant.temperature!
        accelOffsets = variant.accelOffsets!
        gyroOffsets = variant.gyroOffsets!
        fifo = [UInt8](repeating: 0, count: variant.fifo!.capacityBytes)
        super.init(clock: clock, motion: motion, imperfections: imperfections, pinName: "simulated \(variant.part) INT")
        for axis in 0..<3 { factoryAccelOffsets[axis] = word(at: Int(accelOffsets.register(axis: axis))) }
    }

    /// True while SLEEP is set (or the clock is stopped): no samples are taken.
    package var isAsleep: Bool { !awake }

    /// The current sample rate in Hz: base / (1 + SMPLRT_DIV).
    package var sampleRateHz: Double { Nanoseconds.rateHz(period: ratePeriodNs) }

    /// Bytes waiting in the FIFO as of the last bus transaction.
    package var fifoByteCount: Int { fifoCount }

    /// Whole frames of the enabled groups waiting in the FIFO.
    package var queuedFIFOFrames: Int {
        let frame = fifoFrameSize
        return frame > 0 ? fifoCount / frame : 0
    }

    // MARK: Bus side

    package func read(register sub: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        catchUp()
        // The FIFO port does not advance: a burst keeps popping the FIFO.
        var (r, increments) = variant.registerMap.decode(subAddress: sub)
        for i in 0..<buffer.count {
            buffer[i] = load(r)
            if increments { r &+= 1 }
        }
        if regs[Int(Reg.intPinConfig)] & 0x10 != 0 { regs[Int(Reg.intStatus)] = 0 }
        updateInterruptPin()
    }

    package func write(register sub: UInt8, bytes: UnsafeRawBufferPointer) {
        catchUp()
        var (r, increments) = variant.registerMap.decode(subAddress: sub)
        for byte in bytes {
            store(r, byte)
            if increments { r &+= 1 }
        }
        updateInterruptPin()
    }

    private func load(_ r: UInt8) -> UInt8 {
        switch r {
        case Reg.intStatus:
            let v = regs[Int(r)]
            regs[Int(r)] = 0
            return v
        case Reg.fifoCountH:
            latchedFIFOCount = UInt16(fifoCount)
            return UInt8(latchedFIFOCount >> 8)
        case Reg.fifoCountL:
            return UInt8(latchedFIFOCount & 0xFF)
        case Reg.fifoData:
            if fifoCount > 0 {
                lastFIFOByte = fifo[fifoHead]
                fifoHead = (fifoHead + 1) % fifoCapacity
                fifoCount -= 1
            }
            return lastFIFOByte
        default:
            return regs[Int(r)]
        }
    }

    private func store(_ r: UInt8, _ value: UInt8) {
        let map = variant.registerMap
        guard map.isWritable(r) else { return }  // read-only or absent
        let kept = map.keptMask(r)
        switch r {
        case _ where kept != 0:
            // Reserved bits (the low accel-offset bytes' bit 0) keep their factory value.
            regs[Int(r)] = (value & ~kept) | (regs[Int(r)] & kept)
        case MPU6500Register.accelConfig2 where variant.fifoSizeBits != 0:
            // A new FIFO_SIZE empties the FIFO (its capacity changes under it).
            if (value ^ regs[Int(r)]) & variant.fifoSizeBits != 0 { fifoHead = 0; fifoCount = 0 }
            regs[Int(r)] = value
        case Reg.sampleRateDivider, Reg.config:
            reanchorTicks(oldPeriodNs: ratePeriodNs)
            regs[Int(r)] = value
        case Reg.signalPathReset:
            regs[Int(r)] = 0  // self-clearing; the sensor paths restart without clearing data
        case Reg.accelConfig:
            if value & 0x07 != regs[Int(r)] & 0x07 { highPassPrimed = false; motionCounterMs = 0 }
            regs[Int(r)] = value
        case Reg.userControl:
            if value & 0x04 != 0 { fifoHead = 0; fifoCount = 0 }
            if value & 0x01 != 0 {
                for i in Int(Reg.accelXOutH)...0x48 { regs[i] = 0 }
                heldSample = RawSample()
            }
            regs[Int(r)] = value & ~0x07  // FIFO_RESET, I2C_MST_RESET, SIG_COND_RESET self-clear
        case Reg.powerManagement1:
            if value & 0x80 != 0 {
                resetRegisters()
                return
            }
            regs[Int(r)] = value
            let shouldRun = value & 0x40 == 0 && value & 0x07 != 0x07
            if shouldRun && !awake { restartTicks() }
            awake = shouldRun
        case Reg.fifoData:
            pushFIFO(value)
        default:
            regs[Int(r)] = value
        }
    }

    /// Power-on / DEVICE_RESET state (§1.2): the register map's power-on values, this part's
    /// factory trim and its own WHO_AM_I.
    override func resetRegisters() {
        for i in regs.indices { regs[i] = 0 }
        for (register, value) in variant.registerMap.powerOnValues { regs[Int(register)] = value }
        for (register, value) in Self.factoryRegisters { regs[Int(register)] = value }
        for axis in 0..<3 {
            let r = Int(accelOffsets.register(axis: axis)), trim = Self.factoryAccelOffsets[axis]
            regs[r] = UInt8(trim >> 8)
            regs[r + 1] = UInt8(trim & 0xFF)
        }
        regs[Int(Reg.whoAmI)] = whoAmI
        fifoHead = 0; fifoCount = 0; lastFIFOByte = 0; latchedFIFOCount = 0
        awake = false
        clearTicks()
        heldSample = RawSample()
        highPassPrimed = false
        motionCounterMs = 0
        previousAccel = nil
        raisedSincePinUpdate = 0
    }

    // MARK: Sampling

    /// The sample clock's period in ns: 8 or 1 kHz base (DLPF_CFG) divided by 1 + SMPLRT_DIV.
    private var ratePeriodNs: UInt64 {
        let dlpf = regs[Int(Reg.config)] & 0x07
        let base: UInt64 = (dlpf == 0 || dlpf == 7) ? 125_000 : 1_000_000
        return base * (1 + UInt64(regs[Int(Reg.sampleRateDivider)]))
    }

    override var samplePeriodNs: UInt64? { awake ? ratePeriodNs : nil }

    /// Bytes per FIFO frame for the enabled groups, or 0 when the FIFO is off.
    private var fifoFrameSize: Int {
        guard regs[Int(Reg.userControl)] & 0x40 != 0 else { return 0 }
        let en = regs[Int(Reg.fifoEnable)]
        var n = 0
        if en & 0x08 != 0 { n += 6 }
        if en & 0x80 != 0 { n += 2 }
        if en & 0x40 != 0 { n += 2 }
        if en & 0x20 != 0 { n += 2 }
        if en & 0x10 != 0 { n += 2 }
        return n
    }

    override func catchUp() {
        guard let ticks = takeDueTicks() else { return }
        let newTicks = ticks.count
        switch variant.motionEngine {
        case .motionDetect:
            if motionDetectorOn { detectMotion(ticks) }
        case .wakeOnMotion:
            if wakeOnMotionOn { detectWakeOnMotion(ticks) }
        }
        let frame = fifoFrameSize
        var latest = RawSample()
        if frame > 0 {
            if UInt64(fifoCount) + newTicks * UInt64(frame) > UInt64(fifoCapacity) {
                raise(0x10)
            }
            var k = ticks.firstOfNewest(UInt64(fifoCapacity / frame + 1))
            while k <= ticks.last {
                latest = sample(atNs: ticks.time(k))
                pushFrame(latest)
                k += 1
            }
        } else {
            latest = sample(atNs: ticks.time(ticks.last))
        }
        writeDataRegisters(latest)
        raise(0x01)
    }

    private func raise(_ bits: UInt8) {
        regs[Int(Reg.intStatus)] |= bits
        raisedSincePinUpdate |= bits
    }

    // MARK: Motion detection and the INT pin

    /// MOT_EN with a usable ACCEL_HPF setting (1…4 or hold).
    private var motionDetectorOn: Bool {
        let hpf = regs[Int(Reg.accelConfig)] & 0x07
        return regs[Int(Reg.intEnable)] & 0x40 != 0 && ((1...4).contains(hpf) || hpf == 7)
    }


    /// Runs the detector over the due ticks (only the newest ones after a long gap).
    private func detectMotion(_ ticks: DueTicks) {
        var k = ticks.firstOfNewest(Self.detectorReplayLimit)
        if k != ticks.first { highPassPrimed = false }
        let accelLSB = MPU6050Scale.accelLSBPerG[Int((regs[Int(Reg.accelConfig)] >> 3) & 0x03)]
        let hpf = Int(regs[Int(Reg.accelConfig)] & 0x07)
        let dt = Nanoseconds.seconds(ticks.periodNs)
        let alpha: Double
        if hpf == 7 {
            alpha = 1  // hold: output = input − the sample when the filter was set
        } else {
            let rc = 1 / (2 * Double.pi * MPU6050Scale.highPassCutoffHz(hpf))
            alpha = rc / (rc + dt)
        }
        let threshold = Double(regs[Int(variant.motion.thresholdRegister)]) * variant.motion.thresholdGPerLSB
        let duration = Double(Swift.max(1, regs[Int(Reg.motionDuration)]))
        // MOT_COUNT 0…3: reset, or count down 1, 2, 4 per quiet sample.
        let count = Int(regs[Int(Reg.motionDetectControl)] & 0x03)
        let decrement = count == 0 ? 0 : Double(1 << (count - 1))
        while k <= ticks.last {
            let s = sample(atNs: ticks.time(k))
            let a = Vector3(Double(s.ax), Double(s.ay), Double(s.az)) / accelLSB
            if !highPassPrimed {
                highPassInput = a
                highPassOutput = .zero
                highPassPrimed = true
            } else if hpf == 7 {
                highPassOutput = a - highPassInput
            } else {
                highPassOutput = (highPassOutput + a - highPassInput) * alpha
                highPassInput = a
            }
            let o = highPassOutput
            if Swift.max(Swift.abs(o.x), Swift.max(Swift.abs(o.y), Swift.abs(o.z))) > threshold {
                motionCounterMs += dt * 1000
                if motionCounterMs >= duration { raise(0x40) }
            } else {
                motionCounterMs = count == 0 ? 0 : Swift.max(0, motionCounterMs - decrement * dt * 1000)
            }
            k += 1
        }
    }

    /// ACCEL_INTEL_EN and ACCEL_INTEL_MODE set, and a WOM bit enabled in INT_ENABLE.
    private var wakeOnMotionOn: Bool {
        let control = regs[Int(MPU6500Register.accelIntelControl)]
        return control & MPU6500Scale.accelIntelEnableAndCompare == MPU6500Scale.accelIntelEnableAndCompare
            && regs[Int(variant.motion.enableRegister)] & variant.motion.enableMask != 0
    }

    /// Runs wake-on-motion over the due ticks: each sample against the previous one, per axis
    /// against its threshold register (one register for all axes on the 6500 family).
    private func detectWakeOnMotion(_ ticks: DueTicks) {
        var k = ticks.firstOfNewest(Self.detectorReplayLimit)
        if k != ticks.first { previousAccel = nil }
        let motion = variant.motion
        let accelLSB = MPU6050Scale.accelLSBPerG[Int((regs[Int(Reg.accelConfig)] >> 3) & 0x03)]
        var thresholds = [0.0, 0.0, 0.0]
        for axis in 0..<3 {
            let register = motion.thresholdRegister &+ UInt8(motion.thresholdRegisterCount > 1 ? axis : 0)
            thresholds[axis] = Double(regs[Int(register)]) * motion.thresholdGPerLSB
        }
        while k <= ticks.last {
            let s = sample(atNs: ticks.time(k))
            let a = Vector3(Double(s.ax), Double(s.ay), Double(s.az)) / accelLSB
            if let previous = previousAccel {
                var bits: UInt8 = 0
                for axis in 0..<3 where Swift.abs(a[axis] - previous[axis]) > thresholds[axis] {
                    // One WOM bit (6500 family), or X/Y/Z in bits 7/6/5 (ICM-20689).
                    bits |= motion.statusMask.nonzeroBitCount == 1 ? motion.statusMask : UInt8(0x80) >> UInt8(axis)
                }
                if bits != 0 { raise(bits) }
            }
            previousAccel = a
            k += 1
        }
    }

    /// INT follows INT_PIN_CFG: latched, the enabled status bits; unlatched, a pulse per event.
    override func updateInterruptPin() {
        let config = regs[Int(Reg.intPinConfig)]
        let enabled = regs[Int(Reg.intEnable)]
        let activeLow = config & 0x80 != 0
        if config & 0x20 != 0 {
            interruptPin.drive(high: (regs[Int(Reg.intStatus)] & enabled != 0) != activeLow)
        } else {
            interruptPin.drive(high: activeLow)
            if raisedSincePinUpdate & enabled != 0 { interruptPin.pulse() }
        }
        raisedSincePinUpdate = 0
    }

    /// One sample's output words, as the chip would put them in its data registers.
    struct RawSample {
        var ax: Int16 = 0, ay: Int16 = 0, az: Int16 = 0, temp: Int16 = 0, gx: Int16 = 0, gy: Int16 = 0, gz: Int16 = 0
    }

    private func sample(atNs t: UInt64) -> RawSample {
        let dlpf = Int(regs[Int(Reg.config)] & 0x07)
        // The accelerometer runs at 1 kHz; at an 8 kHz sample rate its value repeats.
        let accelNs = (dlpf == 0 || dlpf == 7) ? (t / 1_000_000) * 1_000_000 : t
        let accelState = motion.state(at: motionSeconds(accelNs))
        let state = accelNs == t ? accelState : motion.state(at: motionSeconds(t))
        let afs = Int((regs[Int(Reg.accelConfig)] >> 3) & 0x03)
        let fs = Int((regs[Int(Reg.gyroConfig)] >> 3) & 0x03)
        let dieC = imperfections.dieTempC(ambientC: state.tempC, secondsSincePowerOn: motionSeconds(t))
        let a = imperfections.measuredAccel(accelState.accelG, tempC: dieC, bandwidthHz: MPU6050Scale.dlpfAccelBandwidthHz[dlpf],
                                            index: accelNs / 1000)
        let g = imperfections.measuredGyro(state.gyroDps, tempC: dieC, bandwidthHz: MPU6050Scale.dlpfGyroBandwidthHz[dlpf], index: t / 1000)
        let accelLSB = MPU6050Scale.accelLSBPerG[afs]
        let gyroLSB = MPU6050Scale.gyroLSBPerDps[fs]
        // Output LSB per offset-register LSB, from the offset registers' own unit (accel relative
        // to the factory trim, reserved bit excluded).
        let accelOffsetScale = accelOffsets.unitPerLSB * accelLSB
        let gyroOffsetScale = gyroOffsets.unitPerLSB * gyroLSB
        var out = heldSample
        let standby = regs[Int(Reg.powerManagement2)]
        if standby & 0x20 == 0 { out.ax = Self.clamp(a.x * accelLSB + Double(accelOffsetDelta(0)) * accelOffsetScale)
 }
        if standby & 0x10 == 0 { out.ay = Self.clamp(a.y * accelLSB + Double(accelOffsetDelta(1)) * accelOffsetScale) }
        if standby & 0x08 == 0 { out.az = Self.clamp(a.z * accelLSB + Double(accelOffsetDelta(2)) * accelOffsetScale) }
        if regs[Int(Reg.powerManagement1)] & 0x08 == 0 {
            out.temp = Self.clamp((dieC - temperature.offsetC) * temperature.lsbPerC)
        }
        if standby & 0x04 == 0 { out.gx = Self.clamp(g.x * gyroLSB + Double(gyroOffset(0)) * gyroOffsetScale) }
        if standby & 0x02 == 0 { out.gy = Self.clamp(g.y * gyroLSB + Double(gyroOffset(1)) * gyroOffsetScale) }
        if standby & 0x01 == 0 { out.gz = Self.clamp(g.z * gyroLSB + Double(gyroOffset(2)) * gyroOffsetScale) }
        heldSample = out
        return out
    }

    private func word(at r: Int) -> Int {
        Int(Int16(bitPattern: UInt16(regs[r]) << 8 | UInt16(regs[r + 1])))
    }

    private func accelOffsetDelta(_ axis: Int) -> Int {
        let reserved = Int(accelOffsets.reservedMask)
        return (word(at: Int(accelOffsets.register(axis: axis))) & ~reserved) - (factoryAccelOffsets[axis] & ~reserved)
    }

    private func gyroOffset(_ axis: Int) -> Int { word(at: Int(gyroOffsets.register(axis: axis))) }

    @inline(__always)
    private static func clamp(_ v: Double) -> Int16 {
        let r = v.rounded()
        if r >= 32767 { return .max }
        if r <= -32768 { return .min }
        return Int16(r)
    }

    private func writeDataRegisters(_ s: RawSample) {
        var r = Int(Reg.accelXOutH)
        putWord(s.ax, &r); putWord(s.ay, &r); putWord(s.az, &r); putWord(s.temp, &r)
        putWord(s.gx, &r); putWord(s.gy, &r); putWord(s.gz, &r)
    }

    @inline(__always)
    private func putWord(_ v: Int16, _ r: inout Int) {
        let bits = UInt16(bitPattern: v)
        regs[r] = UInt8(bits >> 8)
        regs[r + 1] = UInt8(bits & 0xFF)
        r += 2
    }

    /// Pushes one frame in register-address order: accel, temp, gyro X, Y, Z (§1.7).
    private func pushFrame(_ s: RawSample) {
        let en = regs[Int(Reg.fifoEnable)]
        if en & 0x08 != 0 { pushWord(s.ax); pushWord(s.ay); pushWord(s.az) }
        if en & 0x80 != 0 { pushWord(s.temp) }
        if en & 0x40 != 0 { pushWord(s.gx) }
        if en & 0x20 != 0 { pushWord(s.gy) }
        if en & 0x10 != 0 { pushWord(s.gz) }
    }

    @inline(__always)
    private func pushWord(_ v: Int16) {
        let bits = UInt16(bitPattern: v)
        pushFIFO(UInt8(bits >> 8))
        pushFIFO(UInt8(bits & 0xFF))
    }

    /// Appends a byte; when full, the oldest byte is dropped and FIFO_OFLOW_INT set.
    private func pushFIFO(_ b: UInt8) {
        if fifoCount == fifoCapacity {
            fifoHead = (fifoHead + 1) % fifoCapacity
            fifoCount -= 1
            raise(0x10)
        }
        fifo[(fifoHead + fifoCount) % fifoCapacity] = b
        fifoCount += 1
    }
}

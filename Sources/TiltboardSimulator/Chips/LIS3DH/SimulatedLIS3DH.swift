import TiltboardCore
import TiltboardDrivers

/// An LIS3DH as its register map behaves, built on the drivers' own description (`LIS3DHVariant`'s
/// `RegisterMap`, `LIS3DHRegister`, `LIS3DHMode`, `LIS3DHScale`): a wrong entry there shows as a
/// failing round trip.
///
/// - Bus: a sub-address with bit 7 set walks the registers through a burst; without it every
///   byte of the burst comes from the same register (DS, I²C operation). Writes to read-only or absent
///   registers are ignored.
/// - Sampling: powers up in power-down (CTRL_REG1 0x07). With an ODR valid for the mode it
///   samples from the moment the ODR was written; each transaction first replays the ticks
///   since the previous one. Data are left-justified little-endian words (big-endian with BLE)
///   of the mode's width, in its mg per digit, clipped to the word.
/// - BDU: with it set, an axis whose one byte was read keeps its sample until the other byte is
///   read too; without it a single-byte read of the low byte and a later one of the high byte
///   can come from different samples.
/// - FIFO (FIFO_EN and a mode other than bypass): 32 samples; FIFO mode stops when full, stream
///   and stream-to-FIFO (no trigger events are generated) overwrite the oldest. The output
///   registers present the oldest unread sample and every transaction touching OUT_X_L…OUT_Z_H
///   pops one. FIFO_SRC_REG: EMPTY, OVRN_FIFO while 32 are held, FSS the count (31 while full:
///   the data sheet leaves FSS at 32 open; the driver counts 32 from OVRN_FIFO), WTM at FSS ≥ FTH.
/// - Interrupt generator 1: with INT1_CFG's axis events enabled, each tick compares |a| on the
///   enabled axes with INT1_THS (high events above, low events at or below; OR or, with AOI,
///   AND), on high-pass-filtered data with HP_IA1 (first order, cut-off by HPCF and the ODR;
///   reading REFERENCE restarts it at the current acceleration). The event must last
///   INT1_DURATION ticks; IA is latched until INT1_SRC is read with LIR_INT1, else it follows
///   the condition. `interruptPin` is INT1: I1_IA1, I1_ZYXDA, I1_WTM and I1_OVERRUN route IA,
///   new data, watermark and overrun to it, active high unless INT_POLARITY.
/// Not modelled: the auxiliary ADC and temperature sensor (OUT_ADC1…3 read 0), self-test,
/// click, 6D/4D, interrupt generator 2, INT2, the reference and autoreset high-pass modes.
package final class SimulatedLIS3DH: SimulatedPart, SimulatedChip {
    /// The WHO_AM_I value it answers with.
    package let whoAmI: UInt8
    /// The part's register map, the driver's.
    private static let map = LIS3DHVariant().registerMap

    private typealias R = LIS3DHRegister
    private var regs = [UInt8](repeating: 0, count: 128)
    private var fifo = [UInt8](repeating: 0, count: LIS3DHScale.fifoDepth * 6)
    /// One sample's six output bytes, as `encode` leaves them.
    private var words = [UInt8](repeating: 0, count: 6)
    private var fifoHead = 0
    private var fifoCount = 0
    /// The ODR's period while sampling, else 0.
    private var periodNs: UInt64 = 0
    /// STATUS_REG: new data not yet read, and data overwritten before it was read.
    private var dataAvailable = false
    private var dataOverrun = false
    /// BDU: axes (bit 0 X … bit 2 Z) with one byte read and the other not yet.
    private var halfRead: UInt8 = 0
    /// Interrupt generator 1: its high-pass state, how long its condition has held, its flags.
    private var highPassInput: Vector3?
    private var highPassOutput = Vector3.zero
    private var eventTicks = 0
    private var int1Source: UInt8 = 0

    /// A powered part in power-down, registers at their power-on values, answering `whoAmI`.
    package init(clock: MonotonicClock, motion: MotionSource, imperfections: SensorImperfections = .ideal,
                whoAmI: UInt8 = LIS3DH.deviceID) {
        self.whoAmI = whoAmI
        super.init(clock: clock, motion: motion, imperfections: imperfections, pinName: "simulated LIS3DH INT1")
    }

    override func resetRegisters() {
        for i in regs.indices { regs[i] = 0 }
        for (register, value) in Self.map.powerOnValues { regs[Int(register)] = value }
        regs[Int(R.whoAmI)] = whoAmI
        fifoHead = 0; fifoCount = 0
        periodNs = 0; clearTicks()
        dataAvailable = false; dataOverrun = false; halfRead = 0
        highPassInput = nil; highPassOutput = .zero; eventTicks = 0; int1Source = 0
    }

    /// The operating mode CTRL_REG1 and CTRL_REG4 select.
    package var mode: LIS3DHMode { LIS3DHMode(control1: regs[Int(R.control1)], control4: regs[Int(R.control4)]) }

    /// The output data rate, Hz; nil in power-down (or with an ODR code the mode lacks).
    package var outputRateHz: Double? {
        LIS3DHScale.rateHz(code: regs[Int(R.control1)] >> 4, mode: mode)
    }

    /// Unread FIFO samples as of the last bus transaction.
    package var queuedFIFOFrames: Int { fifoCount }

    // MARK: Bus side

    package func read(register subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        catchUp()
        var (r, increments) = Self.map.decode(subAddress: subAddress)
        var popped = false
        for i in 0..<buffer.count {
            if isOutput(r) && !popped {
                popSample()  // a transaction touching the output registers takes one FIFO sample
                popped = true
            }
            buffer[i] = load(r)
            if increments { r = (r &+ 1) & 0x7F }
        }
        updateInterruptPin()
    }

    package func write(register subAddress: UInt8, bytes: UnsafeRawBufferPointer) {
        catchUp()
        var (r, increments) = Self.map.decode(subAddress: subAddress)
        for byte in bytes {
            store(r, byte)
            if increments { r = (r &+ 1) & 0x7F }
        }
        updateInterruptPin()
    }

    private func isOutput(_ r: UInt8) -> Bool { r >= R.outXL && r < R.outXL + 6 }

    private var fifoMode: UInt8 {
        regs[Int(R.control5)] & LIS3DHControl5.fifoEnable != 0 ? regs[Int(R.fifoControl)] & 0xC0 : 0
    }

    private var fifoSource: UInt8 {
        let threshold = Int(regs[Int(R.fifoControl)] & LIS3DHFIFOSource.levelMask)
        return (fifoCount >= threshold && fifoMode != 0 ? LIS3DHFIFOSource.watermark : 0)
            | (fifoCount == LIS3DHScale.fifoDepth ? LIS3DHFIFOSource.overrun : 0)
            | (fifoCount == 0 ? LIS3DHFIFOSource.empty : 0)
            | UInt8(Swift.min(fifoCount, 31))
    }

    private func load(_ r: UInt8) -> UInt8 {
        switch r {
        case R.status:
            return (dataOverrun ? 0xF0 : 0) | (dataAvailable ? 0x0F : 0)
        case R.fifoSource:
            return fifoSource
        case R.int1Source:
            let v = int1Source
            if regs[Int(R.control5)] & LIS3DHControl5.latchInt1 != 0 { int1Source = 0 }
            return v
        case R.reference:
            restartHighPass()
            return regs[Int(r)]
        case R.outXL..<(R.outXL + 6):
            let axis = UInt8(1) << ((r - R.outXL) / 2)
            halfRead ^= axis  // the first byte of a pair locks it (BDU), the second frees it
            dataAvailable = false; dataOverrun = false
            return regs[Int(r)]
        default:
            return regs[Int(r)]
        }
    }

    private func store(_ r: UInt8, _ value: UInt8) {
        guard Self.map.isWritable(r) else { return }
        switch r {
        case R.control1:
            let wasSampling = periodNs != 0
            regs[Int(r)] = value
            resample(restart: !wasSampling)
        case R.control4:
            regs[Int(r)] = value
            resample(restart: false)
        case R.control5:
            regs[Int(r)] = value & ~LIS3DHControl5.boot  // BOOT reloads the trimming and clears itself
            if fifoMode == 0 { fifoHead = 0; fifoCount = 0 }
        case R.fifoControl:
            regs[Int(r)] = value
            if fifoMode == 0 { fifoHead = 0; fifoCount = 0 }  // bypass empties the FIFO
        case R.int1Config:
            regs[Int(r)] = value
            eventTicks = 0
        default:
            regs[Int(r)] = value
        }
    }

    // MARK: Sampling

    /// Follows a change of ODR or mode: a part leaving power-down starts its ticks now; a
    /// running part keeps its ticks until the period changes.
    private func resample(restart: Bool) {
        let newPeriod = outputRateHz.map { UInt64(Nanoseconds.period(hz: $0).rounded()) } ?? 0
        if newPeriod == 0 { periodNs = 0; return }
        if restart || newPeriod != periodNs {
            if periodNs == 0 { restartTicks() } else { reanchorTicks(oldPeriodNs: periodNs) }
            periodNs = newPeriod
        }
    }

    override var samplePeriodNs: UInt64? { periodNs == 0 ? nil : periodNs }

    override func catchUp() {
        guard let ticks = takeDueTicks() else { return }
        let newTicks = ticks.count
        if regs[Int(R.int1Config)] & 0x3F != 0 {
            for k in ticks.firstOfNewest(Self.detectorReplayLimit)...ticks.last { runGenerator1(atNs: ticks.time(k)) }
        }
        if fifoMode == 0 {
            if dataAvailable || newTicks > 1 { dataOverrun = true }
            storeOutput(atNs: ticks.time(ticks.last))
        } else {
            let keep = fifoMode == LIS3DHFIFOMode.fifo.rawValue
                ? Swift.min(newTicks, UInt64(LIS3DHScale.fifoDepth - fifoCount))
                : Swift.min(newTicks, UInt64(LIS3DHScale.fifoDepth))
            let start = fifoMode == LIS3DHFIFOMode.fifo.rawValue ? ticks.first : ticks.last - keep + 1
            var k = start
            while k < start + keep {
                pushSample(atNs: ticks.time(k))
                k += 1
            }
        }
        dataAvailable = true
    }

    private func pushSample(atNs t: UInt64) {
        if fifoCount == LIS3DHScale.fifoDepth {
            fifoHead = (fifoHead + 1) % LIS3DHScale.fifoDepth
            fifoCount -= 1
        }
        let slot = ((fifoHead + fifoCount) % LIS3DHScale.fifoDepth) * 6
        encode(outputG(atNs: t))
        for i in 0..<6 { fifo[slot + i] = words[i] }
        fifoCount += 1
    }

    /// With the FIFO on: moves the oldest sample into the output registers.
    private func popSample() {
        guard fifoMode != 0, fifoCount > 0 else { return }
        let slot = fifoHead * 6
        for i in 0..<6 { regs[Int(R.outXL) + i] = fifo[slot + i] }
        fifoHead = (fifoHead + 1) % LIS3DHScale.fifoDepth
        fifoCount -= 1
        halfRead = 0
    }

    /// Writes the sample at `t` to the output registers, except the axes BDU holds.
    private func storeOutput(atNs t: UInt64) {
        encode(outputG(atNs: t))
        let blocked = regs[Int(R.control4)] & LIS3DHControl4.blockDataUpdate != 0 ? halfRead : 0
        for axis in 0..<3 where blocked & (1 << axis) == 0 {
            regs[Int(R.outXL) + 2 * axis] = words[2 * axis]
            regs[Int(R.outXL) + 2 * axis + 1] = words[2 * axis + 1]
        }
    }

    /// The acceleration the part outputs at `t`, in g, before conversion.
    private func outputG(atNs t: UInt64) -> Vector3 {
        let seconds = motionSeconds(t)
        let state = motion.state(at: seconds)
        let dieC = imperfections.dieTempC(ambientC: state.tempC, secondsSincePowerOn: seconds)
        let bandwidth = (outputRateHz ?? 0) * LIS3DHScale.bandwidthFraction(mode)
        return imperfections.measuredAccel(state.accelG, tempC: dieC, bandwidthHz: bandwidth, index: t / 1000)
    }

    /// Three axes → the six bytes of `words`, in the current mode, range and byte order.
    private func encode(_ g: Vector3) {
        let mode = self.mode
        let control4 = regs[Int(R.control4)]
        let range = Int((control4 >> 4) & 0x03)
        let limit = 1 << (mode.bits - 1)
        let milliGPerDigit = mode.milliGPerDigit[range]
        for axis in 0..<3 {
            let digits = Int(Swift.max(-Double(limit), Swift.min(Double(limit - 1),
                                        (g[axis] * 1000 / milliGPerDigit).rounded())))
            let word = UInt16(truncatingIfNeeded: digits << (16 - mode.bits))
            let (first, second) = control4 & LIS3DHControl4.bigEndian != 0
                ? (UInt8(word >> 8), UInt8(word & 0xFF)) : (UInt8(word & 0xFF), UInt8(word >> 8))
            words[2 * axis] = first
            words[2 * axis + 1] = second
        }
    }

    // MARK: Interrupts

    /// Reading REFERENCE in the default high-pass mode restarts the filter at the current input.
    private func restartHighPass() {
        highPassInput = nil
        highPassOutput = .zero
    }

    /// One tick of interrupt generator 1 at `t`.
    private func runGenerator1(atNs t: UInt64) {
        var a = outputG(atNs: t)
        if regs[Int(R.control2)] & LIS3DHInterrupt.highPassGenerator1 != 0 {
            // First-order high-pass: y = α (y + x − x₋₁), α = 1 / (1 + 2π fc / ODR).
            let cutoff = LIS3DHScale.highPassFraction[Int((regs[Int(R.control2)] >> 4) & 0x03)]
            let alpha = 1 / (1 + 2 * Double.pi * cutoff)
            let previous = highPassInput ?? a
            highPassOutput = (highPassOutput + a - previous) * alpha
            highPassInput = a
            a = highPassOutput
        }
        let config = regs[Int(R.int1Config)]
        let threshold = Double(regs[Int(R.int1Threshold)] & 0x7F)
            * LIS3DHScale.thresholdGPerLSB[Int((regs[Int(R.control4)] >> 4) & 0x03)]
        var flags: UInt8 = 0
        for axis in 0..<3 {
            let high = Swift.abs(a[axis]) > threshold
            flags |= (high ? 0x02 : 0x01) << (2 * axis)  // XL XH YL YH ZL ZH
        }
        let enabled = config & 0x3F
        let hits = flags & enabled
        let condition = config & 0x80 != 0 ? hits == enabled : hits != 0
        eventTicks = condition ? eventTicks + 1 : 0
        let active = condition && eventTicks > Int(regs[Int(R.int1Duration)] & 0x7F)
        if active {
            int1Source = LIS3DHInterrupt.active | hits
        } else if regs[Int(R.control5)] & LIS3DHControl5.latchInt1 == 0 {
            int1Source = 0
        }
    }

    /// INT1: the sources CTRL_REG3 routes to it, inverted by INT_POLARITY.
    override func updateInterruptPin() {
        let routing = regs[Int(R.control3)]
        let source = fifoSource
        let active = (routing & LIS3DHInterrupt.int1FromGenerator1 != 0 && int1Source & LIS3DHInterrupt.active != 0)
            || (routing & 0x10 != 0 && dataAvailable)
            || (routing & 0x04 != 0 && source & LIS3DHFIFOSource.watermark != 0)
            || (routing & 0x02 != 0 && source & LIS3DHFIFOSource.overrun != 0)
        interruptPin.drive(high: active != (regs[Int(R.control6)] & 0x02 != 0))
    }
}

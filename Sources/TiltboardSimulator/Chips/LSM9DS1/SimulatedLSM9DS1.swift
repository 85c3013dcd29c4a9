import TiltboardCore
import TiltboardDrivers

/// The LSM9DS1's accelerometer and gyroscope as their register map behaves, built on the
/// drivers' own description (`LSM9DS1Variant`'s `RegisterMap`, `LSM9DS1Register`,
/// `LSM9DS1Scale`; data sheet DocID025715 Rev 3, "DS").
///
/// - Bus: bursts walk the registers while CTRL_REG8's IF_ADD_INC is set (its power-on value);
///   with it clear every byte comes from the first register. Writes to read-only or reserved
///   registers are ignored. SW_RESET returns every register to its power-on value.
/// - Sampling: powers up in power-down. With ODR_G set, gyro and accelerometer both sample at
///   the gyro's rate (DS §3); with only ODR_XL set, the accelerometer alone at its own rates
///   (10, 50, 119, 238, 476, 952 Hz; DS §7, CTRL_REG6_XL) and the gyro outputs read 0. Each
///   transaction first replays the ticks since the previous one. Little-endian words (big-
///   endian with BLE), clipped; temperature 16 LSB/°C from 25 °C.
/// - BDU: an axis whose one byte was read keeps its sample until the other byte is read.
/// - FIFO (CTRL_REG9 FIFO_EN and FMODE not bypass): 32 slots of gyro and accelerometer;
///   FIFO mode stops when full, continuous overwrites the oldest and sets OVRN. The output
///   registers present the oldest unread slot; a transaction that reads OUT_Z_H_XL (0x2D)
///   moves on to the next (DS §3.5 describes reading FSS samples out of the output registers;
///   where exactly the slot advances it does not say, and the end of the accelerometer's
///   data is where a gyro-then-accelerometer read, or one burst over both, finishes a slot).
///   FIFO_SRC: FTH when FSS ≥ FIFO_CTRL's FTH, OVRN, FSS 0…32. Writing bypass empties it.
/// - INT1: INT1_CTRL routes accelerometer and gyro data-ready, the FIFO threshold, overrun
///   and full flags; active high unless H_LACTIVE.
/// Not modelled: the interrupt generators and activity detection, decimation, self-test,
/// sleep mode, the high-pass and low-pass filter chains (the noise bandwidth is half the rate).
package final class SimulatedLSM9DS1: SimulatedPart, SimulatedChip {
    /// The WHO_AM_I value it answers with.
    package let whoAmI: UInt8
    private static let map = LSM9DS1Variant().registerMap
    private typealias R = LSM9DS1Register
    /// Accelerometer-only rates by ODR_XL code 1…6, Hz (DS §7, CTRL_REG6_XL).
    static let accelOnlyRatesHz: [Double] = [10, 50, 119, 238, 476, 952]

    private var regs = [UInt8](repeating: 0, count: 128)
    /// FIFO slots: 12 bytes each, gyro then accelerometer, as in the output registers.
    private var fifo = [UInt8](repeating: 0, count: LSM9DS1Scale.fifoDepth * 12)
    private var slot = [UInt8](repeating: 0, count: 12)
    private var fifoHead = 0
    private var fifoCount = 0
    private var overrun = false
    private var periodNs: UInt64 = 0
    private var accelReady = false, gyroReady = false
    /// BDU: words (bit 0–2 gyro X–Z, 3–5 accelerometer X–Z) with one byte read.
    private var halfRead: UInt8 = 0

    package init(clock: MonotonicClock, motion: MotionSource, imperfections: SensorImperfections = .ideal,
                whoAmI: UInt8 = LSM9DS1.deviceID) {
        self.whoAmI = whoAmI
        super.init(clock: clock, motion: motion, imperfections: imperfections, pinName: "simulated LSM9DS1 INT1_A/G")
    }

    override func resetRegisters() {
        for i in regs.indices { regs[i] = 0 }
        for (register, value) in Self.map.powerOnValues { regs[Int(register)] = value }
        regs[Int(R.whoAmI)] = whoAmI
        fifoHead = 0; fifoCount = 0; overrun = false
        periodNs = 0; clearTicks()
        accelReady = false; gyroReady = false; halfRead = 0
    }

    /// The output rate, Hz; nil in power-down.
    package var outputRateHz: Double? {
        if let g = LSM9DS1Scale.rateHz(code: regs[Int(R.control1G)] >> 5) { return g }
        let xl = Int(regs[Int(R.control6XL)] >> 5)
        return xl >= 1 && xl <= 6 ? Self.accelOnlyRatesHz[xl - 1] : nil
    }

    private var gyroOn: Bool { LSM9DS1Scale.rateHz(code: regs[Int(R.control1G)] >> 5) != nil }
    private var fifoOn: Bool {
        regs[Int(R.control9)] & LSM9DS1Control9.fifoEnable != 0 && regs[Int(R.fifoControl)] & 0xE0 != 0
    }
    package var queuedFIFOFrames: Int { fifoOn ? fifoCount : 0 }

    // MARK: Bus side

    package func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        catchUp()
        var r = register & 0x7F
        let increments = regs[Int(R.control8)] & LSM9DS1Control8.autoIncrement != 0
        var finishedSlot = false
        for i in 0..<buffer.count {
            buffer[i] = load(r)
            if r == R.outXLXL + 5 { finishedSlot = true }
            if increments { r = (r &+ 1) & 0x7F }
        }
        if finishedSlot && fifoOn && fifoCount > 0 {
            fifoHead = (fifoHead + 1) % LSM9DS1Scale.fifoDepth
            fifoCount -= 1
            if fifoCount < LSM9DS1Scale.fifoDepth { overrun = false }
        }
        updateInterruptPin()
    }

    package func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        catchUp()
        var r = register & 0x7F
        let increments = regs[Int(R.control8)] & LSM9DS1Control8.autoIncrement != 0
        for byte in bytes {
            store(r, byte)
            if increments { r = (r &+ 1) & 0x7F }
        }
        updateInterruptPin()
    }

    private var fifoSource: UInt8 {
        let threshold = Int(regs[Int(R.fifoControl)] & 0x1F)
        let count = fifoOn ? fifoCount : 0
        return (fifoOn && count >= threshold ? LSM9DS1FIFOSource.threshold : 0)
            | (overrun ? LSM9DS1FIFOSource.overrun : 0) | UInt8(count)
    }

    /// Offset into a 12-byte slot for an output register, nil for others.
    private func slotOffset(_ r: UInt8) -> Int? {
        if r >= R.outXLG && r < R.outXLG + 6 { return Int(r - R.outXLG) }
        if r >= R.outXLXL && r < R.outXLXL + 6 { return 6 + Int(r - R.outXLXL) }
        return nil
    }

    private func load(_ r: UInt8) -> UInt8 {
        switch r {
        case R.fifoSource:
            return fifoSource
        case R.status, R.status + 0x10:
            return (gyroReady ? 0x02 : 0) | (accelReady ? 0x01 : 0) | 0x04
        default:
            guard let o = slotOffset(r) else { return regs[Int(r)] }
            if o < 6 { gyroReady = false } else { accelReady = false }
            halfRead ^= UInt8(1) << (o / 2)
            if fifoOn {
                return fifoCount > 0 ? fifo[fifoHead * 12 + o] : regs[Int(r)]
            }
            return regs[Int(r)]
        }
    }

    private func store(_ r: UInt8, _ value: UInt8) {
        guard Self.map.isWritable(r) else { return }
        switch r {
        case R.control8:
            if value & LSM9DS1Control8.softwareReset != 0 {
                resetRegisters()
                return
            }
            regs[Int(r)] = value & ~UInt8(0x80)  // BOOT reloads the trimming and clears itself
        case R.control1G, R.control6XL:
            let old = periodNs
            regs[Int(r)] = value
            let newPeriod = outputRateHz.map { UInt64(Nanoseconds.period(hz: $0).rounded()) } ?? 0
            if newPeriod == 0 { periodNs = 0 }
            else if newPeriod != old {
                if old == 0 { restartTicks() } else { reanchorTicks(oldPeriodNs: old) }
                periodNs = newPeriod
            }
        case R.fifoControl, R.control9:
            regs[Int(r)] = value
            if !fifoOn { fifoHead = 0; fifoCount = 0; overrun = false }  // bypass empties the FIFO
        default:
            regs[Int(r)] = value
        }
    }

    // MARK: Sampling

    override var samplePeriodNs: UInt64? { periodNs == 0 ? nil : periodNs }

    override func catchUp() {
        guard let ticks = takeDueTicks() else { return }
        if fifoOn {
            let fifoMode = regs[Int(R.fifoControl)] & 0xE0 == LSM9DS1FIFOMode.fifo.rawValue
            let newest = ticks.firstOfNewest(UInt64(LSM9DS1Scale.fifoDepth))
            var k = fifoMode ? ticks.first : newest
            while k <= ticks.last {
                if fifoCount == LSM9DS1Scale.fifoDepth {
                    if fifoMode { break }
                    fifoHead = (fifoHead + 1) % LSM9DS1Scale.fifoDepth
                    fifoCount -= 1
                    overrun = true
                }
                encode(atNs: ticks.time(k))
                let at = ((fifoHead + fifoCount) % LSM9DS1Scale.fifoDepth) * 12
                for i in 0..<12 { fifo[at + i] = slot[i] }
                fifoCount += 1
                k += 1
            }
            if ticks.count > UInt64(LSM9DS1Scale.fifoDepth) && !fifoMode { overrun = true }
        } else {
            encode(atNs: ticks.time(ticks.last))
            let blocked = regs[Int(R.control8)] & LSM9DS1Control8.blockDataUpdate != 0 ? halfRead : 0
            for word in 0..<6 where blocked & (1 << word) == 0 {
                let base = word < 3 ? Int(R.outXLG) + 2 * word : Int(R.outXLXL) + 2 * (word - 3)
                regs[base] = slot[2 * word]
                regs[base + 1] = slot[2 * word + 1]
            }
        }
        accelReady = true
        gyroReady = gyroOn
    }

    /// The sample at `t` into `slot` (gyro, accelerometer) and the temperature registers.
    private func encode(atNs t: UInt64) {
        let seconds = motionSeconds(t)
        let state = motion.state(at: seconds)
        let dieC = imperfections.dieTempC(ambientC: state.tempC, secondsSincePowerOn: seconds)
        let bandwidth = (outputRateHz ?? 0) / 2
        let a = imperfections.measuredAccel(state.accelG, tempC: dieC, bandwidthHz: bandwidth, index: t / 1000)
        let g = imperfections.measuredGyro(state.gyroDps, tempC: dieC, bandwidthHz: bandwidth, index: t / 1000)
        let accelIndex = LSM9DS1Scale.accelRangeIndex(code: regs[Int(R.control6XL)] >> 3)
        let gyroIndex = LSM9DS1Scale.gyroRangeIndex(code: regs[Int(R.control1G)] >> 3)
        let bigEndian = regs[Int(R.control8)] & 0x02 != 0
        for axis in 0..<3 {
            let gyroDigits = gyroOn ? g[axis] * 1000 / LSM9DS1Scale.gyroMilliDpsPerLSB[gyroIndex] : 0
            put(gyroDigits, at: 2 * axis, bigEndian: bigEndian)
            put(a[axis] * 1000 / LSM9DS1Scale.accelMilliGPerLSB[accelIndex], at: 6 + 2 * axis, bigEndian: bigEndian)
        }
        let temp = Self.clamp((dieC - LSM9DS1Scale.temperatureOffsetC) * LSM9DS1Scale.temperatureLSBPerC)
        regs[Int(R.outTempL)] = UInt8(truncatingIfNeeded: temp)
        regs[Int(R.outTempL) + 1] = UInt8(truncatingIfNeeded: temp >> 8)
    }

    private func put(_ digits: Double, at o: Int, bigEndian: Bool) {
        let word = UInt16(bitPattern: Int16(Self.clamp(digits)))
        slot[o] = bigEndian ? UInt8(word >> 8) : UInt8(word & 0xFF)
        slot[o + 1] = bigEndian ? UInt8(word & 0xFF) : UInt8(word >> 8)
    }

    private static func clamp(_ v: Double) -> Int {
        Int(Swift.max(-32768, Swift.min(32767, v.rounded())))
    }

    /// INT1_A/G: INT_DRDY_XL [0], INT_DRDY_G [1], INT_FTH [3], INT_OVR [4], INT_FSS5 [5]; H_LACTIVE inverts.
    override func updateInterruptPin() {
        let routing = regs[Int(R.int1Control)]
        let source = fifoSource
        let active = (routing & 0x01 != 0 && accelReady) || (routing & 0x02 != 0 && gyroReady)
            || (routing & 0x08 != 0 && source & LSM9DS1FIFOSource.threshold != 0)
            || (routing & 0x10 != 0 && source & LSM9DS1FIFOSource.overrun != 0)
            || (routing & 0x20 != 0 && fifoOn && fifoCount == LSM9DS1Scale.fifoDepth)
        interruptPin.drive(high: active != (regs[Int(R.control8)] & 0x20 != 0))
    }
}

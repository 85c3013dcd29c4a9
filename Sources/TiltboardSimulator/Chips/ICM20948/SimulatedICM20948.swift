import TiltboardCore
import TiltboardDrivers

/// The ICM-20948's accelerometer and gyroscope as their banked register map behaves, built on
/// the drivers' own description (`ICM20948Map`: each bank's `RegisterMap`, REG_BANK_SEL;
/// `ICM20948Scale`; data sheet DS-000189 rev 1.3, "DS").
///
/// - Banks: REG_BANK_SEL (0x7F, the same register in every bank; USER_BANK [5:4], other bits
///   read 0) picks which of four 128-register banks every other address reaches. Power-on and
///   DEVICE_RESET select bank 0. A burst walks the registers of the selected bank, except
///   FIFO_R_W in bank 0, which it keeps reading; writes to read-only or absent registers are
///   ignored.
/// - Sampling: powers up asleep (PWR_MGMT_1 0x41). Awake, with the gyro on (PWR_MGMT_2), both
///   sensors sample at the gyro's rate, 1.125 kHz / (1 + GYRO_SMPLRT_DIV); with the gyro
///   disabled the accelerometer at 1.125 kHz / (1 + ACCEL_SMPLRT_DIV), the gyro reading 0.
///   Noise over the low-pass bandwidth GYRO_CONFIG_1 / ACCEL_CONFIG select (FCHOICE 1). Data
///   big-endian, clipped; temperature raw / 333.87 + 21 °C.
/// - FIFO (USER_CTRL FIFO_EN): 512 bytes; each tick appends accel, gyro X/Y/Z and temperature
///   as FIFO_EN_2 enables them, in register order. Stream mode (FIFO_MODE 0) drops the oldest
///   bytes when full, snapshot stops; either sets INT_STATUS_2's FIFO_OVERFLOW bits. FIFO_COUNT
///   is latched when FIFO_COUNTH is read. FIFO_R_W pops a byte per read; empty, it reads 0xFF
///   (the ICM-20948 sheet as read does not say; 0xFF is what its ICM-20690 sibling's sheet
///   names). FIFO_RST with any bit set empties it.
/// - INT_STATUS_1 RAW_DATA_0_RDY is set each tick and cleared by reading it; INT1 follows it
///   when INT_ENABLE_1 routes it, active low with INT1_ACTL.
/// Not modelled: wake-on-motion, the DMP, the auxiliary I²C master and magnetometer, offsets
/// and self-test (banks 1 and 3 are plain registers), low-power cycling.
package final class SimulatedICM20948: SimulatedPart, SimulatedChip {
    /// The WHO_AM_I value it answers with.
    package let whoAmI: UInt8
    private static let map = ICM20948Map.registerMap
    private typealias B0 = ICM20948Bank0
    private typealias B2 = ICM20948Bank2

    /// Four banks of 128 registers; REG_BANK_SEL is `bankSelect`, not stored per bank.
    private var regs = [[UInt8]](repeating: [UInt8](repeating: 0, count: 128), count: 4)
    private var bankSelect: UInt8 = 0
    private var fifo = [UInt8](repeating: 0, count: ICM20948Scale.fifoBytes)
    private var fifoHead = 0
    private var fifoCount = 0
    private var latchedCount = 0
    private var frame = [UInt8](repeating: 0, count: 14)
    private var periodNs: UInt64 = 0
    private var dataReady = false
    /// Every REG_BANK_SEL write, for tests that follow the bank a driver leaves selected.
    package private(set) var bankSelectWrites = 0

    package init(clock: MonotonicClock, motion: MotionSource, imperfections: SensorImperfections = .ideal,
                whoAmI: UInt8 = ICM20948.deviceID) {
        self.whoAmI = whoAmI
        super.init(clock: clock, motion: motion, imperfections: imperfections, pinName: "simulated ICM-20948 INT1")
    }

    override func resetRegisters() {
        for bank in 0..<4 {
            for i in 0..<128 { regs[bank][i] = 0 }
            for (register, value) in Self.map.map(bank: bank).powerOnValues { regs[bank][Int(register)] = value }
        }
        regs[0][Int(B0.whoAmI)] = whoAmI
        bankSelect = 0
        fifoHead = 0; fifoCount = 0; latchedCount = 0
        periodNs = 0; clearTicks()
        dataReady = false
    }

    /// The bank REG_BANK_SEL selects.
    package var selectedBank: Int { Int(bankSelect >> ICM20948Map.bankShift) }

    private var awake: Bool { regs[0][Int(B0.powerManagement1)] & ICM20948Bits.sleep == 0 }
    private var gyroOn: Bool { regs[0][Int(B0.powerManagement2)] & 0x07 != 0x07 }
    private var accelOn: Bool { regs[0][Int(B0.powerManagement2)] & 0x38 != 0x38 }

    /// The output rate, Hz; nil while asleep or with both sensors disabled.
    package var outputRateHz: Double? {
        guard awake else { return nil }
        if gyroOn { return ICM20948Scale.baseRateHz / (1 + Double(regs[2][Int(B2.gyroSampleRateDivider)])) }
        guard accelOn else { return nil }
        let divider = Int(regs[2][Int(B2.accelSampleRateDivider1)] & 0x0F) << 8 | Int(regs[2][Int(B2.accelSampleRateDivider1) + 1])
        return ICM20948Scale.baseRateHz / (1 + Double(divider))
    }

    private var fifoOn: Bool { regs[0][Int(B0.userControl)] & ICM20948Bits.userFIFOEnable != 0 }
    private var fifoFrameBytes: Int {
        let enable = regs[0][Int(B0.fifoEnable2)]
        return (enable & 0x10 != 0 ? 6 : 0) + (enable & 0x08 != 0 ? 2 : 0) + (enable & 0x04 != 0 ? 2 : 0)
            + (enable & 0x02 != 0 ? 2 : 0) + (enable & 0x01 != 0 ? 2 : 0)
    }
    package var queuedFIFOFrames: Int {
        let bytes = fifoFrameBytes
        return fifoOn && bytes > 0 ? fifoCount / bytes : 0
    }

    // MARK: Bus side

    package func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        catchUp()
        let bank = selectedBank
        var r = register & 0x7F
        let port = bank == 0 && r == B0.fifoData
        for i in 0..<buffer.count {
            buffer[i] = load(bank, r)
            if !port { r = (r &+ 1) & 0x7F }
        }
        updateInterruptPin()
    }

    package func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        catchUp()
        var r = register & 0x7F
        for byte in bytes {
            store(selectedBank, r, byte)
            r = (r &+ 1) & 0x7F
        }
        updateInterruptPin()
    }

    private func load(_ bank: Int, _ r: UInt8) -> UInt8 {
        if r == B0.bankSelect { return bankSelect }
        guard bank == 0 else { return regs[bank][Int(r)] }
        switch r {
        case B0.intStatus1:
            defer { dataReady = false }
            return dataReady ? 0x01 : 0
        case B0.intStatus2:
            defer { regs[0][Int(r)] = 0 }
            return regs[0][Int(r)]
        case B0.fifoCountH:
            latchedCount = fifoCount
            return UInt8(latchedCount >> 8)
        case B0.fifoCountH + 1:
            return UInt8(latchedCount & 0xFF)
        case B0.fifoData:
            guard fifoCount > 0 else { return 0xFF }
            let byte = fifo[fifoHead]
            fifoHead = (fifoHead + 1) % fifo.count
            fifoCount -= 1
            return byte
        default:
            return regs[0][Int(r)]
        }
    }

    private func store(_ bank: Int, _ r: UInt8, _ value: UInt8) {
        if r == B0.bankSelect {
            bankSelect = value & 0x30
            bankSelectWrites += 1
            return
        }
        guard Self.map.map(bank: bank).isWritable(r) else { return }
        if bank == 0 && r == B0.powerManagement1 && value & ICM20948Bits.deviceReset != 0 {
            resetRegisters()
            return
        }
        if bank == 0 && r == B0.fifoReset && value & 0x1F != 0 {
            fifoHead = 0; fifoCount = 0
        }
        let old = samplePeriod()
        regs[bank][Int(r)] = value
        let new = samplePeriod()
        if new != old {
            if new == 0 { periodNs = 0 }
            else if old == 0 { restartTicks(); periodNs = new }
            else { reanchorTicks(oldPeriodNs: old); periodNs = new }
        }
    }

    private func samplePeriod() -> UInt64 {
        outputRateHz.map { UInt64(Nanoseconds.period(hz: $0).rounded()) } ?? 0
    }

    // MARK: Sampling

    override var samplePeriodNs: UInt64? { periodNs == 0 ? nil : periodNs }

    override func catchUp() {
        guard let ticks = takeDueTicks() else { return }
        let bytes = fifoFrameBytes
        if fifoOn && bytes > 0 {
            let capacityFrames = UInt64(ICM20948Scale.fifoBytes / bytes + 1)
            var k = ticks.firstOfNewest(capacityFrames)
            while k <= ticks.last {
                encode(atNs: ticks.time(k))
                pushFrame(bytes)
                k += 1
            }
        } else {
            encode(atNs: ticks.time(ticks.last))
            for i in 0..<14 { regs[0][Int(B0.accelXOutH) + i] = frame[i] }
        }
        dataReady = true
    }

    /// Appends this tick's enabled outputs, in register order; stream mode drops the oldest
    /// bytes to make room, snapshot mode drops the new ones; either flags the overflow.
    private func pushFrame(_ bytes: Int) {
        let enable = regs[0][Int(B0.fifoEnable2)]
        let snapshot = regs[0][Int(B0.fifoMode)] & 0x01 != 0
        if fifoCount + bytes > fifo.count {
            regs[0][Int(B0.intStatus2)] = ICM20948Bits.fifoOverflowMask
            if snapshot { return }
            let drop = fifoCount + bytes - fifo.count
            fifoHead = (fifoHead + drop) % fifo.count
            fifoCount -= drop
        }
        func append(_ range: Range<Int>) {
            for i in range {
                fifo[(fifoHead + fifoCount) % fifo.count] = frame[i]
                fifoCount += 1
            }
        }
        if enable & 0x10 != 0 { append(0..<6) }
        if enable & 0x02 != 0 { append(6..<8) }
        if enable & 0x04 != 0 { append(8..<10) }
        if enable & 0x08 != 0 { append(10..<12) }
        if enable & 0x01 != 0 { append(12..<14) }
    }

    /// The sample at `t` into `frame`: accel, gyro, temperature, big-endian.
    private func encode(atNs t: UInt64) {
        let seconds = motionSeconds(t)
        let state = motion.state(at: seconds)
        let dieC = imperfections.dieTempC(ambientC: state.tempC, secondsSincePowerOn: seconds)
        let accelConfig = regs[2][Int(B2.accelConfig)], gyroConfig = regs[2][Int(B2.gyroConfig1)]
        let accelBandwidth = accelConfig & 1 != 0 ? ICM20948Scale.accelBandwidthHz[Swift.min(Int(accelConfig >> 3 & 7), 6)] : 1209
        let gyroBandwidth = gyroConfig & 1 != 0 ? ICM20948Scale.gyroBandwidthHz[Swift.min(Int(gyroConfig >> 3 & 7), 6)] : 12106
        let a = imperfections.measuredAccel(state.accelG, tempC: dieC, bandwidthHz: accelBandwidth, index: t / 1000)
        let g = imperfections.measuredGyro(state.gyroDps, tempC: dieC, bandwidthHz: gyroBandwidth, index: t / 1000)
        let accelLSB = ICM20948Scale.accelLSBPerG[Int(accelConfig >> 1 & 3)]
        let gyroLSB = ICM20948Scale.gyroLSBPerDps[Int(gyroConfig >> 1 & 3)]
        for axis in 0..<3 {
            put(accelOn ? a[axis] * accelLSB : 0, at: 2 * axis)
            put(gyroOn ? g[axis] * gyroLSB : 0, at: 6 + 2 * axis)
        }
        put((dieC - ICM20948Scale.temperatureOffsetC) * ICM20948Scale.temperatureLSBPerC, at: 12)
    }

    private func put(_ digits: Double, at o: Int) {
        let word = UInt16(bitPattern: Int16(Swift.max(-32768, Swift.min(32767, digits.rounded()))))
        frame[o] = UInt8(word >> 8)
        frame[o + 1] = UInt8(word & 0xFF)
    }

    /// INT1: RAW_DATA_0_RDY when INT_ENABLE_1 routes it; INT1_ACTL makes it active low.
    override func updateInterruptPin() {
        let active = regs[0][Int(B0.intEnable1)] & 0x01 != 0 && dataReady
        interruptPin.drive(high: active != (regs[0][Int(B0.intPinConfig)] & 0x80 != 0))
    }
}

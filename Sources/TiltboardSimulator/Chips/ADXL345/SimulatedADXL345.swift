import TiltboardCore
import TiltboardDrivers

/// An ADXL345 as its register map behaves (ADXL345 data sheet rev E).
///
/// Powers up in standby (no conversions until POWER_CTL.Measure). While measuring it samples at
/// the BW_RATE output rate from the moment Measure was set; each bus transaction first replays
/// the ticks since the previous one, so results match a free-running part at
/// `clock.nowNanoseconds()`. In FIFO, stream and trigger mode the data registers present the
/// oldest unread entry and every transaction touching DATAX0…DATAZ1 pops one; FIFO_STATUS counts
/// the unread entries (0–32). While the FIFO is full one more sample waits at the output filter
/// and moves in when an entry is read, so 33 samples can be read from a full FIFO (DS Register
/// 0x39: "a maximum of 33 entries available at any given time"); FIFO mode keeps the first 33,
/// stream mode the newest 33. Trigger mode behaves as stream (no trigger events are generated).
///
/// Activity detection (data sheet rev E: THRESH_ACT, ACT_INACT_CTL, INT_ENABLE; simplified): with Activity enabled in INT_ENABLE,
/// each sample tick compares the output acceleration of every axis ACT_INACT_CTL enables with
/// THRESH_ACT × 62.5 mg — ac-coupled, against the first sample after detection was (re)enabled
/// or ACT_INACT_CTL written; dc-coupled, against zero — and latches Activity in INT_SOURCE (and
/// the axes in ACT_TAP_STATUS) until INT_SOURCE is read. `interruptPin` is INT1: high while an
/// event enabled in INT_ENABLE and mapped to INT1 is set (low with INT_INVERT).
/// Not modelled: tap, inactivity, free-fall, Link, Sleep/AUTO_SLEEP, INT2, self-test.
package final class SimulatedADXL345: SimulatedPart, SimulatedChip {
    /// Register addresses the simulation gives meaning to (data sheet rev E, Table 19).
    enum Reg {
        static let devid: UInt8 = 0x00
        static let ofsx: UInt8 = 0x1E
        static let threshAct: UInt8 = 0x24
        static let actInactCtl: UInt8 = 0x27
        static let actTapStatus: UInt8 = 0x2B
        static let intEnable: UInt8 = 0x2E
        static let intMap: UInt8 = 0x2F
        static let bwRate: UInt8 = 0x2C
        static let powerControl: UInt8 = 0x2D
        static let intSource: UInt8 = 0x30
        static let dataFormat: UInt8 = 0x31
        static let dataX0: UInt8 = 0x32
        static let dataZ1: UInt8 = 0x37
        static let fifoControl: UInt8 = 0x38
        static let fifoStatus: UInt8 = 0x39
    }

    /// The DEVID value it answers with.
    package let deviceID: UInt8
    /// The part: the driver's description, whose register map this simulation follows.
    static let variant = ADXL345Variant()
    /// FIFO depth in samples (DS "FIFO"; the driver's `FIFOGeometry`); one more can wait at the
    /// output filter (DS Register 0x39).
    package static let fifoDepth = variant.fifo!.capacityBytes / variant.fifo!.frameBytes

    private var regs = [UInt8](repeating: 0, count: 256)
    /// The FIFO's 32 entries, then the slot of the sample waiting at the output filter.
    private var fifo = [UInt8](repeating: 0, count: (SimulatedADXL345.fifoDepth + 1) * 6)
    private var fifoHead = 0
    private var fifoCount = 0
    /// A sample waits at the output filter (only while the FIFO is full).
    private var waiting = false
    private var dataReady = false
    private var overrun = false
    private var measuring = false

    /// The ac-coupled activity reference, in g; nil until the first sample after (re)enabling.
    private var activityReference: Vector3?

    /// A part in standby answering DEVID `deviceID` (another value than 0xE5 only to exercise
    /// how drivers reject a wrong chip).
    package init(clock: MonotonicClock, motion: MotionSource, imperfections: SensorImperfections = .ideal,
                deviceID: UInt8 = ADXL345.deviceID) {
        self.deviceID = deviceID
        super.init(clock: clock, motion: motion, imperfections: imperfections, pinName: "simulated ADXL345 INT1")
    }

    /// The register map's power-on values (INT_SOURCE's Watermark is derived live anyway), an
    /// empty FIFO, standby.
    override func resetRegisters() {
        for i in regs.indices { regs[i] = 0 }
        for (register, value) in Self.variant.registerMap.powerOnValues { regs[Int(register)] = value }
        regs[Int(Reg.devid)] = deviceID
        fifoHead = 0; fifoCount = 0; waiting = false
        dataReady = false; overrun = false; measuring = false
        clearTicks()
        activityReference = nil
    }

    /// True while Measure is clear.
    package var isInStandby: Bool { !measuring }

    /// The output data rate selected by BW_RATE, in Hz: 3200 / 2^(15 − code).
    package var outputRateHz: Double { Nanoseconds.rateHz(period: ratePeriodNs) }

    /// Unread samples as of the last bus transaction: the FIFO's entries and the one waiting.
    package var fifoEntries: Int { fifoCount + (waiting ? 1 : 0) }
    package var queuedFIFOFrames: Int { fifoEntries }

    // MARK: Bus side

    package func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        catchUp()
        var r = register
        var popped = false
        for i in 0..<buffer.count {
            if r >= Reg.dataX0 && r <= Reg.dataZ1 && !popped {
                // Any read of the data registers, even one byte, consumes one sample.
                consumeSample()
                popped = true
            }
            buffer[i] = load(r)
            r &+= 1
        }
        updateInterruptPin()
    }

    package func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        catchUp()
        var r = register
        for byte in bytes {
            store(r, byte)
            r &+= 1
        }
        updateInterruptPin()
    }

    private var mode: UInt8 { regs[Int(Reg.fifoControl)] >> 6 }

    private var watermark: Bool {
        let samples = Int(regs[Int(Reg.fifoControl)] & 0x1F)
        return samples == 0 || (mode != 0 && fifoCount >= samples)
    }

    /// INT_SOURCE as read: live DATA_READY, Watermark and Overrun over the latched events.
    private var interruptSource: UInt8 {
        (dataReady ? 0x80 : 0) | (regs[Int(Reg.intSource)] & 0x7C) | (watermark ? 0x02 : 0) | (overrun ? 0x01 : 0)
    }

    private func load(_ r: UInt8) -> UInt8 {
        switch r {
        case Reg.intSource:
            let v = interruptSource
            regs[Int(r)] = 0  // latched event bits clear on reading INT_SOURCE
            return v
        case Reg.fifoStatus:
            return UInt8(fifoCount & 0x3F)
        default:
            return regs[Int(r)]
        }
    }

    private func store(_ r: UInt8, _ value: UInt8) {
        guard Self.variant.registerMap.isWritable(r) else { return }  // read-only, reserved or absent
        switch r {
        case Reg.bwRate:
            reanchorTicks(oldPeriodNs: ratePeriodNs)
            regs[Int(r)] = value & 0x1F
        case Reg.powerControl:
            regs[Int(r)] = value & 0x3F
            let shouldMeasure = value & 0x08 != 0 && value & 0x04 == 0
            if shouldMeasure && !measuring {
                restartTicks()
                activityReference = nil
            }
            measuring = shouldMeasure
        case Reg.intEnable:
            if value & 0x10 != 0 && regs[Int(r)] & 0x10 == 0 { activityReference = nil }
            regs[Int(r)] = value
        case Reg.actInactCtl:
            activityReference = nil
            regs[Int(r)] = value
        case Reg.fifoControl:
            regs[Int(r)] = value
            if value >> 6 == 0 {
                fifoHead = 0; fifoCount = 0; waiting = false  // bypass empties the FIFO
            }
        default:
            regs[Int(r)] = value
        }
    }

    // MARK: Sampling

    /// The BW_RATE output rate's period, in ns: 3200 / 2^(15 − code) Hz.
    private var ratePeriodNs: UInt64 {
        312_500 << UInt64(15 - Int(regs[Int(Reg.bwRate)] & 0x0F))
    }

    override var samplePeriodNs: UInt64? { measuring ? ratePeriodNs : nil }

    override func catchUp() {
        guard let ticks = takeDueTicks() else { return }
        let newTicks = ticks.count
        if regs[Int(Reg.intEnable)] & 0x10 != 0 && regs[Int(Reg.actInactCtl)] & 0x70 != 0 {
            detectActivity(ticks)
        }
        switch mode {
        case 0:
            if dataReady || newTicks > 1 { overrun = true }
            storeSample(atNs: ticks.time(ticks.last), into: Int(Reg.dataX0), ofRegisters: true)
            dataReady = true
        case 1:
            // FIFO mode: collects until full (and one waiting), then drops new samples.
            let room = UInt64(Self.fifoDepth - fifoCount + (waiting ? 0 : 1))
            if newTicks > room { overrun = true }
            var k = ticks.first
            while k < ticks.first + min(newTicks, room) {
                pushSample(atNs: ticks.time(k))
                k += 1
            }
        default:
            // Stream (and trigger, without trigger events): keeps the newest 33.
            if UInt64(fifoEntries) + newTicks > UInt64(Self.fifoDepth + 1) { overrun = true }
            var k = ticks.firstOfNewest(UInt64(Self.fifoDepth + 1))
            while k <= ticks.last {
                pushSample(atNs: ticks.time(k))
                k += 1
            }
        }
        if mode != 0 { dataReady = fifoCount > 0 }
    }

    /// Adds a sample: into the FIFO while it has room, else to the output filter; a sample
    /// already waiting there moves into the FIFO first, over its oldest entry (stream mode).
    private func pushSample(atNs t: UInt64) {
        if fifoCount < Self.fifoDepth {
            storeSample(atNs: t, into: ((fifoHead + fifoCount) % Self.fifoDepth) * 6, ofRegisters: false)
            fifoCount += 1
            return
        }
        if waiting {
            fifoHead = (fifoHead + 1) % Self.fifoDepth
            fifoCount -= 1
            moveWaitingIntoFIFO()
        }
        storeSample(atNs: t, into: Self.waitingSlot, ofRegisters: false)
        waiting = true
    }

    private static let waitingSlot = fifoDepth * 6

    private func moveWaitingIntoFIFO() {
        let tail = ((fifoHead + fifoCount) % Self.fifoDepth) * 6
        for i in 0..<6 { fifo[tail + i] = fifo[Self.waitingSlot + i] }
        fifoCount += 1
        waiting = false
    }

    /// Moves the oldest FIFO entry to the data registers and clears the data-read flags.
    private func consumeSample() {
        if mode != 0 && fifoCount > 0 {
            let base = fifoHead * 6
            for i in 0..<6 { regs[Int(Reg.dataX0) + i] = fifo[base + i] }
            fifoHead = (fifoHead + 1) % Self.fifoDepth
            fifoCount -= 1
            if waiting { moveWaitingIntoFIFO() }
        }
        overrun = false
        dataReady = mode != 0 && fifoCount > 0
    }

    /// The output acceleration at `t` in g, offsets applied, before conversion to a word.
    private func outputG(atNs t: UInt64) -> Vector3 {
        let state = motion.state(at: motionSeconds(t))
        let dieC = imperfections.dieTempC(ambientC: state.tempC, secondsSincePowerOn: motionSeconds(t))
        var a = imperfections.measuredAccel(state.accelG, tempC: dieC, bandwidthHz: outputRateHz / 2, index: t / 1000)
        for axis in 0..<3 {
            // OFSx: 15.6 mg/LSB, i.e. four full-resolution LSBs, added to the output.
            a[axis] += Double(Int8(bitPattern: regs[Int(Reg.ofsx) + axis])) * 4 / 256
        }
        return a
    }

    /// Converts the sample at `t` with the current DATA_FORMAT and writes its six bytes.
    private func storeSample(atNs t: UInt64, into offset: Int, ofRegisters: Bool) {
        let a = outputG(atNs: t)
        for axis in 0..<3 {
            let bits = encode(a[axis])
            if ofRegisters {
                regs[offset + 2 * axis] = UInt8(bits & 0xFF)
                regs[offset + 2 * axis + 1] = UInt8(bits >> 8)
            } else {
                fifo[offset + 2 * axis] = UInt8(bits & 0xFF)
                fifo[offset + 2 * axis + 1] = UInt8(bits >> 8)
            }
        }
    }

    /// One axis in g → the 16-bit register word for the current range, resolution and justification.
    private func encode(_ g: Double) -> UInt16 {
        let format = regs[Int(Reg.dataFormat)]
        let range = Int(format & 0x03)
        let fullRes = format & 0x08 != 0
        let bits = fullRes ? 10 + range : 10
        let lsbPerG = fullRes ? 256.0 : Double(256 >> range)
        let limit = 1 << (bits - 1)
        var v = Int(max(-Double(limit), min(Double(limit - 1), (g * lsbPerG).rounded())))
        // At 1600 and 3200 Hz the LSB reads 0 in full resolution and in ±2 g 10-bit mode.
        if regs[Int(Reg.bwRate)] & 0x0F >= 0x0E && (fullRes || range == 0) { v &= ~1 }
        if format & 0x04 != 0 { v <<= (16 - bits) }
        return UInt16(truncatingIfNeeded: v)
    }

    // MARK: Interrupts

    /// Runs activity detection over the due ticks (only the newest after a long gap).
    private func detectActivity(_ ticks: DueTicks) {
        let control = regs[Int(Reg.actInactCtl)]
        let ac = control & 0x80 != 0
        let threshold = Double(regs[Int(Reg.threshAct)]) * 0.0625
        var k = ticks.firstOfNewest(Self.detectorReplayLimit)
        while k <= ticks.last {
            let a = outputG(atNs: ticks.time(k))
            k += 1
            if ac && activityReference == nil {
                activityReference = a
                continue
            }
            let d = ac ? a - (activityReference ?? a) : a
            var axes: UInt8 = 0
            if control & 0x40 != 0 && Swift.abs(d.x) > threshold { axes |= 0x40 }
            if control & 0x20 != 0 && Swift.abs(d.y) > threshold { axes |= 0x20 }
            if control & 0x10 != 0 && Swift.abs(d.z) > threshold { axes |= 0x10 }
            if axes != 0 {
                regs[Int(Reg.intSource)] |= 0x10
                regs[Int(Reg.actTapStatus)] = (regs[Int(Reg.actTapStatus)] & 0x0F) | axes
            }
        }
    }

    /// INT1: any event enabled in INT_ENABLE and mapped to INT1, inverted by INT_INVERT.
    override func updateInterruptPin() {
        let active = interruptSource & regs[Int(Reg.intEnable)] & ~regs[Int(Reg.intMap)] != 0
        interruptPin.drive(high: active != (regs[Int(Reg.dataFormat)] & 0x20 != 0))
    }
}

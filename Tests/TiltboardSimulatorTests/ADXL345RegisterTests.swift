import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// ADXL345 register constants, declared here independently of any driver (data sheet rev E).
enum ADXL {
    static let address: UInt8 = 0x53
    static let DEVID: UInt8 = 0x00
    static let OFSX: UInt8 = 0x1E
    static let OFSZ: UInt8 = 0x20
    static let BW_RATE: UInt8 = 0x2C
    static let POWER_CTL: UInt8 = 0x2D
    static let INT_ENABLE: UInt8 = 0x2E
    static let INT_SOURCE: UInt8 = 0x30
    static let DATA_FORMAT: UInt8 = 0x31
    static let DATAX0: UInt8 = 0x32
    static let DATAZ0: UInt8 = 0x36
    static let FIFO_CTL: UInt8 = 0x38
    static let FIFO_STATUS: UInt8 = 0x39
    static let measure: UInt8 = 0x08
    static let dataReady: UInt8 = 0x80
    static let watermark: UInt8 = 0x02
    static let overrun: UInt8 = 0x01
}

final class ADXL345RegisterTests: XCTestCase {
    var clock = ManualClock()
    var bus = SimulatedI2CBus()
    var chip: SimulatedADXL345!

    func make(motion: MotionSource = Constant(accel: .unitZ), imperfections: SensorImperfections = .ideal) {
        clock = ManualClock()
        bus = SimulatedI2CBus()
        chip = SimulatedADXL345(clock: clock, motion: motion, imperfections: imperfections)
        bus.attach(chip, at: ADXL.address)
    }

    func r(_ reg: UInt8) throws -> UInt8 { try bus.readByte(address: ADXL.address, register: reg) }
    func r(_ reg: UInt8, _ n: Int) throws -> [UInt8] { try bus.read(address: ADXL.address, register: reg, count: n) }
    func w(_ reg: UInt8, _ v: UInt8) throws { try bus.writeByte(address: ADXL.address, register: reg, value: v) }
    func xyz() throws -> [Int] { let b = try r(ADXL.DATAX0, 6); return [int16LE(b, 0), int16LE(b, 2), int16LE(b, 4)] }

    func testResetValues() throws {
        make()
        XCTAssertEqual(try r(ADXL.DEVID), 0xE5)
        let regs = try r(0x1D, 0x39 - 0x1D + 1)
        for (i, v) in regs.enumerated() {
            let reg = 0x1D + i
            let expected: UInt8 = reg == 0x2C ? 0x0A : (reg == 0x30 ? 0x02 : 0x00)
            XCTAssertEqual(v, expected, "register \(UInt8(reg).hex)")
        }
        XCTAssertEqual(chip.outputRateHz, 100, accuracy: 1e-9)
    }

    func testRateChangeWhileMeasuringCountsFromTheLastTick() throws {
        make()
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 105)
        try w(ADXL.BW_RATE, 0x09)  // 100 → 50 Hz after ticks at 10…100 ms
        XCTAssertEqual(chip.samplesTaken, 10)
        XCTAssertEqual(chip.nextSampleNanoseconds(after: clock.nowNanoseconds()), 120_000_000)
        clock.advance(ms: 20)  // 125 ms: one 50 Hz tick since 100 ms, at 120 ms
        _ = try r(ADXL.INT_SOURCE)
        XCTAssertEqual(chip.samplesTaken, 11)
    }

    func testDevidIsReadOnly() throws {
        make()
        try w(ADXL.DEVID, 0x12)
        XCTAssertEqual(try r(ADXL.DEVID), 0xE5)
    }

    func testStandbyGivesNoData() throws {
        make()
        try w(ADXL.FIFO_CTL, 0x80)
        clock.advance(ms: 500)
        XCTAssertEqual(try r(ADXL.DATAX0, 6), [0, 0, 0, 0, 0, 0])
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 0)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.watermark, "no DATA_READY in standby")
    }

    func testMeasureGivesLittleEndianDataAndDataReady() throws {
        make(motion: Constant(accel: Vector3(0.5, -1, 1)))
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 9.9)
        XCTAssertEqual(try r(ADXL.INT_SOURCE) & ADXL.dataReady, 0, "first sample after one 10 ms period")
        clock.advance(ms: 0.2)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.dataReady | ADXL.watermark)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.dataReady | ADXL.watermark, "reading INT_SOURCE keeps DATA_READY")
        XCTAssertEqual(try r(ADXL.DATAX0, 6), [0x80, 0x00, 0x00, 0xFF, 0x00, 0x01])  // 128, −256, 256
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.watermark, "the data read cleared DATA_READY")
    }

    func testScalingEveryRangeResolutionAndJustification() throws {
        let input = Vector3(0.37, -1.21, 1.9)
        for range in 0..<4 {
            for fullRes in [false, true] {
                for left in [false, true] {
                    make(motion: Constant(accel: input))
                    let format = UInt8(range) | (fullRes ? 0x08 : 0) | (left ? 0x04 : 0)
                    try w(ADXL.DATA_FORMAT, format)
                    try w(ADXL.POWER_CTL, ADXL.measure)
                    clock.advance(ms: 10.5)
                    let bits = fullRes ? 10 + range : 10
                    let lsbPerG = fullRes ? 256.0 : 256.0 / Double(1 << range)
                    let limit = Double(1 << (bits - 1))
                    for (axis, raw) in try xyz().enumerated() {
                        let value = left ? raw >> (16 - bits) : raw
                        if left { XCTAssertEqual(raw & ((1 << (16 - bits)) - 1), 0, "left-justified low bits are 0") }
                        let expected = min(max(input[axis] * lsbPerG, -limit), limit - 1)
                        XCTAssertEqual(Double(value), expected, accuracy: 1,
                                       "format \(format.hex) axis \(axis)")
                    }
                }
            }
        }
    }

    func testLeftJustifyLSBPositions() throws {
        // One LSB of input lands at DATAx0 bit 6 (10-bit), 5 (full-res ±4 g), 4 (±8 g), 3 (±16 g).
        for (format, bit) in [(0x04, 6), (0x0C, 6), (0x0D, 5), (0x0E, 4), (0x0F, 3)] as [(UInt8, Int)] {
            let lsbPerG = format & 0x08 != 0 ? 256.0 : 256.0
            make(motion: Constant(accel: Vector3(1 / lsbPerG, 0, 0)))
            try w(ADXL.DATA_FORMAT, format)
            try w(ADXL.POWER_CTL, ADXL.measure)
            clock.advance(ms: 10.5)
            XCTAssertEqual(try r(ADXL.DATAX0, 2), [UInt8(1 << bit), 0], "DATA_FORMAT \(format.hex)")
        }
    }

    func testClipsInsteadOfWrapping() throws {
        for format: UInt8 in [0x00, 0x03, 0x0B] {
            make(motion: Constant(accel: Vector3(40, -40, 1)))
            try w(ADXL.DATA_FORMAT, format)
            try w(ADXL.POWER_CTL, ADXL.measure)
            clock.advance(ms: 10.5)
            let v = try xyz()
            let bits = format & 0x08 != 0 ? 13 : 10
            XCTAssertEqual(v[0], (1 << (bits - 1)) - 1)
            XCTAssertEqual(v[1], -(1 << (bits - 1)))
        }
    }

    func testHighRatesZeroTheLSB() throws {
        make(motion: Constant(accel: Vector3(3.0 / 256, 0, 1)))
        try w(ADXL.DATA_FORMAT, 0x08)
        try w(ADXL.BW_RATE, 0x0F)
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 1)
        XCTAssertEqual(try xyz()[0], 2)
        try w(ADXL.BW_RATE, 0x0D)  // 800 Hz keeps the LSB
        clock.advance(ms: 2)
        XCTAssertEqual(try xyz()[0], 3)
    }

    func testOffsetRegistersAdd15Point6mgPerLSB() throws {
        make(motion: Constant(accel: Vector3(0, 0, 1)))
        try bus.write(address: ADXL.address, register: ADXL.OFSX, bytes: [10, 0, 0xFC])  // +10, 0, −4
        try w(ADXL.DATA_FORMAT, 0x08)
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 10.5)
        XCTAssertEqual(try xyz(), [40, 0, 256 - 16])
        try w(ADXL.DATA_FORMAT, 0x03)  // 10-bit ±16 g: 32 LSB/g
        clock.advance(ms: 10)
        XCTAssertEqual(try xyz(), [5, 0, 30])
    }

    func testOutputRatesFromBWRate() throws {
        for (code, ms, entries) in [(0x0A, 100.0, 10), (0x07, 1000.0, 12), (0x0C, 50.0, 20), (0x0F, 5.0, 16), (0x00, 30_000.0, 2)] {
            make()
            try w(ADXL.BW_RATE, UInt8(code))
            try w(ADXL.FIFO_CTL, 0x80)  // stream
            try w(ADXL.POWER_CTL, ADXL.measure)
            clock.advance(ms: ms + 0.01)
            XCTAssertEqual(try r(ADXL.FIFO_STATUS), UInt8(entries), "BW_RATE \(UInt8(code).hex)")
            XCTAssertEqual(chip.outputRateHz, 3200 / Double(1 << (15 - code)), accuracy: 1e-9)
        }
    }

    func testFIFOModeCollectsFirst33AndPopsOnAnyDataRead() throws {
        make(motion: Ramp())
        try w(ADXL.DATA_FORMAT, 0x0B)         // full-res ±16 g: x = t · 256
        try w(ADXL.FIFO_CTL, 0x40 | 16)       // FIFO mode, watermark 16
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 100.5)
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 10)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.dataReady, "no watermark below 16 entries")
        clock.advance(ms: 300)
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 32)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.dataReady | ADXL.watermark | ADXL.overrun)
        // Oldest first; a two-byte read pops a whole entry, and the 33rd sample, waiting at the
        // output filter, moves in: FIFO_STATUS still counts 32.
        XCTAssertEqual(int16LE(try r(ADXL.DATAX0, 2), 0), Int((0.01 * 256).rounded()))
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 32)
        XCTAssertEqual(try xyz()[0], Int((0.02 * 256).rounded()))
        XCTAssertEqual(try r(ADXL.DATAZ0, 1), [UInt8(Int((1.03 * 256).rounded()) & 0xFF)], "one-byte read pops too")
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 30)
        XCTAssertEqual(try r(ADXL.INT_SOURCE) & ADXL.overrun, 0, "overrun cleared by the data reads")
        for _ in 0..<14 { _ = try xyz() }
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 16)
        XCTAssertEqual(try r(ADXL.INT_SOURCE) & ADXL.watermark, ADXL.watermark)
        _ = try xyz()
        XCTAssertEqual(try r(ADXL.INT_SOURCE) & ADXL.watermark, 0)
        for _ in 0..<14 { _ = try xyz() }
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 1)
        XCTAssertEqual(try xyz()[0], Int((0.33 * 256).rounded()), "the 33rd sample; later ones were dropped")
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 0)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), 0, "empty: no DATA_READY")
    }

    func testStreamModeKeepsNewest33() throws {
        make(motion: Ramp())
        try w(ADXL.DATA_FORMAT, 0x0B)
        try w(ADXL.FIFO_CTL, 0x80 | 31)
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 1000.5)
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 32)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.dataReady | ADXL.watermark | ADXL.overrun)
        XCTAssertEqual(try xyz()[0], Int((0.68 * 256).rounded()), "ticks 68…100 survive")
        XCTAssertEqual(try r(ADXL.INT_SOURCE) & ADXL.overrun, 0)
        for tick in 69...100 { XCTAssertEqual(try xyz()[0], Int((Double(tick) / 100 * 256).rounded())) }
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 0)
    }

    func testWatermarkSetImmediatelyWhenSamplesIsZero() throws {
        make()
        for mode: UInt8 in [0x00, 0x40, 0x80, 0xC0] {
            try w(ADXL.FIFO_CTL, mode)
            XCTAssertEqual(try r(ADXL.INT_SOURCE) & ADXL.watermark, ADXL.watermark, "mode \(mode.hex)")
        }
        try w(ADXL.FIFO_CTL, 0x80 | 4)
        XCTAssertEqual(try r(ADXL.INT_SOURCE) & ADXL.watermark, 0)
    }

    func testBypassOverrunWhenUnreadDataIsReplaced() throws {
        make()
        try w(ADXL.FIFO_CTL, 0x01)
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 10.5)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.dataReady)
        clock.advance(ms: 10)
        XCTAssertEqual(try r(ADXL.INT_SOURCE), ADXL.dataReady | ADXL.overrun)
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 0, "bypass keeps the FIFO empty")
        _ = try xyz()
        XCTAssertEqual(try r(ADXL.INT_SOURCE), 0)
    }

    func testConfigureSwitchesOffTheInterruptsAnEarlierSessionArmed() throws {
        // The part has no soft reset: what one session armed survives into the next. A new
        // driver's configure must leave nothing enabled, mapped or detecting.
        make(motion: Ramp())
        let earlier = try ADXL345(bus: bus, address: ADXL.address, clock: clock)
        try earlier.configure(SensorConfiguration())
        try earlier.armMotionInterrupt(thresholdG: 0.1)
        XCTAssertEqual(try r(ADXL.INT_ENABLE), 0x10)
        XCTAssertEqual(try r(0x27), 0xF0, "ACT_INACT_CTL: ac-coupled activity on X, Y, Z")
        clock.advance(ms: 500)  // the ramp moves 0.5 g: activity
        chip.serviceInterruptPin()
        XCTAssertTrue(chip.interruptPin.isHigh)

        let next = try ADXL345(bus: bus, address: ADXL.address, clock: clock)
        try next.configure(SensorConfiguration())
        XCTAssertEqual(try r(ADXL.INT_ENABLE, 2), [0x00, 0x00], "INT_ENABLE, INT_MAP")
        XCTAssertEqual(try r(0x27), 0x00, "ACT_INACT_CTL")
        clock.advance(ms: 500)
        _ = try r(ADXL.INT_SOURCE)
        clock.advance(ms: 500)
        chip.serviceInterruptPin()
        XCTAssertFalse(chip.interruptPin.isHigh, "nothing drives INT1 any more")
        XCTAssertEqual(try r(ADXL.INT_SOURCE) & 0x10, 0, "activity detection is off")
    }

    func testBypassEmptiesAndStandbyKeepsTheFIFO() throws {
        make()
        try w(ADXL.FIFO_CTL, 0x80)
        try w(ADXL.POWER_CTL, ADXL.measure)
        clock.advance(ms: 50.5)
        try w(ADXL.POWER_CTL, 0)
        clock.advance(ms: 500)
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 5, "standby keeps the entries and adds none")
        try w(ADXL.FIFO_CTL, 0x00)
        XCTAssertEqual(try r(ADXL.FIFO_STATUS), 0)
    }
}

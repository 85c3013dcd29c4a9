import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// LIS3DH sub-addresses and bits, declared here independently of the drivers' map (ST data
/// sheet DocID17530 Rev 2: Table 17, §5.1, §6.1.1, §8). `inc` is the auto-increment bit.
private enum LIS {
    static let address: UInt8 = 0x18
    static let inc: UInt8 = 0x80
    static let WHO_AM_I: UInt8 = 0x0F
    static let CTRL_REG0: UInt8 = 0x1E
    static let CTRL_REG1: UInt8 = 0x20
    static let CTRL_REG2: UInt8 = 0x21
    static let CTRL_REG3: UInt8 = 0x22
    static let CTRL_REG4: UInt8 = 0x23
    static let CTRL_REG5: UInt8 = 0x24
    static let REFERENCE: UInt8 = 0x26
    static let STATUS_REG: UInt8 = 0x27
    static let OUT_X_L: UInt8 = 0x28
    static let OUT_X_H: UInt8 = 0x29
    static let FIFO_CTRL_REG: UInt8 = 0x2E
    static let FIFO_SRC_REG: UInt8 = 0x2F
    static let INT1_CFG: UInt8 = 0x30
    static let INT1_SRC: UInt8 = 0x31
    static let INT1_THS: UInt8 = 0x32
}

final class LIS3DHRegisterTests: XCTestCase {
    var clock = ManualClock()
    var bus = SimulatedI2CBus()
    var chip: SimulatedLIS3DH!

    func make(motion: MotionSource = Constant(accel: .unitZ)) {
        clock = ManualClock()
        bus = SimulatedI2CBus()
        chip = SimulatedLIS3DH(clock: clock, motion: motion)
        bus.attach(chip, at: LIS.address)
    }

    func r(_ sub: UInt8) throws -> UInt8 { try bus.readByte(address: LIS.address, register: sub) }
    func r(_ sub: UInt8, _ n: Int) throws -> [UInt8] { try bus.read(address: LIS.address, register: sub, count: n) }
    func w(_ sub: UInt8, _ v: UInt8) throws { try bus.writeByte(address: LIS.address, register: sub, value: v) }
    func w(_ sub: UInt8, _ bytes: [UInt8]) throws { try bus.write(address: LIS.address, register: sub, bytes: bytes) }
    /// The three left-justified words of one 6-byte burst.
    func words() throws -> [Int] { let b = try r(LIS.OUT_X_L | LIS.inc, 6); return [int16LE(b, 0), int16LE(b, 2), int16LE(b, 4)] }

    func testPowerOnValuesAndPowerDown() throws {
        make()
        XCTAssertEqual(try r(LIS.WHO_AM_I), 0x33)
        let block = try r(LIS.CTRL_REG0 | LIS.inc, 0x2F - 0x1E + 1)
        for (i, v) in block.enumerated() {
            let reg = 0x1E + i
            let expected: UInt8 = reg == 0x1E ? 0x10 : reg == 0x20 ? 0x07 : reg == 0x2F ? 0x20 : 0x00  // FIFO empty
            XCTAssertEqual(v, expected, "register \(UInt8(reg).hex)")
        }
        clock.advance(ms: 100)
        XCTAssertEqual(try words(), [0, 0, 0], "power-down: no data")
        XCTAssertEqual(chip.samplesTaken, 0)
    }

    func testBurstsIncrementOnlyWithBit7() throws {
        make()
        XCTAssertEqual(try r(LIS.WHO_AM_I, 2), [0x33, 0x33], "no bit 7: the same register twice")
        XCTAssertEqual(try r(LIS.WHO_AM_I | LIS.inc, 2), [0x33, 0x00], "bit 7: WHO_AM_I then 0x10")
        try w(LIS.CTRL_REG2, [0x11, 0x22])
        XCTAssertEqual(try r(LIS.CTRL_REG2 | LIS.inc, 2), [0x22, 0x00], "a write burst without bit 7 stays on one register")
        try w(LIS.CTRL_REG2 | LIS.inc, [0x11, 0x22])
        XCTAssertEqual(try r(LIS.CTRL_REG2 | LIS.inc, 2), [0x11, 0x22])
        try w(LIS.WHO_AM_I, 0x12)
        XCTAssertEqual(try r(LIS.WHO_AM_I), 0x33, "read-only")
    }

    func testHighResolutionNormalAndLowPowerWords() throws {
        make(motion: Constant(accel: Vector3(0.5, -0.25, 1)))
        // 100 Hz, high resolution, BDU, ±2 g: 1 mg per 12-bit digit, shifted left by 4.
        try w(LIS.CTRL_REG4, 0x88)
        try w(LIS.CTRL_REG1, 0x57)
        clock.advance(ms: 10.5)
        XCTAssertEqual(try words(), [500 << 4, -250 << 4, 1000 << 4])
        // Normal mode (HR clear), ±4 g: 8 mg per 10-bit digit, shifted by 6.
        try w(LIS.CTRL_REG4, 0x90)
        clock.advance(ms: 10)
        XCTAssertEqual(try words(), [Int((500 / 8.0).rounded()) << 6, Int((-250 / 8.0).rounded()) << 6, 125 << 6])
        // Low power at 5.376 kHz (code 9 with LPen), ±16 g: 192 mg per 8-bit digit.
        try w(LIS.CTRL_REG4, 0xB0)
        try w(LIS.CTRL_REG1, 0x9F)
        XCTAssertEqual(chip.outputRateHz, 5376)
        clock.advance(ms: 1)
        XCTAssertEqual(try words(), [3 << 8, -1 << 8, 5 << 8])
        // BLE: the high byte first.
        try w(LIS.CTRL_REG4, 0xF0)
        clock.advance(ms: 1)
        XCTAssertEqual(try r(LIS.OUT_X_L | LIS.inc, 2), [3, 0])
    }

    func testODRCodesByMode() throws {
        make()
        for (control1, rate) in [(UInt8(0x17), 1.0), (0x27, 10), (0x57, 100), (0x77, 400), (0x97, 1344), (0x8F, 1620), (0x9F, 5376)] {
            try w(LIS.CTRL_REG1, control1)
            XCTAssertEqual(chip.outputRateHz, rate, "CTRL_REG1 \(control1.hex)")
        }
        try w(LIS.CTRL_REG1, 0x87)  // code 8 exists in low-power mode only
        XCTAssertNil(chip.outputRateHz)
        let before = chip.samplesTaken
        clock.advance(ms: 100)
        _ = try r(LIS.STATUS_REG)
        XCTAssertEqual(chip.samplesTaken, before)
        try w(LIS.CTRL_REG1, 0x57)
        clock.advance(ms: 1000.5)
        _ = try r(LIS.STATUS_REG)
        XCTAssertEqual(chip.samplesTaken, before + 100)
    }

    func testBlockDataUpdateHoldsAPairUntilBothBytesAreRead() throws {
        // x = t g: every 10 ms tick changes X by 10 mg = 160 in the word (its high byte too).
        for bdu in [false, true] {
            make(motion: Ramp())
            try w(LIS.CTRL_REG4, bdu ? 0x88 : 0x08)
            try w(LIS.CTRL_REG1, 0x57)
            clock.advance(ms: 500.5)
            let low = try r(LIS.OUT_X_L)
            clock.advance(ms: 30)
            let high = try r(LIS.OUT_X_H)
            let word = Int(Int16(bitPattern: UInt16(high) << 8 | UInt16(low))) >> 4
            if bdu {
                XCTAssertEqual(word, 500, "BDU: low and high byte from the 0.50 s sample")
            } else {
                XCTAssertNotEqual(word, 500, "without BDU the high byte comes from a later sample")
                XCTAssertEqual(Int(high), (530 << 4) >> 8)
            }
            clock.advance(ms: 10)
            XCTAssertEqual(try words()[0] >> 4, 540, "once the pair was read, X follows again")
        }
    }

    func testStreamKeepsNewest32AndFIFOModeTheFirst32() throws {
        make(motion: Ramp())
        try w(LIS.CTRL_REG4, 0xB8)                // ±16 g, 12 mg per digit
        try w(LIS.CTRL_REG5, 0x40)                // FIFO_EN
        try w(LIS.FIFO_CTRL_REG, 0x80 | 10)       // stream, FTH 10
        try w(LIS.CTRL_REG1, 0x57)
        clock.advance(ms: 50.5)
        XCTAssertEqual(try r(LIS.FIFO_SRC_REG), 5, "5 samples, below the watermark")
        clock.advance(ms: 950)
        XCTAssertEqual(try r(LIS.FIFO_SRC_REG), 0x80 | 0x40 | 31, "WTM, OVRN_FIFO (32 held), FSS 31")
        // Oldest first: ticks 69…100 survive (x = 0.69 g → 57.5 digits of 12 mg).
        XCTAssertEqual(try words()[0] >> 4, Int((690 / 12.0).rounded()))
        XCTAssertEqual(try r(LIS.FIFO_SRC_REG), 0x80 | 31)
        for _ in 0..<30 { _ = try words() }
        XCTAssertEqual(try r(LIS.FIFO_SRC_REG), 1)
        XCTAssertEqual(try words()[0] >> 4, Int((1000 / 12.0).rounded()))
        XCTAssertEqual(try r(LIS.FIFO_SRC_REG), 0x20, "EMPTY")
        // Bypass empties it; FIFO mode keeps the first 32 after that.
        clock.advance(ms: 100)
        try w(LIS.FIFO_CTRL_REG, 0x00)
        XCTAssertEqual(try r(LIS.FIFO_SRC_REG), 0x20)
        try w(LIS.FIFO_CTRL_REG, 0x40)
        clock.advance(ms: 500)
        XCTAssertEqual(try r(LIS.FIFO_SRC_REG) & 0x40, 0x40)
        XCTAssertEqual(try words()[0] >> 4, Int((1110 / 12.0).rounded()), "the first sample after the switch")
    }

    func testGenerator1OnHighPassDataLatchesUntilINT1SRCIsRead() throws {
        // Still for 1 s, then a 0.5 g step on X.
        make(motion: Step(at: 1, from: .unitZ, to: Vector3(0.5, 0, 1)))
        try w(LIS.CTRL_REG1, 0x57)
        try w(LIS.CTRL_REG4, 0x88)
        try w(LIS.CTRL_REG2, 0x01)                // HP_IA1
        try w(LIS.INT1_THS, 6)                    // 6 × 16 mg = 96 mg
        try w(LIS.CTRL_REG5, 0x08)                // LIR_INT1
        _ = try r(LIS.REFERENCE)
        try w(LIS.CTRL_REG3, 0x40)                // I1_IA1
        try w(LIS.INT1_CFG, 0x2A)                 // XH | YH | ZH
        clock.advance(ms: 900)
        chip.serviceInterruptPin()
        XCTAssertFalse(chip.interruptPin.isHigh, "gravity is filtered out: no event while still")
        XCTAssertEqual(try r(LIS.INT1_SRC), 0)
        clock.advance(ms: 200)
        chip.serviceInterruptPin()
        XCTAssertTrue(chip.interruptPin.isHigh)
        XCTAssertEqual(try r(LIS.INT1_SRC), 0x40 | 0x02, "IA and XH")
        XCTAssertFalse(chip.interruptPin.isHigh, "reading INT1_SRC clears the latch")
        // The filtered step decays below 96 mg within ~130 ms (fc = ODR/50), latching again
        // until then; after that the new pose raises nothing.
        clock.advance(ms: 2000)
        XCTAssertEqual(try r(LIS.INT1_SRC), 0x42)
        clock.advance(ms: 1000)
        XCTAssertEqual(try r(LIS.INT1_SRC), 0, "the high-pass forgets the new pose")
        chip.serviceInterruptPin()
        XCTAssertFalse(chip.interruptPin.isHigh)
    }

    func testPowerOnResetReturnsToPowerDown() throws {
        make()
        try w(LIS.CTRL_REG1, 0x57)
        try w(LIS.CTRL_REG4, 0x88)
        clock.advance(ms: 20)
        chip.powerOnReset()
        XCTAssertEqual(try r(LIS.CTRL_REG1 | LIS.inc, 4), [0x07, 0x00, 0x00, 0x00])
        XCTAssertEqual(try words(), [0, 0, 0])
    }
}

/// A step in acceleration at `at` seconds.
private struct Step: MotionSource {
    var at: Double
    var from: Vector3
    var to: Vector3
    func state(at t: Double) -> PhysicalState { PhysicalState(accelG: t < at ? from : to, gyroDps: .zero, tempC: 25) }
    var duration: Duration? { nil }
}

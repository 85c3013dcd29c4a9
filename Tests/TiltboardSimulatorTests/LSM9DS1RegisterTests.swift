import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// LSM9DS1 accelerometer/gyroscope registers, declared here independently of the drivers' map
/// (ST data sheet DocID025715 Rev 3: §6 register address map, §7 register descriptions, §3.5 FIFO).
private enum LSM {
    static let address: UInt8 = 0x6A
    static let WHO_AM_I: UInt8 = 0x0F
    static let CTRL_REG1_G: UInt8 = 0x10
    static let OUT_TEMP_L: UInt8 = 0x15
    static let OUT_X_L_G: UInt8 = 0x18
    static let CTRL_REG4: UInt8 = 0x1E
    static let CTRL_REG5_XL: UInt8 = 0x1F
    static let CTRL_REG6_XL: UInt8 = 0x20
    static let CTRL_REG8: UInt8 = 0x22
    static let CTRL_REG9: UInt8 = 0x23
    static let OUT_X_L_XL: UInt8 = 0x28
    static let FIFO_CTRL: UInt8 = 0x2E
    static let FIFO_SRC: UInt8 = 0x2F
}

final class LSM9DS1RegisterTests: XCTestCase {
    var clock = ManualClock()
    var bus = SimulatedI2CBus()
    var chip: SimulatedLSM9DS1!

    func make(motion: MotionSource = Constant(accel: .unitZ, gyro: Vector3(10, -20, 30))) {
        clock = ManualClock()
        bus = SimulatedI2CBus()
        chip = SimulatedLSM9DS1(clock: clock, motion: motion)
        bus.attach(chip, at: LSM.address)
    }

    func r(_ reg: UInt8) throws -> UInt8 { try bus.readByte(address: LSM.address, register: reg) }
    func r(_ reg: UInt8, _ n: Int) throws -> [UInt8] { try bus.read(address: LSM.address, register: reg, count: n) }
    func w(_ reg: UInt8, _ v: UInt8) throws { try bus.writeByte(address: LSM.address, register: reg, value: v) }

    func testPowerOnValuesAndPowerDown() throws {
        make()
        XCTAssertEqual(try r(LSM.WHO_AM_I), 0x68)
        XCTAssertEqual(try r(LSM.CTRL_REG4, 5), [0x38, 0x38, 0x00, 0x00, 0x04], "CTRL_REG4, 5_XL, 6_XL, 7_XL, 8")
        XCTAssertEqual(try r(LSM.CTRL_REG1_G), 0x00)
        clock.advance(ms: 100)
        XCTAssertEqual(try r(LSM.OUT_X_L_XL, 6), [0, 0, 0, 0, 0, 0], "power-down: no data")
        XCTAssertEqual(chip.samplesTaken, 0)
    }

    func testGyroRateDrivesBothSensorsWithDataSheetScales() throws {
        make()
        // ODR_G 119 Hz (011), FS_G 500 °/s (01): 17.5 m°/s/LSB; FS_XL ±4 g (10): 0.122 mg/LSB.
        try w(LSM.CTRL_REG1_G, 0b011_01_000)
        try w(LSM.CTRL_REG6_XL, 0b000_10_000)
        clock.advance(ms: 20)
        let b = try r(LSM.OUT_TEMP_L, 0x2D - 0x15 + 1)
        XCTAssertEqual(chip.samplesTaken, 2, "119 Hz: two ticks in 20 ms")
        XCTAssertEqual(int16LE(b, 0), 0, "25 °C reads 0")
        let g = 3, a = 0x28 - 0x15
        XCTAssertEqual([int16LE(b, g), int16LE(b, g + 2), int16LE(b, g + 4)], [571, -1143, 1714], "10, −20, 30 °/s at 17.5 m°/s/LSB")
        XCTAssertEqual([int16LE(b, a), int16LE(b, a + 2), int16LE(b, a + 4)], [0, 0, 8197], "1 g at 0.122 mg/LSB")
    }

    func testIfAddIncClearedKeepsReadingOneRegister() throws {
        make()
        try w(LSM.CTRL_REG8, 0x00)
        XCTAssertEqual(try r(LSM.WHO_AM_I, 3), [0x68, 0x68, 0x68])
    }

    func testSoftwareResetRestoresPowerOnValues() throws {
        make()
        try w(LSM.CTRL_REG1_G, 0x60)
        try w(LSM.CTRL_REG8, 0x05)
        XCTAssertEqual(try r(LSM.CTRL_REG1_G), 0x00)
        XCTAssertEqual(try r(LSM.CTRL_REG8), 0x04, "SW_RESET clears itself")
    }

    func testFIFOHolds32AndEachBurstOverBothSensorsPopsOneSlot() throws {
        make(motion: Ramp())
        try w(LSM.CTRL_REG1_G, 0b110_00_000)  // 952 Hz
        try w(LSM.CTRL_REG6_XL, 0)
        try w(LSM.CTRL_REG9, 0x02)            // FIFO_EN
        try w(LSM.FIFO_CTRL, 0xC0)            // continuous
        clock.advance(ms: 10)
        XCTAssertEqual(try r(LSM.FIFO_SRC) & 0x3F, 9, "9 samples in 10 ms at 952 Hz")
        let first = try r(LSM.OUT_X_L_G, 0x2D - 0x18 + 1)
        let second = try r(LSM.OUT_X_L_G, 0x2D - 0x18 + 1)
        XCTAssertLessThan(int16LE(first, 0x28 - 0x18), int16LE(second, 0x28 - 0x18), "oldest first (the ramp grows)")
        XCTAssertEqual(try r(LSM.FIFO_SRC) & 0x3F, 7)
        clock.advance(ms: 100)
        let full = try r(LSM.FIFO_SRC)
        XCTAssertEqual(full & 0x3F, 32)
        XCTAssertEqual(full & 0x40, 0x40, "OVRN: the oldest were overwritten")
        try w(LSM.FIFO_CTRL, 0x00)
        XCTAssertEqual(try r(LSM.FIFO_SRC) & 0x3F, 0, "bypass empties it")
    }
}

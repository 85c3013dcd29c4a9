import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// ICM-20948 registers, declared here independently of the drivers' map (TDK InvenSense
/// DS-000189 rev 1.3, §7 register map of user banks 0–3).
private enum ICM {
    static let address: UInt8 = 0x68
    static let REG_BANK_SEL: UInt8 = 0x7F
    // bank 0
    static let WHO_AM_I: UInt8 = 0x00
    static let USER_CTRL: UInt8 = 0x03
    static let PWR_MGMT_1: UInt8 = 0x06
    static let ACCEL_XOUT_H: UInt8 = 0x2D
    static let FIFO_EN_2: UInt8 = 0x67
    static let FIFO_RST: UInt8 = 0x68
    static let FIFO_COUNTH: UInt8 = 0x70
    static let FIFO_R_W: UInt8 = 0x72
    static let MPU_WHO_AM_I: UInt8 = 0x75
    // bank 2
    static let GYRO_SMPLRT_DIV: UInt8 = 0x00
    static let GYRO_CONFIG_1: UInt8 = 0x01
    static let ACCEL_CONFIG: UInt8 = 0x14
}

final class ICM20948RegisterTests: XCTestCase {
    var clock = ManualClock()
    var bus = SimulatedI2CBus()
    var chip: SimulatedICM20948!

    func make(motion: MotionSource = Constant(accel: .unitZ, gyro: Vector3(10, -20, 30))) {
        clock = ManualClock()
        bus = SimulatedI2CBus()
        chip = SimulatedICM20948(clock: clock, motion: motion)
        bus.attach(chip, at: ICM.address)
    }

    func r(_ reg: UInt8) throws -> UInt8 { try bus.readByte(address: ICM.address, register: reg) }
    func r(_ reg: UInt8, _ n: Int) throws -> [UInt8] { try bus.read(address: ICM.address, register: reg, count: n) }
    func w(_ reg: UInt8, _ v: UInt8) throws { try bus.writeByte(address: ICM.address, register: reg, value: v) }
    func bank(_ n: UInt8) throws { try w(ICM.REG_BANK_SEL, n << 4) }

    func testBankZeroAtPowerOnAndTheSameAddressesMeanOtherRegistersInBankTwo() throws {
        make()
        XCTAssertEqual(try r(ICM.REG_BANK_SEL), 0x00)
        XCTAssertEqual(try r(ICM.WHO_AM_I), 0xEA)
        XCTAssertEqual(try r(ICM.PWR_MGMT_1), 0x41, "asleep, clock auto")
        XCTAssertEqual(try r(ICM.MPU_WHO_AM_I), 0x00, "0x75 is reserved here: an MPU-6050 ID read finds nothing")
        try bank(2)
        XCTAssertEqual(try r(ICM.REG_BANK_SEL), 0x20, "readable in every bank")
        XCTAssertEqual(try r(ICM.GYRO_SMPLRT_DIV), 0x00, "0x00 in bank 2 is GYRO_SMPLRT_DIV, not WHO_AM_I")
        XCTAssertEqual(try r(ICM.GYRO_CONFIG_1), 0x01)
        try w(ICM.GYRO_SMPLRT_DIV, 0x0A)
        try bank(0)
        XCTAssertEqual(try r(ICM.WHO_AM_I), 0xEA, "bank 2's write did not touch bank 0")
        try w(ICM.REG_BANK_SEL, 0xFF)
        XCTAssertEqual(try r(ICM.REG_BANK_SEL), 0x30, "only USER_BANK [5:4] is kept")
    }

    func testDeviceResetReturnsToBankZeroAndPowerOnValues() throws {
        make()
        try bank(2)
        try w(ICM.GYRO_CONFIG_1, 0x07)
        try bank(0)
        try w(ICM.PWR_MGMT_1, 0x01)
        try bank(2)
        chip.powerOnReset()
        XCTAssertEqual(chip.selectedBank, 0)
        XCTAssertEqual(try r(ICM.WHO_AM_I), 0xEA)
        try bank(2)
        try bank(0)
        try w(ICM.PWR_MGMT_1, 0x80)
        XCTAssertEqual(chip.selectedBank, 0)
        XCTAssertEqual(try r(ICM.PWR_MGMT_1), 0x41)
        try bank(2)
        XCTAssertEqual(try r(ICM.GYRO_CONFIG_1), 0x01)
    }

    func testSamplesAtTheDividedRateWithDataSheetScales() throws {
        make()
        try w(ICM.PWR_MGMT_1, 0x01)
        try bank(2)
        try w(ICM.GYRO_SMPLRT_DIV, 10)               // 1125 / 11 ≈ 102.3 Hz
        try w(ICM.GYRO_CONFIG_1, 0b011_01_1)         // ±500 °/s: 65.5 LSB per °/s
        try w(ICM.ACCEL_CONFIG, 0b011_01_1)          // ±4 g: 8192 LSB/g
        try bank(0)
        clock.advance(ms: 30)
        let b = try r(ICM.ACCEL_XOUT_H, 14)
        XCTAssertEqual(chip.samplesTaken, 3)
        XCTAssertEqual([int16BE(b, 0), int16BE(b, 2), int16BE(b, 4)], [0, 0, 8192])
        XCTAssertEqual([int16BE(b, 6), int16BE(b, 8), int16BE(b, 10)], [655, -1310, 1965])
        XCTAssertEqual(int16BE(b, 12), 1335, "25 °C: (25 − 21) × 333.87")
    }

    func testFIFOFramesInRegisterOrderAndStreamOverflow() throws {
        make(motion: Ramp())
        try w(ICM.PWR_MGMT_1, 0x01)
        try bank(2)
        try w(ICM.GYRO_SMPLRT_DIV, 0)                // 1125 Hz
        try bank(0)
        try w(ICM.FIFO_EN_2, 0x1F)
        try w(ICM.USER_CTRL, 0x40)
        clock.advance(ms: 4)                          // 4 ticks
        let count = try r(ICM.FIFO_COUNTH, 2)
        XCTAssertEqual(Int(count[0]) << 8 | Int(count[1]), 4 * 14)
        let frames = try r(ICM.FIFO_R_W, 28)
        XCTAssertLessThan(int16BE(frames, 0), int16BE(frames, 14), "accel X grows with the ramp, oldest first")
        XCTAssertLessThan(int16BE(frames, 6), int16BE(frames, 20), "gyro X after accel")
        XCTAssertEqual(chip.queuedFIFOFrames, 2)
        clock.advance(ms: 100)
        let full = try r(ICM.FIFO_COUNTH, 2)
        XCTAssertEqual(Int(full[0]) << 8 | Int(full[1]), 512, "stream mode keeps the newest 512 bytes")
        XCTAssertEqual(try r(0x1B) & 0x1F, 0x1F, "INT_STATUS_2 FIFO_OVERFLOW_INT")
        try w(ICM.FIFO_RST, 0x1F)
        try w(ICM.FIFO_RST, 0x00)
        XCTAssertEqual(try r(ICM.FIFO_COUNTH, 2), [0, 0])
    }
}

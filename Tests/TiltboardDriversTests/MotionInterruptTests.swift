import XCTest
import TiltboardCore
import TiltboardDrivers

// Registers re-declared from the MPU-6050 Register Map rev 3.2 and the ADXL345 data sheet rev E, independently
// of the drivers' tables.
private let MPU: UInt8 = 0x68
private let MPU_WHO_AM_I: UInt8 = 0x75
private let ACCEL_CONFIG: UInt8 = 0x1C
private let MOT_THR: UInt8 = 0x1F
private let MOT_DUR: UInt8 = 0x20
private let INT_PIN_CFG: UInt8 = 0x37
private let INT_ENABLE: UInt8 = 0x38
private let INT_STATUS: UInt8 = 0x3A
private let MOT_DETECT_CTRL: UInt8 = 0x69
private let SMPLRT_DIV: UInt8 = 0x19
private let CONFIG: UInt8 = 0x1A
private let GYRO_CONFIG: UInt8 = 0x1B
private let FIFO_EN: UInt8 = 0x23
private let USER_CTRL: UInt8 = 0x6A
private let PWR_MGMT_1: UInt8 = 0x6B

private let ADXL: UInt8 = 0x53
private let DEVID: UInt8 = 0x00
private let THRESH_ACT: UInt8 = 0x24
private let ACT_INACT_CTL: UInt8 = 0x27
private let ADXL_INT_ENABLE: UInt8 = 0x2E
private let INT_MAP: UInt8 = 0x2F
private let INT_SOURCE: UInt8 = 0x30

/// Arming and acknowledging the chips' motion interrupts: exact transaction scripts.
final class MotionInterruptTests: XCTestCase {
    var clock: ManualClock!
    var bus: ScriptedBus!

    override func setUp() {
        clock = ManualClock(startNanoseconds: 1_000_000_000)
        bus = ScriptedBus(clock: clock)
    }

    private func mpu() throws -> MPU6050 {
        bus.expect(.read(MPU, MPU_WHO_AM_I, [0x68]))
        return try MPU6050(bus: bus, address: MPU, clock: clock)
    }

    private func adxl() throws -> ADXL345 {
        bus.expect(.read(ADXL, DEVID, [0xE5]))
        return try ADXL345(bus: bus, address: ADXL, clock: clock)
    }

    func testMPU6050ArmsTheMotionInterruptLatchedActiveHigh() throws {
        let sensor = try mpu()
        // 0.1 g in 32 mg steps → 3; ACCEL_HPF 0.63 Hz (4) under AFS_SEL 0; MOT_DUR 1 ms; MOT_COUNT 1;
        // LATCH_INT_EN only (active high, push-pull, cleared by reading INT_STATUS); MOT_EN only;
        // then each run of registers read back, in address order.
        bus.expect(.write(MPU, ACCEL_CONFIG, [0x04]),
                   .write(MPU, MOT_THR, [3]),
                   .write(MPU, MOT_DUR, [1]),
                   .write(MPU, MOT_DETECT_CTRL, [0x01]),
                   .write(MPU, INT_PIN_CFG, [0x20]),
                   .write(MPU, INT_ENABLE, [0x40]),
                   .read(MPU, ACCEL_CONFIG, [0x04]), .read(MPU, MOT_THR, [3, 1]),
                   .read(MPU, INT_PIN_CFG, [0x20, 0x40]), .read(MPU, MOT_DETECT_CTRL, [0x01]))
        try sensor.armMotionInterrupt(thresholdG: 0.1)
        bus.assertDone()
    }

    func testMPU6050KeepsTheAccelerometerRangeWhenTheHighPassIsSet() throws {
        let sensor = try mpu()
        bus.expect(.write(MPU, PWR_MGMT_1, [0x80]), .write(MPU, PWR_MGMT_1, [0x01]),
                   .write(MPU, SMPLRT_DIV, [9]), .write(MPU, CONFIG, [3]), .write(MPU, GYRO_CONFIG, [0x08]),
                   .write(MPU, ACCEL_CONFIG, [0x10]), .write(MPU, FIFO_EN, [0]), .write(MPU, USER_CTRL, [0]),
                   .read(MPU, SMPLRT_DIV, [9, 3, 0x08, 0x10]), .read(MPU, FIFO_EN, [0]), .read(MPU, USER_CTRL, [0, 0x01]))
        try sensor.configure(SensorConfiguration(accelRangeG: 8, gyroRangeDps: 500, rateHz: 100))
        // ±8 g is AFS_SEL 2 (0x10); 1 g → 31.25 steps → 31.
        bus.expect(.write(MPU, ACCEL_CONFIG, [0x14]), .write(MPU, MOT_THR, [31]), .write(MPU, MOT_DUR, [1]),
                   .write(MPU, MOT_DETECT_CTRL, [0x01]), .write(MPU, INT_PIN_CFG, [0x20]), .write(MPU, INT_ENABLE, [0x40]),
                   .read(MPU, ACCEL_CONFIG, [0x14]), .read(MPU, MOT_THR, [31, 1]),
                   .read(MPU, INT_PIN_CFG, [0x20, 0x40]), .read(MPU, MOT_DETECT_CTRL, [0x01]))
        try sensor.armMotionInterrupt(thresholdG: 1)
        bus.assertDone()
    }

    func testMPU6050ThatDoesNotKeepTheThresholdIsReported() throws {
        let sensor = try mpu()
        bus.expect(.write(MPU, ACCEL_CONFIG, [0x04]), .write(MPU, MOT_THR, [3]), .write(MPU, MOT_DUR, [1]),
                   .write(MPU, MOT_DETECT_CTRL, [0x01]), .write(MPU, INT_PIN_CFG, [0x20]), .write(MPU, INT_ENABLE, [0x40]),
                   .read(MPU, ACCEL_CONFIG, [0x04]), .read(MPU, MOT_THR, [0, 1]))
        assertThrows(SensorError.verifyFailed(register: MOT_THR, wrote: 3, read: 0, bus: bus.name, address: MPU)) {
            try sensor.armMotionInterrupt(thresholdG: 0.1)
        }
        bus.assertDone()
    }

    func testMPU6050AcknowledgeReadsINTSTATUSAndLooksAtBit6Only() throws {
        let sensor = try mpu()
        bus.expect(.read(MPU, INT_STATUS, [0x41]), .read(MPU, INT_STATUS, [0x11]), .read(MPU, INT_STATUS, [0x00]))
        XCTAssertTrue(try sensor.acknowledgeMotionInterrupt())
        XCTAssertFalse(try sensor.acknowledgeMotionInterrupt())
        XCTAssertFalse(try sensor.acknowledgeMotionInterrupt())
        bus.assertDone()
    }

    func testThresholdsAreQuantisedToAtLeastOneStepAndOutOfRangeOnesRefused() throws {
        let sensor = try mpu()
        // 0.001 g rounds to 0, which would flag every sample: one step (32 mg) instead.
        bus.expect(.write(MPU, ACCEL_CONFIG, [0x04]), .write(MPU, MOT_THR, [1]), .write(MPU, MOT_DUR, [1]),
                   .write(MPU, MOT_DETECT_CTRL, [0x01]), .write(MPU, INT_PIN_CFG, [0x20]), .write(MPU, INT_ENABLE, [0x40]),
                   .read(MPU, ACCEL_CONFIG, [0x04]), .read(MPU, MOT_THR, [1, 1]),
                   .read(MPU, INT_PIN_CFG, [0x20, 0x40]), .read(MPU, MOT_DETECT_CTRL, [0x01]))
        try sensor.armMotionInterrupt(thresholdG: 0.001)
        assertThrows(SensorError.unsupportedSetting(.motionThreshold(g: 9), chip: "MPU-6050", allowed: .upToG(255 * 0.032))) {
            try sensor.armMotionInterrupt(thresholdG: 9)
        }
        assertThrows(SensorError.unsupportedSetting(.motionThreshold(g: 0), chip: "MPU-6050", allowed: .upToG(255 * 0.032))) {
            try sensor.armMotionInterrupt(thresholdG: 0)
        }
        bus.assertDone()
    }

    func testADXL345ArmsAcCoupledActivityOnINT1() throws {
        let sensor = try adxl()
        // Interrupts off while configuring; 0.3 g in 62.5 mg steps → 4.8 → 5; ac-coupled X/Y/Z;
        // everything on INT1; then Activity alone.
        bus.expect(.write(ADXL, ADXL_INT_ENABLE, [0x00]),
                   .write(ADXL, THRESH_ACT, [5]),
                   .write(ADXL, ACT_INACT_CTL, [0xF0]),
                   .write(ADXL, INT_MAP, [0x00]),
                   .write(ADXL, ADXL_INT_ENABLE, [0x10]))
        try sensor.armMotionInterrupt(thresholdG: 0.3)
        bus.assertDone()
        assertThrows(SensorError.unsupportedSetting(.motionThreshold(g: 17), chip: "ADXL345", allowed: .upToG(15.9375))) {
            try sensor.armMotionInterrupt(thresholdG: 17)
        }
    }

    func testADXL345AcknowledgeReadsINTSOURCEAndLooksAtActivityOnly() throws {
        let sensor = try adxl()
        bus.expect(.read(ADXL, INT_SOURCE, [0x92]), .read(ADXL, INT_SOURCE, [0x83]))
        XCTAssertTrue(try sensor.acknowledgeMotionInterrupt())
        XCTAssertFalse(try sensor.acknowledgeMotionInterrupt())
        bus.assertDone()
    }

    func testAFailedAcknowledgeIsRethrown() throws {
        let sensor = try mpu()
        let failure = I2CError(kind: .noAcknowledgeData, device: "/dev/i2c-1", address: 0x68, register: 0x3A)
        bus.expect(.readFails(MPU, INT_STATUS, count: 1, failure))
        assertThrows(failure) { _ = try sensor.acknowledgeMotionInterrupt() }
        bus.assertDone()
    }
}

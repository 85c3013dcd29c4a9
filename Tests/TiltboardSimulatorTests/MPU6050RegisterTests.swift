import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// MPU-6050 register constants, declared here independently of any driver (RM-MPU-6000A rev 4.2).
enum MPU {
    static let address: UInt8 = 0x68
    static let XG_OFFS_TC: UInt8 = 0x00
    static let XA_OFFS_H: UInt8 = 0x06
    static let XA_OFFS_L: UInt8 = 0x07
    static let XG_OFFS_USRH: UInt8 = 0x13
    static let SMPLRT_DIV: UInt8 = 0x19
    static let CONFIG: UInt8 = 0x1A
    static let GYRO_CONFIG: UInt8 = 0x1B
    static let ACCEL_CONFIG: UInt8 = 0x1C
    static let FIFO_EN: UInt8 = 0x23
    static let INT_ENABLE: UInt8 = 0x38
    static let INT_STATUS: UInt8 = 0x3A
    static let ACCEL_XOUT_H: UInt8 = 0x3B
    static let TEMP_OUT_H: UInt8 = 0x41
    static let GYRO_XOUT_H: UInt8 = 0x43
    static let SIGNAL_PATH_RESET: UInt8 = 0x68
    static let USER_CTRL: UInt8 = 0x6A
    static let PWR_MGMT_1: UInt8 = 0x6B
    static let FIFO_COUNTH: UInt8 = 0x72
    static let FIFO_COUNTL: UInt8 = 0x73
    static let FIFO_R_W: UInt8 = 0x74
    static let WHO_AM_I: UInt8 = 0x75
}

final class MPU6050RegisterTests: XCTestCase {
    var clock = ManualClock()
    var bus = SimulatedI2CBus()
    var chip: SimulatedMPU6050!

    func make(motion: MotionSource = Constant(accel: .unitZ), imperfections: SensorImperfections = .ideal) {
        clock = ManualClock()
        bus = SimulatedI2CBus()
        chip = SimulatedMPU6050(clock: clock, motion: motion, imperfections: imperfections)
        bus.attach(chip, at: MPU.address)
    }

    func r(_ reg: UInt8) throws -> UInt8 { try bus.readByte(address: MPU.address, register: reg) }
    func r(_ reg: UInt8, _ n: Int) throws -> [UInt8] { try bus.read(address: MPU.address, register: reg, count: n) }
    func w(_ reg: UInt8, _ v: UInt8) throws { try bus.writeByte(address: MPU.address, register: reg, value: v) }
    func fifoCount() throws -> Int { let h = try r(MPU.FIFO_COUNTH); let l = try r(MPU.FIFO_COUNTL); return Int(h) << 8 | Int(l) }

    func testResetValuesIncludingFactoryExceptions() throws {
        make()
        // The burst stops at FIFO_R_W (0x74): a burst reaching it stays there and pops the FIFO.
        var regs = try r(0x00, 0x75)
        regs.append(try r(MPU.WHO_AM_I))
        XCTAssertEqual(regs[0x6B], 0x40, "PWR_MGMT_1 resets asleep")
        XCTAssertEqual(regs[0x75], 0x68)
        XCTAssertNotEqual(regs[0x00], 0)
        XCTAssertEqual(regs[0x00] & 0x01, 1, "OTP_BNK_VLD set in register 0x00")
        XCTAssertNotEqual(Array(regs[0x06...0x0B]), [0, 0, 0, 0, 0, 0], "factory accel offsets")
        XCTAssertEqual(Array(regs[0x13...0x18]), [0, 0, 0, 0, 0, 0], "gyro user offsets zero")
        for reg in 0x19...0x74 where reg != 0x6B {
            XCTAssertEqual(regs[reg], 0, "register \(UInt8(reg).hex) resets to 0")
        }
    }

    func testCloneWhoAmI() throws {
        clock = ManualClock()
        bus.attach(SimulatedMPU6050(clock: clock, motion: Constant(accel: .unitZ), whoAmI: 0x70), at: 0x69)
        XCTAssertEqual(try bus.readByte(address: 0x69, register: MPU.WHO_AM_I), 0x70)
    }

    func testAsleepGivesNoData() throws {
        make()
        clock.advance(ms: 500)
        XCTAssertEqual(try r(MPU.ACCEL_XOUT_H, 14), [UInt8](repeating: 0, count: 14))
        XCTAssertEqual(try r(MPU.INT_STATUS), 0)
        XCTAssertTrue(chip.isAsleep)
    }

    func testBurstIsBigEndianInDatasheetOrder() throws {
        make(motion: Constant(accel: Vector3(0.5, -0.25, 1), gyro: Vector3(10, -20, 30), tempC: 25))
        try w(MPU.PWR_MGMT_1, 0x01)
        clock.advance(ms: 5)
        let b = try r(MPU.ACCEL_XOUT_H, 14)
        XCTAssertEqual(Array(b[0..<2]), [0x20, 0x00])  // 8192
        XCTAssertEqual(Array(b[2..<4]), [0xF0, 0x00])  // −4096
        XCTAssertEqual(Array(b[4..<6]), [0x40, 0x00])  // 16384
        XCTAssertEqual(int16BE(b, 6), -3920)           // (25 − 36.53)·340
        XCTAssertEqual(int16BE(b, 8), 1310)
        XCTAssertEqual(int16BE(b, 10), -2620)
        XCTAssertEqual(int16BE(b, 12), 3930)
        // Single-register reads see the same registers.
        XCTAssertEqual(try r(MPU.TEMP_OUT_H, 2), Array(b[6..<8]))
    }

    func testAccelScalingEveryRangeAndClipping() throws {
        let input = Vector3(0.7, -1.3, 1.9)
        for afs in 0..<4 {
            make(motion: Constant(accel: input))
            try w(MPU.ACCEL_CONFIG, UInt8(afs << 3))
            try w(MPU.PWR_MGMT_1, 0x00)
            clock.advance(ms: 2)
            let b = try r(MPU.ACCEL_XOUT_H, 6)
            let lsb = [16384.0, 8192, 4096, 2048][afs]
            for axis in 0..<3 {
                XCTAssertEqual(Double(int16BE(b, 2 * axis)), input[axis] * lsb, accuracy: 1, "AFS_SEL \(afs) axis \(axis)")
            }
        }
        make(motion: Constant(accel: Vector3(3, -3, 1)))
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 2)
        let b = try r(MPU.ACCEL_XOUT_H, 4)
        XCTAssertEqual(int16BE(b, 0), 32767)
        XCTAssertEqual(int16BE(b, 2), -32768)
    }

    func testAccelConfigLowBitsDoNotChangeOutput() throws {
        make(motion: Constant(accel: Vector3(0.5, 0, 1)))
        try w(MPU.ACCEL_CONFIG, 0x07)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 2)
        XCTAssertEqual(int16BE(try r(MPU.ACCEL_XOUT_H, 2), 0), 8192)
    }

    func testGyroScalingEveryRangeAndClipping() throws {
        let input = Vector3(100, -200, 240)
        for fs in 0..<4 {
            make(motion: Constant(accel: .unitZ, gyro: input))
            try w(MPU.GYRO_CONFIG, UInt8(fs << 3))
            try w(MPU.PWR_MGMT_1, 0x00)
            clock.advance(ms: 2)
            let b = try r(MPU.GYRO_XOUT_H, 6)
            let lsb = [131.0, 65.5, 32.8, 16.4][fs]
            for axis in 0..<3 {
                XCTAssertEqual(Double(int16BE(b, 2 * axis)), input[axis] * lsb, accuracy: 1, "FS_SEL \(fs) axis \(axis)")
            }
        }
        make(motion: Constant(accel: .unitZ, gyro: Vector3(300, -300, 0)))
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 2)
        let b = try r(MPU.GYRO_XOUT_H, 4)
        XCTAssertEqual(int16BE(b, 0), 32767)
        XCTAssertEqual(int16BE(b, 2), -32768)
    }

    func testTemperatureFormula() throws {
        for (tempC, raw) in [(36.53, 0), (85.0, 16480), (-40.0, -26020)] {
            make(motion: Constant(accel: .unitZ, tempC: tempC))
            try w(MPU.PWR_MGMT_1, 0x00)
            clock.advance(ms: 2)
            XCTAssertEqual(int16BE(try r(MPU.TEMP_OUT_H, 2), 0), raw)
        }
    }

    func testDataReadyPerSampleAndClearOnRead() throws {
        make()
        try w(MPU.CONFIG, 0x03)       // 1 kHz base
        try w(MPU.SMPLRT_DIV, 9)      // 100 Hz
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 9.9)
        XCTAssertEqual(try r(MPU.INT_STATUS), 0x00, "no sample before the first 10 ms tick")
        clock.advance(ms: 0.2)
        XCTAssertEqual(try r(MPU.INT_STATUS), 0x01)
        XCTAssertEqual(try r(MPU.INT_STATUS), 0x00, "cleared by the read")
        clock.advance(ms: 10)
        XCTAssertEqual(try r(MPU.INT_STATUS), 0x01)
    }

    func testIntRdClearClearsStatusOnAnyRead() throws {
        make()
        try w(MPU.CONFIG, 0x01)
        try w(0x37, 0x10)             // INT_PIN_CFG.INT_RD_CLEAR
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 1.5)
        _ = try r(MPU.ACCEL_XOUT_H, 6)
        XCTAssertEqual(try r(MPU.INT_STATUS), 0x00, "cleared by the data read")
        try w(0x37, 0x00)
        clock.advance(ms: 1)
        _ = try r(MPU.ACCEL_XOUT_H, 6)
        XCTAssertEqual(try r(MPU.INT_STATUS), 0x01, "only reading INT_STATUS clears it")
    }

    func testSampleRateFromDividerAndDLPF() throws {
        // (DLPF_CFG, SMPLRT_DIV, elapsed ms, expected accel-only frames)
        for (dlpf, div, ms, frames) in [(0, 7, 100.0, 100), (7, 0, 10.0, 80), (3, 9, 100.0, 10), (1, 0, 50.0, 50), (6, 249, 1000.0, 4)] {
            make()
            try w(MPU.CONFIG, UInt8(dlpf))
            try w(MPU.SMPLRT_DIV, UInt8(div))
            try w(MPU.FIFO_EN, 0x08)
            try w(MPU.USER_CTRL, 0x40)
            try w(MPU.PWR_MGMT_1, 0x00)
            clock.advance(ms: ms + 0.01)
            XCTAssertEqual(try fifoCount(), 6 * frames, "DLPF \(dlpf) DIV \(div)")
        }
        XCTAssertEqual(chip.sampleRateHz, 4, accuracy: 1e-9)
    }

    func testAccelRepeatsAt8kHz() throws {
        make(motion: Ramp())
        try w(MPU.CONFIG, 0x00)
        try w(MPU.SMPLRT_DIV, 0)       // 8 kHz
        try w(MPU.FIFO_EN, 0x48)       // accel + gyro X
        try w(MPU.USER_CTRL, 0x40)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 1.9)        // ticks at 0.125 … 1.875 ms: 15 frames
        let n = try fifoCount()
        XCTAssertEqual(n, 15 * 8)
        let b = try r(MPU.FIFO_R_W, n)
        let ax = (0..<15).map { int16BE(b, 8 * $0) }
        let gx = (0..<15).map { int16BE(b, 8 * $0 + 6) }
        XCTAssertEqual(Set(ax.prefix(7)), [0], "accel at the 1 kHz sample from t = 0 for ticks before 1 ms")
        XCTAssertEqual(Set(ax.suffix(8)), [Int((0.001 * 16384).rounded())])
        XCTAssertEqual(Set(gx).count, 15, "gyro changes every 8 kHz tick")
    }

    func testDeviceResetRestoresDefaultsAndSelfClears() throws {
        make()
        try w(MPU.SMPLRT_DIV, 4)
        try w(MPU.GYRO_CONFIG, 0x18)
        try w(MPU.XA_OFFS_H, 0x12)
        try w(MPU.PWR_MGMT_1, 0x01)
        clock.advance(ms: 10)
        XCTAssertNotEqual(try r(MPU.ACCEL_XOUT_H, 6), [0, 0, 0, 0, 0, 0])
        try w(MPU.PWR_MGMT_1, 0x80)
        XCTAssertEqual(try r(MPU.PWR_MGMT_1), 0x40, "DEVICE_RESET reads back 0, SLEEP is set again")
        XCTAssertEqual(try r(MPU.SMPLRT_DIV), 0)
        XCTAssertEqual(try r(MPU.GYRO_CONFIG), 0)
        XCTAssertEqual(try r(MPU.XA_OFFS_H), 0xF8, "factory offset reloaded")
        clock.advance(ms: 100)
        XCTAssertEqual(try r(MPU.ACCEL_XOUT_H, 14), [UInt8](repeating: 0, count: 14))
    }

    func testResetBitsSelfClear() throws {
        make()
        try w(MPU.CONFIG, 0x01)
        try w(MPU.FIFO_EN, 0x08)
        try w(MPU.USER_CTRL, 0x40)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 10.5)
        XCTAssertEqual(try fifoCount(), 60)
        try w(MPU.SIGNAL_PATH_RESET, 0x07)
        XCTAssertEqual(try r(MPU.SIGNAL_PATH_RESET), 0)
        try w(MPU.USER_CTRL, 0x40 | 0x04 | 0x01)  // FIFO_EN, FIFO_RESET, SIG_COND_RESET
        XCTAssertEqual(try r(MPU.USER_CTRL), 0x40)
        XCTAssertEqual(try fifoCount(), 0)
        XCTAssertEqual(try r(MPU.ACCEL_XOUT_H, 14), [UInt8](repeating: 0, count: 14), "SIG_COND_RESET clears data")
    }

    func testFIFOFrameOrderAndCountLatch() throws {
        make(motion: Constant(accel: Vector3(0.25, 0.5, -0.75), gyro: Vector3(10, -20, 30), tempC: 30))
        try w(MPU.CONFIG, 0x01)
        try w(MPU.SMPLRT_DIV, 9)       // 100 Hz
        try w(MPU.FIFO_EN, 0xF8)       // temp, gyro X/Y/Z, accel
        try w(MPU.USER_CTRL, 0x40)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 30.5)
        XCTAssertEqual(try r(MPU.FIFO_COUNTH, 2), [0, 42], "3 frames of 14 bytes")
        let frame = try r(MPU.FIFO_R_W, 14)
        XCTAssertEqual((0..<7).map { int16BE(frame, 2 * $0) }, [4096, 8192, -12288, -2220, 1310, -2620, 3930])
        // COUNT_L alone does not refresh; COUNT_H latches both bytes.
        clock.advance(ms: 20)
        XCTAssertEqual(try r(MPU.FIFO_COUNTL), 42, "still the value latched before the pop")
        XCTAssertEqual(try r(MPU.FIFO_COUNTH), 0)
        XCTAssertEqual(try r(MPU.FIFO_COUNTL), 56, "28 left + 28 new")
    }

    func testFIFOOverflowKeepsNewestBytesAndEmptyReadRepeatsLastByte() throws {
        make(motion: Ramp())
        try w(MPU.CONFIG, 0x01)        // 1 kHz
        try w(MPU.FIFO_EN, 0x08)       // accel: 6-byte frames
        try w(MPU.USER_CTRL, 0x40)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 200.5)       // 200 frames = 1200 bytes
        let status = try r(MPU.INT_STATUS)
        XCTAssertEqual(status & 0x10, 0x10, "FIFO_OFLOW_INT")
        XCTAssertEqual(try fifoCount(), 1024)
        let b = try r(MPU.FIFO_R_W, 1024)
        // The newest 1024 of 1200 bytes: starts 176 bytes in, i.e. at byte 2 of frame 30 (t = 30 ms).
        XCTAssertEqual(int16BE(b, 0), 0, "AY of t = 30 ms")
        XCTAssertEqual(int16BE(b, 2), Int((1.030 * 16384).rounded()), "AZ of t = 30 ms")
        XCTAssertEqual(int16BE(b, 4), Int((0.031 * 16384).rounded()), "AX of t = 31 ms")
        XCTAssertEqual(int16BE(b, 1018), Int((0.200 * 16384).rounded()))
        XCTAssertEqual(int16BE(b, 1022), Int((1.200 * 16384).rounded()))
        XCTAssertEqual(try fifoCount(), 0)
        XCTAssertEqual(try r(MPU.FIFO_R_W, 3), [b[1023], b[1023], b[1023]], "empty FIFO repeats the last byte")
    }

    func testLongCatchUpIsBounded() throws {
        make(motion: Ramp())
        try w(MPU.CONFIG, 0x00)        // 8 kHz
        try w(MPU.FIFO_EN, 0xF8)
        try w(MPU.USER_CTRL, 0x40)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(bySeconds: 3600)  // 28.8 million ticks
        XCTAssertEqual(try fifoCount(), 1024)
        XCTAssertEqual(chip.samplesTaken, 28_800_000)
        let gx = int16BE(try r(MPU.GYRO_XOUT_H, 2), 0)
        XCTAssertEqual(gx, 32767, "100 °/s per second ramp is clipped after an hour")
    }

    func testAccelAndGyroOffsetRegisters() throws {
        make()
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 2)
        XCTAssertEqual(int16BE(try r(MPU.ACCEL_XOUT_H, 2), 0), 0)
        // Factory X word 0xF86B; add 200 (2048 LSB/g units), writing bit 0 as 0.
        try bus.write(address: MPU.address, register: MPU.XA_OFFS_H, bytes: [0xF9, 0x32])
        XCTAssertEqual(try r(MPU.XA_OFFS_H, 2), [0xF9, 0x33], "reserved bit 0 keeps its factory value")
        try bus.write(address: MPU.address, register: MPU.XG_OFFS_USRH, bytes: [0x00, 100])
        clock.advance(ms: 2)
        XCTAssertEqual(int16BE(try r(MPU.ACCEL_XOUT_H, 2), 0), 1600, "200 · 8 at ±2 g")
        XCTAssertEqual(int16BE(try r(MPU.GYRO_XOUT_H, 2), 0), 400, "100 · 4 at ±250 °/s")
        try w(MPU.ACCEL_CONFIG, 0x18)
        try w(MPU.GYRO_CONFIG, 0x18)
        clock.advance(ms: 2)
        XCTAssertEqual(int16BE(try r(MPU.ACCEL_XOUT_H, 2), 0), 200, "200 · 1 at ±16 g")
        XCTAssertEqual(int16BE(try r(MPU.GYRO_XOUT_H, 2), 0), 50, "100 · 4 / 8 at ±2000 °/s")
    }

    func testBurstIsOneCoherentSample() throws {
        make(motion: Ramp())
        try w(MPU.CONFIG, 0x01)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 123.4)
        let b = try r(MPU.ACCEL_XOUT_H, 14)
        let tFromAccel = Double(int16BE(b, 0)) / 16384
        let tFromGyro = Double(int16BE(b, 8)) / 131 / 100
        XCTAssertEqual(tFromAccel, 0.123, accuracy: 0.5 / 16384)
        XCTAssertEqual(tFromGyro, 0.123, accuracy: 0.5 / 13100)
        XCTAssertEqual(try r(MPU.ACCEL_XOUT_H, 14), b, "same sample until the next tick")
    }

    func testMultiByteWriteAutoIncrements() throws {
        make()
        try bus.write(address: MPU.address, register: MPU.SMPLRT_DIV, bytes: [9, 0x03, 0x08, 0x10])
        XCTAssertEqual(try r(MPU.SMPLRT_DIV, 4), [9, 0x03, 0x08, 0x10])
        XCTAssertEqual(chip.sampleRateHz, 100, accuracy: 1e-9)
    }

    func testStandbyAxesAndDisabledTemperatureHoldTheirLastValue() throws {
        make(motion: Ramp())
        try w(MPU.CONFIG, 0x01)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 10.5)
        let before = try r(MPU.ACCEL_XOUT_H, 14)
        try w(0x6C, 0x20 | 0x04)          // STBY_XA, STBY_XG
        try w(MPU.PWR_MGMT_1, 0x08)       // TEMP_DIS
        clock.advance(ms: 10)
        let after = try r(MPU.ACCEL_XOUT_H, 14)
        XCTAssertEqual(Array(after[0..<2]), Array(before[0..<2]), "accel X held")
        XCTAssertEqual(Array(after[6..<10]), Array(before[6..<10]), "temperature and gyro X held")
        XCTAssertEqual(int16BE(after, 4), Int((1.020 * 16384).rounded()), "accel Z still live")
    }

    func testSleepingAgainStopsSampling() throws {
        make()
        try w(MPU.FIFO_EN, 0x08)
        try w(MPU.USER_CTRL, 0x40)
        try w(MPU.CONFIG, 0x01)
        try w(MPU.PWR_MGMT_1, 0x00)
        clock.advance(ms: 10.5)
        try w(MPU.PWR_MGMT_1, 0x40)
        clock.advance(ms: 100)
        XCTAssertEqual(try fifoCount(), 60)
    }
}

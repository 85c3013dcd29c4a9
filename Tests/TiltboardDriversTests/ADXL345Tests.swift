import XCTest
import TiltboardCore
import TiltboardDrivers

// Register addresses re-declared from the ADXL345 data sheet (Rev E, register map), independently
// of the driver's tables.
private let addr: UInt8 = 0x53
private let DEVID: UInt8 = 0x00
private let OFSX: UInt8 = 0x1E
private let ACT_INACT_CTL: UInt8 = 0x27
private let INT_ENABLE: UInt8 = 0x2E
private let INT_MAP: UInt8 = 0x2F
private let BW_RATE: UInt8 = 0x2C
private let POWER_CTL: UInt8 = 0x2D
private let DATA_FORMAT: UInt8 = 0x31
private let DATAX0: UInt8 = 0x32
private let FIFO_CTL: UInt8 = 0x38
private let FIFO_STATUS: UInt8 = 0x39

final class ADXL345Tests: XCTestCase {
    var clock: ManualClock!
    var bus: ScriptedBus!

    override func setUp() {
        clock = ManualClock(startNanoseconds: 1_000_000_000)
        bus = ScriptedBus(clock: clock)
    }

    private func open() throws -> ADXL345 {
        bus.expect(.read(addr, DEVID, [0xE5]))
        return try ADXL345(bus: bus, address: addr, clock: clock)
    }

    private func expectConfigure(format: UInt8, rate: UInt8, fifo: UInt8, powerReadBack: UInt8 = 0x08,
                                 interruptsReadBack: [UInt8] = [0x00, 0x00]) {
        bus.expect(.write(addr, POWER_CTL, [0x00]),
                   .write(addr, INT_ENABLE, [0x00]),
                   .write(addr, INT_MAP, [0x00]),
                   .write(addr, ACT_INACT_CTL, [0x00]),
                   .write(addr, DATA_FORMAT, [format]),
                   .write(addr, BW_RATE, [rate]),
                   .write(addr, FIFO_CTL, [fifo]),
                   .write(addr, OFSX, [0x00, 0x00, 0x00]),
                   .write(addr, POWER_CTL, [0x08]),
                   .read(addr, OFSX, [0x00, 0x00, 0x00]),
                   .read(addr, ACT_INACT_CTL, [0x00]),
                   .read(addr, BW_RATE, [rate, powerReadBack] + interruptsReadBack),
                   .read(addr, DATA_FORMAT, [format]),
                   .read(addr, FIFO_CTL, [fifo]))
    }

    func testIdentifies() throws {
        let sensor = try open()
        XCTAssertEqual(sensor.identity, SensorIdentity(chip: .adxl345, part: "ADXL345", chipID: 0xE5,
                                                       bus: "/dev/i2c-1", address: 0x53))
        bus.assertDone()
    }

    func testRefusesWrongDeviceID() {
        bus.expect(.read(addr, DEVID, [0x68]))
        let expected = SensorError.wrongChip(found: 0x68, address: 0x53, bus: "/dev/i2c-1", expected: ExpectedChip(id: 0xE5, part: "ADXL345"))
        assertThrows(expected) { _ = try ADXL345(bus: bus, address: addr, clock: clock) }
        bus.assertDone()
    }

    func testConfigureScriptAndFirstSampleWait() throws {
        let sensor = try open()
        let t0 = clock.nowNanoseconds()
        // FULL_RES, ±2 g, right-justified; 100 Hz = code 0x0A; bypass FIFO.
        expectConfigure(format: 0x08, rate: 0x0A, fifo: 0x00)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 100, useFIFO: false))
        bus.assertDone()
        // 1.1 ms turn-on plus one 10 ms period.
        XCTAssertEqual(clock.nowNanoseconds() - t0, 11_100_000)
        XCTAssertEqual(sensor.actualRateHz, 100)
    }

    func testConfigureStreamFIFOAt16g() throws {
        let sensor = try open()
        let t0 = clock.nowNanoseconds()
        expectConfigure(format: 0x0B, rate: 0x0D, fifo: 0x90)
        try sensor.configure(SensorConfiguration(accelRangeG: 16, rateHz: 800, useFIFO: true))
        bus.assertDone()
        XCTAssertEqual(clock.nowNanoseconds() - t0, 1_100_000 + 1_250_000)
        XCTAssertEqual(sensor.actualRateHz, 800)
    }

    func testRateCodes() throws {
        // ODR = 3200 / 2^(15 − code), nearest by ratio.
        let table: [(Double, UInt8, Double)] = [
            (0.05, 0x0, 3200.0 / 32768), (0.1, 0x0, 3200.0 / 32768), (12.5, 0x7, 12.5), (60, 0x9, 50),
            (75, 0xA, 100), (100, 0xA, 100), (400, 0xC, 400), (3200, 0xF, 3200), (10000, 0xF, 3200),
        ]
        for (asked, code, actual) in table {
            let sensor = try open()
            expectConfigure(format: 0x08, rate: code, fifo: 0x00)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: asked))
            XCTAssertEqual(sensor.actualRateHz, actual, "rate \(asked)")
            bus.assertDone()
        }
    }

    func testVerifyFailureWhenMeasureDoesNotStick() throws {
        let sensor = try open()
        expectConfigure(format: 0x08, rate: 0x0A, fifo: 0x00, powerReadBack: 0x00)
        assertThrows(SensorError.verifyFailed(register: 0x2D, wrote: 0x08, read: 0x00, bus: "/dev/i2c-1", address: 0x53)) {
            try sensor.configure(SensorConfiguration())
        }
        XCTAssertEqual(bus.pending.count, 2)
    }

    func testConfigureSwitchesOffInterruptsAnEarlierSessionLeftArmed() throws {
        // No soft reset: INT_ENABLE, INT_MAP and ACT_INACT_CTL keep what the last session armed, so
        // configure clears them (before anything else, in standby) and checks they read back 0.
        let sensor = try open()
        expectConfigure(format: 0x08, rate: 0x0A, fifo: 0x00, interruptsReadBack: [0x10, 0x00])
        assertThrows(SensorError.verifyFailed(register: 0x2E, wrote: 0x00, read: 0x10, bus: "/dev/i2c-1", address: 0x53)) {
            try sensor.configure(SensorConfiguration())
        }
    }

    func testUnsupportedRange() throws {
        let sensor = try open()
        assertThrows(SensorError.unsupportedSetting(.accelerometerRange(g: 32), chip: "ADXL345", allowed: .oneOf([2, 4, 8, 16]))) {
            try sensor.configure(SensorConfiguration(accelRangeG: 32))
        }
        bus.assertDone()
    }

    func testFullResolutionConversionIsTheSameInEveryRange() throws {
        // FULL_RES: 3.9 mg/LSB (256 LSB/g) in each range; ranges only widen the word.
        for (range, format) in [(2, UInt8(0x08)), (4, 0x09), (8, 0x0A), (16, 0x0B)] {
            let sensor = try open()
            expectConfigure(format: format, rate: 0x0A, fifo: 0x00)
            try sensor.configure(SensorConfiguration(accelRangeG: range))
            bus.expect(.read(addr, DATAX0, le(256, -256, 4095)))
            let s = try sensor.read(at: 3)
            XCTAssertEqual(s.t, 3)
            XCTAssertEqual(s.accel.x, 1)
            XCTAssertEqual(s.accel.y, -1)
            XCTAssertEqual(s.accel.z, 4095.0 / 256, accuracy: 1e-12)
            XCTAssertNil(s.gyro)
            XCTAssertNil(s.tempC)
            bus.assertDone()
        }
    }

    func testReadIsLittleEndian() throws {
        let sensor = try open()
        bus.expect(.read(addr, DATAX0, [0x00, 0x01, 0x80, 0xFF, 0x40, 0x00]))
        let s = try sensor.read(at: 0)
        XCTAssertEqual(s.accel, Vector3(1, -0.5, 0.25))
        bus.assertDone()
    }

    func testErrorMidReadThenRecovery() throws {
        let sensor = try open()
        let nack = I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x53, register: 0x32,
                            errno: 6, detail: "No such device or address")
        bus.expect(.readFails(addr, DATAX0, count: 6, nack), .read(addr, DATAX0, le(0, 0, 256)))
        assertThrows(nack) { _ = try sensor.read(at: 0) }
        XCTAssertEqual(try sensor.read(at: 0.01).accel, Vector3(0, 0, 1))
        bus.assertDone()
    }

    func testDrainReadsOneBurstPerEntry() throws {
        let sensor = try open()
        expectConfigure(format: 0x08, rate: 0x0B, fifo: 0x90)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 200, useFIFO: true))
        // FIFO_TRIG set plus 3 entries: the trigger bit must not count.
        bus.expect(.read(addr, FIFO_STATUS, [0x83]),
                   .read(addr, DATAX0, le(256, 0, 0)), .read(addr, DATAX0, le(0, 256, 0)), .read(addr, DATAX0, le(0, 0, 256)))
        var samples: [Sample] = []
        XCTAssertEqual(try sensor.drainFIFO(at: 10) { samples.append($0) }, 3)
        XCTAssertEqual(samples.map(\.accel), [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)])
        XCTAssertEqual(samples[0].t, 9.99, accuracy: 1e-12)
        XCTAssertEqual(samples[1].t, 9.995, accuracy: 1e-12)
        XCTAssertEqual(samples[2].t, 10)
        bus.expect(.read(addr, FIFO_STATUS, [0x00]))
        XCTAssertEqual(try sensor.drainFIFO(at: 11) { _ in XCTFail("no sample expected") }, 0)
        bus.assertDone()
    }

    func testDrainOfAFullFIFOAlsoReadsThe33rdSample() throws {
        // 32 entries plus one waiting at the output filter (DS Register 0x39): after the 32,
        // FIFO_STATUS is read again and the sample that moved in is read as well.
        let sensor = try open()
        expectConfigure(format: 0x08, rate: 0x0C, fifo: 0x90)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 400, useFIFO: true))
        bus.expect(.read(addr, FIFO_STATUS, [32]))
        for i in 0..<32 { bus.expect(.read(addr, DATAX0, le(Int16(i), 0, 256))) }
        bus.expect(.read(addr, FIFO_STATUS, [1]), .read(addr, DATAX0, le(32, 0, 256)))
        var samples: [Sample] = []
        XCTAssertEqual(try sensor.drainFIFO(at: 1) { samples.append($0) }, 33)
        XCTAssertEqual(samples.map { Int(($0.accel.x * 256).rounded()) }, Array(0...32))
        XCTAssertEqual(samples[0].t, 1 - 32 * 0.0025, accuracy: 1e-12)
        XCTAssertEqual(samples.dropLast().last?.t ?? 0, 1 - 0.0025, accuracy: 1e-12)
        XCTAssertEqual(samples.last?.t, 1)
        bus.assertDone()
        // 31 entries: nothing waits behind them, and FIFO_STATUS is read once.
        bus.expect(.read(addr, FIFO_STATUS, [31]))
        for _ in 0..<31 { bus.expect(.read(addr, DATAX0, le(0, 0, 256))) }
        XCTAssertEqual(try sensor.drainFIFO(at: 2) { _ in }, 31)
        bus.assertDone()
    }

    func testConfigurationCheckIsOneByteReadOfPowerControl() throws {
        let sensor = try open()
        try sensor.checkConfiguration()  // nothing configured yet: no transaction
        expectConfigure(format: 0x08, rate: 0x0A, fifo: 0x00)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 100))
        bus.expect(.read(addr, POWER_CTL, [0x08]), .read(addr, POWER_CTL, [0x00]))
        try sensor.checkConfiguration()
        // Power-on: standby (DS Register 0x2D resets to 0x00).
        XCTAssertThrowsError(try sensor.checkConfiguration()) { error in
            XCTAssertEqual(error as? SensorError, .configurationLost(register: POWER_CTL, configured: 0x08, read: 0x00,
                                                                     bus: "/dev/i2c-1", address: addr))
        }
        bus.expect(.read(addr, DEVID, [0xE5]), .read(addr, DEVID, [0xFF]))
        try sensor.reidentify()
        XCTAssertThrowsError(try sensor.reidentify()) { error in
            guard case .wrongChip(found: 0xFF, _, _, _)? = error as? SensorError else { return XCTFail("\(error)") }
        }
        bus.assertDone()
    }

    func testSleepIsStandby() throws {
        let sensor = try open()
        bus.expect(.write(addr, POWER_CTL, [0x00]))
        try sensor.sleep()
        bus.assertDone()
    }

    func testWriteOffsetsRoundsClampsAndIsRelative() throws {
        let sensor = try open()
        // 15.6 mg/LSB: X 0 − 3.2 → −3; Y 2 + 1.92 → 4; Z −1 − 192 → clamped −128.
        // Then read back: offsets that do not stick are reported.
        bus.expect(.read(addr, OFSX, [0x00, 0x02, 0xFF]), .write(addr, OFSX, [0xFD, 0x04, 0x80]),
                   .read(addr, OFSX, [0xFD, 0x04, 0x80]))
        try sensor.writeOffsets(accelOffsetG: Vector3(0.05, -0.03, 3.0), gyroBiasDps: Vector3(5, 5, 5))
        bus.expect(.read(addr, OFSX, [0xFD, 0x04, 0x80]), .write(addr, OFSX, [0xFE, 0x04, 0x80]),
                   .read(addr, OFSX, [0xFD, 0x04, 0x80]))
        assertThrows(SensorError.verifyFailed(register: OFSX, wrote: 0xFE, read: 0xFD, bus: "/dev/i2c-1", address: addr)) {
            try sensor.writeOffsets(accelOffsetG: Vector3(-0.0156, 0, 0), gyroBiasDps: nil)
        }
        bus.assertDone()
    }
}

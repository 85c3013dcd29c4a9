import XCTest
import TiltboardCore
import TiltboardDrivers

// Sub-addresses re-declared from ST's LIS3DH data sheet (DocID17530 Rev 2, Table 17 and §6.1.1),
// independently of the driver's map. Multi-byte transfers carry bit 7 (auto-increment).
private let addr: UInt8 = 0x18
private let WHO_AM_I: UInt8 = 0x0F
private let TEMP_CFG_REG: UInt8 = 0x1F
private let CTRL_REG1: UInt8 = 0x20
private let CTRL_REG2: UInt8 = 0x21
private let CTRL_REG3: UInt8 = 0x22
private let CTRL_REG5: UInt8 = 0x24
private let REFERENCE: UInt8 = 0x26
private let FIFO_CTRL_REG: UInt8 = 0x2E
private let FIFO_SRC_REG: UInt8 = 0x2F
private let INT1_CFG: UInt8 = 0x30
private let INT1_SRC: UInt8 = 0x31
private let INT1_THS: UInt8 = 0x32
private let INT1_DURATION: UInt8 = 0x33
private let CTRL_REG1_BURST: UInt8 = 0xA0
private let TEMP_CFG_REG_BURST: UInt8 = 0x9F
private let OUT_X_L_BURST: UInt8 = 0xA8

final class LIS3DHTests: XCTestCase {
    var clock: ManualClock!
    var bus: ScriptedBus!

    override func setUp() {
        clock = ManualClock(startNanoseconds: 1_000_000_000)
        bus = ScriptedBus(clock: clock)
    }

    private func open() throws -> LIS3DH {
        bus.expect(.read(addr, WHO_AM_I, [0x33]))
        return try LIS3DH(bus: bus, address: addr, clock: clock)
    }

    /// CTRL_REG1…6 as configure writes them: ODR, LPen, axes; no filter, no INT1 or INT2
    /// routing; BDU, FS, HR; FIFO_EN; the FIFO reset through bypass; then every register read
    /// back, TEMP_CFG_REG and CTRL_REG1…6 in one burst from 0x1F.
    private func expectConfigure(control1: UInt8, control4: UInt8, fifo: Bool = false, readBack: [UInt8]? = nil) {
        let controls: [UInt8] = [control1, 0, 0, control4, fifo ? 0x40 : 0, 0]
        bus.expect(.write(addr, INT1_CFG, [0x00]),
                   .write(addr, TEMP_CFG_REG, [0x00]),
                   .write(addr, CTRL_REG1_BURST, controls))
        if fifo { bus.expect(.write(addr, FIFO_CTRL_REG, [0x00])) }
        bus.expect(.write(addr, FIFO_CTRL_REG, [fifo ? 0x80 : 0x00]),
                   .read(addr, TEMP_CFG_REG_BURST, [0x00] + (readBack ?? controls)),
                   .read(addr, FIFO_CTRL_REG, [fifo ? 0x80 : 0x00]),
                   .read(addr, INT1_CFG, [0x00]))
    }

    func testIdentifies() throws {
        let sensor = try open()
        XCTAssertEqual(sensor.identity, SensorIdentity(chip: .lis3dh, part: "LIS3DH", chipID: 0x33,
                                                       bus: "/dev/i2c-1", address: 0x18))
        bus.assertDone()
    }

    func testRefusesWrongID() {
        bus.expect(.read(addr, WHO_AM_I, [0x32]))
        assertThrows(SensorError.wrongChip(found: 0x32, address: 0x18, bus: "/dev/i2c-1", expected: ExpectedChip(id: 0x33, part: "LIS3DH"))) {
            _ = try LIS3DH(bus: bus, address: addr, clock: clock)
        }
        bus.assertDone()
    }

    func testConfigureScriptAndSettlingWait() throws {
        let sensor = try open()
        let t0 = clock.nowNanoseconds()
        // 100 Hz = ODR 0101, axes on: 0x57; BDU, ±2 g, HR: 0x88.
        expectConfigure(control1: 0x57, control4: 0x88)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 100))
        bus.assertDone()
        // 2 ms boot + 7/ODR into high resolution (DS Table 11).
        XCTAssertEqual(clock.nowNanoseconds() - t0, 2_000_000 + 70_000_000)
        XCTAssertEqual(sensor.actualRateHz, 100)
    }

    func testConfigureStreamFIFOAt16g() throws {
        let sensor = try open()
        expectConfigure(control1: 0x77, control4: 0xB8, fifo: true)
        try sensor.configure(SensorConfiguration(accelRangeG: 16, rateHz: 400, useFIFO: true))
        bus.assertDone()
        XCTAssertEqual(sensor.actualRateHz, 400)
    }

    func testRatesModesAndTheirCodes() throws {
        // Nearest by ratio; 1.62 and 5.376 kHz exist in low-power mode only (LPen, 8-bit).
        let table: [(Double, UInt8, UInt8, Double, UInt64)] = [
            (0.5, 0x17, 0x88, 1, 7_000_000_000), (1, 0x17, 0x88, 1, 7_000_000_000), (12, 0x27, 0x88, 10, 700_000_000),
            (60, 0x47, 0x88, 50, 140_000_000), (1000, 0x97, 0x88, 1344, 5_208_334),
            (1600, 0x8F, 0x80, 1620, 617_284), (3000, 0x9F, 0x80, 5376, 186_012), (9000, 0x9F, 0x80, 5376, 186_012),
        ]
        for (asked, control1, control4, actual, settle) in table {
            let sensor = try open()
            let t0 = clock.nowNanoseconds()
            expectConfigure(control1: control1, control4: control4)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: asked))
            XCTAssertEqual(sensor.actualRateHz, actual, "rate \(asked)")
            XCTAssertEqual(clock.nowNanoseconds() - t0, 2_000_000 + settle, "rate \(asked)")
            bus.assertDone()
        }
    }

    func testVerifyFailureNamesTheRegister() throws {
        let sensor = try open()
        expectConfigure(control1: 0x57, control4: 0x88, readBack: [0x57, 0, 0, 0x08, 0, 0])
        assertThrows(SensorError.verifyFailed(register: 0x23, wrote: 0x88, read: 0x08, bus: "/dev/i2c-1", address: 0x18)) {
            try sensor.configure(SensorConfiguration())
        }
        XCTAssertEqual(bus.pending.count, 2)
    }

    func testUnsupportedRange() throws {
        let sensor = try open()
        assertThrows(SensorError.unsupportedSetting(.accelerometerRange(g: 6), chip: "LIS3DH", allowed: .oneOf([2, 4, 8, 16]))) {
            try sensor.configure(SensorConfiguration(accelRangeG: 6))
        }
        bus.assertDone()
    }

    func testLeftJustifiedDataInEveryRange() throws {
        // High resolution: the top 12 bits, 1/2/4/12 mg per digit (±16 g is 12 mg, not 8).
        for (range, control4, mg) in [(2, UInt8(0x88), 1.0), (4, 0x98, 2.0), (8, 0xA8, 4.0), (16, 0xB8, 12.0)] {
            let sensor = try open()
            expectConfigure(control1: 0x57, control4: control4)
            try sensor.configure(SensorConfiguration(accelRangeG: range))
            // 1000 digits, −500 digits, 2047 digits, each shifted left by 4, little-endian.
            bus.expect(.read(addr, OUT_X_L_BURST, le(1000 << 4, -500 << 4, 2047 << 4)))
            let s = try sensor.read(at: 3)
            XCTAssertEqual(s.t, 3)
            XCTAssertEqual(s.accel.x, 1000 * mg / 1000, accuracy: 1e-12)
            XCTAssertEqual(s.accel.y, -500 * mg / 1000, accuracy: 1e-12)
            XCTAssertEqual(s.accel.z, 2047 * mg / 1000, accuracy: 1e-12)
            XCTAssertNil(s.gyro)
            XCTAssertNil(s.tempC)
            bus.assertDone()
        }
    }

    func testLowPowerDataAreTheTopEightBits() throws {
        let sensor = try open()
        expectConfigure(control1: 0x9F, control4: 0x80)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 5376))
        // 62 digits of 16 mg; the low byte's bits are below the 8-bit value and ignored.
        bus.expect(.read(addr, OUT_X_L_BURST, [0xFF, 62, 0x00, 0xC2, 0x80, 0x00]))
        let s = try sensor.read(at: 0)
        XCTAssertEqual(s.accel, Vector3(62 * 0.016, -62 * 0.016, 0))
        bus.assertDone()
    }

    func testDrainCountsFromFIFOSource() throws {
        let sensor = try open()
        expectConfigure(control1: 0x67, control4: 0x88, fifo: true)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 200, useFIFO: true))
        // FSS 3 (watermark set too): three 6-byte bursts from OUT_X_L.
        bus.expect(.read(addr, FIFO_SRC_REG, [0x83]),
                   .read(addr, OUT_X_L_BURST, le(1000 << 4, 0, 0)), .read(addr, OUT_X_L_BURST, le(0, 1000 << 4, 0)),
                   .read(addr, OUT_X_L_BURST, le(0, 0, 1000 << 4)))
        var samples: [Sample] = []
        XCTAssertEqual(try sensor.drainFIFO(at: 10) { samples.append($0) }, 3)
        XCTAssertEqual(samples.map(\.accel), [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)])
        XCTAssertEqual(samples.first?.t ?? 0, 9.99, accuracy: 1e-12)
        XCTAssertEqual(samples.last?.t, 10)
        // EMPTY: nothing read.
        bus.expect(.read(addr, FIFO_SRC_REG, [0x20]))
        XCTAssertEqual(try sensor.drainFIFO(at: 11) { _ in XCTFail("no sample expected") }, 0)
        // OVRN_FIFO: 32 held, whatever FSS shows.
        bus.expect(.read(addr, FIFO_SRC_REG, [0xDF]))
        for _ in 0..<32 { bus.expect(.read(addr, OUT_X_L_BURST, le(0, 0, 1000 << 4))) }
        XCTAssertEqual(try sensor.drainFIFO(at: 12) { _ in }, 32)
        bus.assertDone()
    }

    func testConfigurationCheckIsOneByteReadOfCTRLREG1() throws {
        let sensor = try open()
        try sensor.checkConfiguration()  // nothing configured yet: no transaction
        expectConfigure(control1: 0x57, control4: 0x88)
        try sensor.configure(SensorConfiguration())
        bus.expect(.read(addr, CTRL_REG1, [0x57]), .read(addr, CTRL_REG1, [0x07]))
        try sensor.checkConfiguration()
        // Power-on: CTRL_REG1 0x07, power-down (DS Table 17).
        assertThrows(SensorError.configurationLost(register: 0x20, configured: 0x57, read: 0x07, bus: "/dev/i2c-1", address: 0x18)) {
            try sensor.checkConfiguration()
        }
        bus.assertDone()
    }

    func testSleepIsPowerDownKeepingTheAxes() throws {
        let sensor = try open()
        bus.expect(.write(addr, CTRL_REG1, [0x07]))
        try sensor.sleep()
        bus.assertDone()
    }

    func testNoOffsetRegisters() throws {
        let sensor = try open()
        assertThrows(SensorError.unsupportedSetting(.offsetRegisters, chip: "LIS3DH", allowed: .noOffsetRegisters)) {
            try sensor.writeOffsets(accelOffsetG: Vector3(0.01, 0, 0), gyroBiasDps: nil)
        }
        bus.assertDone()
    }

    func testArmsGenerator1OnHighPassDataLatchedOnINT1() throws {
        let sensor = try open()
        expectConfigure(control1: 0x57, control4: 0x98)
        try sensor.configure(SensorConfiguration(accelRangeG: 4))
        // ±4 g: 32 mg per INT1_THS step, so 0.1 g → 3.
        bus.expect(.write(addr, INT1_CFG, [0x00]),
                   .write(addr, CTRL_REG2, [0x21]),       // HP_IA1, HPM 00, HPCF 2: 0.5 Hz at 100 Hz
                   .write(addr, INT1_THS, [3]),
                   .write(addr, INT1_DURATION, [0]),
                   .write(addr, CTRL_REG5, [0x08]),       // LIR_INT1
                   .read(addr, REFERENCE, [0]),           // restarts the high-pass at the current pose
                   .read(addr, INT1_SRC, [0x40]),         // clears an event latched before
                   .write(addr, CTRL_REG3, [0x40]),       // I1_IA1
                   .write(addr, INT1_CFG, [0x2A]))        // XHIE | YHIE | ZHIE, OR
        try sensor.armMotionInterrupt(thresholdG: 0.1)
        bus.expect(.read(addr, INT1_SRC, [0x42]), .read(addr, INT1_SRC, [0x00]))
        XCTAssertTrue(try sensor.acknowledgeMotionInterrupt())
        XCTAssertFalse(try sensor.acknowledgeMotionInterrupt())
        bus.assertDone()
    }

    func testMotionThresholdLimits() throws {
        let sensor = try open()
        expectConfigure(control1: 0x57, control4: 0x88)
        try sensor.configure(SensorConfiguration(accelRangeG: 2))
        // 7-bit INT1_THS of 16 mg at ±2 g: at most 2.032 g; a tiny threshold is one step.
        assertThrows(SensorError.unsupportedSetting(.motionThreshold(g: 2.1), chip: "LIS3DH", allowed: .upToG(127 * 0.016))) {
            try sensor.armMotionInterrupt(thresholdG: 2.1)
        }
        bus.expect(.write(addr, INT1_CFG, [0]), .write(addr, CTRL_REG2, [0x21]), .write(addr, INT1_THS, [1]),
                   .write(addr, INT1_DURATION, [0]), .write(addr, CTRL_REG5, [0x08]), .read(addr, REFERENCE, [0]),
                   .read(addr, INT1_SRC, [0]), .write(addr, CTRL_REG3, [0x40]), .write(addr, INT1_CFG, [0x2A]))
        try sensor.armMotionInterrupt(thresholdG: 0.001)
        bus.assertDone()
    }
}

import XCTest
import TiltboardCore
import TiltboardDrivers

// Register addresses re-declared from the data sheet (RM-MPU-6000A-00 Rev 4.2), independently
// of the driver's tables, so these tests check the driver against the data sheet.
private let addr: UInt8 = 0x68
private let XA_OFFS_H: UInt8 = 0x06
private let XG_OFFS_USRH: UInt8 = 0x13
private let SMPLRT_DIV: UInt8 = 0x19
private let CONFIG: UInt8 = 0x1A
private let GYRO_CONFIG: UInt8 = 0x1B
private let ACCEL_CONFIG: UInt8 = 0x1C
private let FIFO_EN: UInt8 = 0x23
private let ACCEL_XOUT_H: UInt8 = 0x3B
private let USER_CTRL: UInt8 = 0x6A
private let PWR_MGMT_1: UInt8 = 0x6B
private let FIFO_COUNTH: UInt8 = 0x72
private let FIFO_R_W: UInt8 = 0x74
private let WHO_AM_I: UInt8 = 0x75

private let ms: UInt64 = 1_000_000

final class MPU6050Tests: XCTestCase {
    var clock: ManualClock!
    var bus: ScriptedBus!

    override func setUp() {
        clock = ManualClock(startNanoseconds: 5_000 * ms)
        bus = ScriptedBus(clock: clock)
    }

    private func open(whoAmI: UInt8 = 0x68) throws -> MPU6050 {
        bus.expect(.read(addr, WHO_AM_I, [whoAmI]))
        return try MPU6050(bus: bus, address: addr, clock: clock)
    }

    /// The exact configure transaction script; `readBack` overrides what the chip returns.
    private func expectConfigure(divider: UInt8, dlpf: UInt8, gyro: UInt8, accel: UInt8, fifo: Bool,
                                 readBack: [UInt8]? = nil, powerReadBack: UInt8 = 0x01) {
        bus.expect(.write(addr, PWR_MGMT_1, [0x80]),
                   .write(addr, PWR_MGMT_1, [0x01]),
                   .write(addr, SMPLRT_DIV, [divider]),
                   .write(addr, CONFIG, [dlpf]),
                   .write(addr, GYRO_CONFIG, [gyro]),
                   .write(addr, ACCEL_CONFIG, [accel]))
        if fifo {
            bus.expect(.write(addr, USER_CTRL, [0x04]), .write(addr, FIFO_EN, [0xF8]), .write(addr, USER_CTRL, [0x40]))
        } else {
            bus.expect(.write(addr, FIFO_EN, [0x00]), .write(addr, USER_CTRL, [0x00]))
        }
        bus.expect(.read(addr, SMPLRT_DIV, readBack ?? [divider, dlpf, gyro, accel]),
                   .read(addr, FIFO_EN, [fifo ? 0xF8 : 0x00]),
                   .read(addr, USER_CTRL, [fifo ? 0x40 : 0x00, powerReadBack]))
    }

    // MARK: Identity

    func testIdentifiesGenuinePartWithOneRead() throws {
        let sensor = try open()
        XCTAssertEqual(sensor.identity, SensorIdentity(chip: .mpu6050, part: "MPU-6050", chipID: 0x68,
                                                       bus: "/dev/i2c-1", address: 0x68, warning: nil))
        bus.assertDone()
    }

    func testAcceptsKnownClonesWithWarningNamingThePart() throws {
        let cases: [(UInt8, String)] = [
            (0x70, "MPU-6500 (clone ID 0x70)"), (0x71, "MPU-9250 (clone ID 0x71)"),
            (0x72, "MPU-6050 clone (ID 0x72, seen on GY-521 boards)"), (0x73, "MPU-9255 (clone ID 0x73)"),
            (0x98, "ICM-20689 (clone ID 0x98)"),
        ]
        for (id, part) in cases {
            let sensor = try open(whoAmI: id)
            XCTAssertEqual(sensor.identity.part, part)
            XCTAssertEqual(sensor.identity.chipID, id)
            XCTAssertNotNil(sensor.identity.warning)
        }
        let sensor = try open(whoAmI: 0x70)
        XCTAssertEqual(sensor.identity.warning, CloneWarning(idRegister: "WHO_AM_I", part: "MPU-6500", genuinePart: "MPU-6050"))
        bus.assertDone()
    }

    func testRefusesUnknownIDWithExactMessage() {
        bus.expect(.read(addr, WHO_AM_I, [0x00]))
        let expected = SensorError.wrongChip(found: 0x00, address: 0x68, bus: "/dev/i2c-1",
                                             expected: ExpectedChip(id: 0x68, part: "MPU-6050", compatibleIDs: [0x70, 0x71, 0x72, 0x73, 0x98]))
        assertThrows(expected) { _ = try MPU6050(bus: bus, address: addr, clock: clock) }
        bus.assertDone()
    }

    // MARK: Configure

    func testConfigureScriptAndWaitsComeFromTheClock() throws {
        let sensor = try open()
        let t0 = clock.nowNanoseconds()
        expectConfigure(divider: 9, dlpf: 3, gyro: 0x08, accel: 0x00, fifo: false)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 100, useFIFO: false))
        bus.assertDone()
        // Transaction 0 was WHO_AM_I. Reset at t0, wake 100 ms later (no polling read between),
        // registers 10 ms after wake, FIFO/USER_CTRL after the 60 ms gyro settle.
        let t = bus.times.map { $0 - t0 }
        XCTAssertEqual(Array(t[1...]), [0, 100, 110, 110, 110, 110, 160, 160, 160, 160, 160].map { $0 * ms })
        XCTAssertEqual(sensor.actualRateHz, 100)
        XCTAssertEqual(sensor.configuration.rateHz, 100)
    }

    func testConfigureFIFOAtFullScaleToleratesSelfClearingAndReservedBits() throws {
        let sensor = try open()
        // Reserved CONFIG bits 7:6 and GYRO/ACCEL_CONFIG bits 2:0 set, DEVICE_RESET still set
        // (i2c-stub never clears it): all masked out of the check.
        expectConfigure(divider: 0, dlpf: 1, gyro: 0x18, accel: 0x18, fifo: true,
                        readBack: [0x00, 0xC1, 0x1F, 0x1B], powerReadBack: 0x81)
        try sensor.configure(SensorConfiguration(accelRangeG: 16, gyroRangeDps: 2000, rateHz: 1000, useFIFO: true))
        bus.assertDone()
        XCTAssertEqual(sensor.actualRateHz, 1000)
    }

    func testRateAndFilterSelection() throws {
        // (asked Hz, SMPLRT_DIV, DLPF_CFG, actual Hz): 1 kHz base; bandwidth ≤ rate / 2 like Linux.
        let table: [(Double, UInt8, UInt8, Double)] = [
            (1, 249, 6, 4), (4, 249, 6, 4), (25, 39, 5, 25), (50, 19, 4, 50), (83, 11, 4, 1000.0 / 12), (91, 10, 3, 1000.0 / 11), (100, 9, 3, 100),
            (200, 4, 2, 200), (333, 2, 2, 1000.0 / 3), (500, 1, 1, 500), (1000, 0, 1, 1000), (8000, 0, 1, 1000),
        ]
        for (asked, divider, dlpf, actual) in table {
            let sensor = try open()
            expectConfigure(divider: divider, dlpf: dlpf, gyro: 0x00, accel: 0x00, fifo: false)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 250, rateHz: asked))
            XCTAssertEqual(sensor.actualRateHz, actual, accuracy: 1e-9, "rate \(asked)")
            bus.assertDone()
        }
    }

    func testVerifyFailureNamesRegisterAndValues() throws {
        let sensor = try open()
        expectConfigure(divider: 9, dlpf: 3, gyro: 0x08, accel: 0x00, fifo: false, readBack: [9, 3, 0x00, 0x00])
        // The driver stops at the first mismatch: the later read-backs are never issued.
        let expected = SensorError.verifyFailed(register: 0x1B, wrote: 0x08, read: 0x00, bus: "/dev/i2c-1", address: 0x68)
        assertThrows(expected) {
            try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 100))
        }
        XCTAssertEqual(bus.pending.count, 2)
    }

    func testUnsupportedRangeIsRefusedBeforeAnyTransaction() throws {
        let sensor = try open()
        let before = bus.transactions
        assertThrows(SensorError.unsupportedSetting(.accelerometerRange(g: 3), chip: "MPU-6050", allowed: .oneOf([2, 4, 8, 16]))) {
            try sensor.configure(SensorConfiguration(accelRangeG: 3))
        }
        assertThrows(SensorError.unsupportedSetting(.gyroRange(degreesPerSecond: 300), chip: "MPU-6050", allowed: .oneOf([250, 500, 1000, 2000]))) {
            try sensor.configure(SensorConfiguration(gyroRangeDps: 300))
        }
        assertThrows(SensorError.unsupportedSetting(.sampleRate(hz: 0), chip: "MPU-6050", allowed: .positiveRate)) {
            try sensor.configure(SensorConfiguration(rateHz: 0))
        }
        XCTAssertEqual(bus.transactions, before)
    }

    // MARK: Read and conversion

    func testConversionForEveryRange() throws {
        // Data sheet sensitivities (PS 6.1/6.2): LSB per g and per °/s by range.
        let accel: [(Int, UInt8, Double)] = [(2, 0x00, 16384), (4, 0x08, 8192), (8, 0x10, 4096), (16, 0x18, 2048)]
        let gyro: [(Int, UInt8, Double)] = [(250, 0x00, 131), (500, 0x08, 65.5), (1000, 0x10, 32.8), (2000, 0x18, 16.4)]
        for i in 0..<4 {
            let sensor = try open()
            expectConfigure(divider: 9, dlpf: 3, gyro: gyro[i].1, accel: accel[i].1, fifo: false)
            try sensor.configure(SensorConfiguration(accelRangeG: accel[i].0, gyroRangeDps: gyro[i].0, rateHz: 100))
            bus.expect(.read(addr, ACCEL_XOUT_H, be(16384, -8192, 32767, -521, 131, -32768, 1000)))
            let s = try sensor.read(at: 1.5)
            XCTAssertEqual(s.t, 1.5)
            XCTAssertEqual(s.accel.x, 16384 / accel[i].2, accuracy: 1e-12)
            XCTAssertEqual(s.accel.y, -8192 / accel[i].2, accuracy: 1e-12)
            XCTAssertEqual(s.accel.z, 32767 / accel[i].2, accuracy: 1e-12)
            XCTAssertEqual(s.gyro!.x, 131 / gyro[i].2, accuracy: 1e-12)
            XCTAssertEqual(s.gyro!.y, -32768 / gyro[i].2, accuracy: 1e-12)
            XCTAssertEqual(s.gyro!.z, 1000 / gyro[i].2, accuracy: 1e-12)
            XCTAssertEqual(s.tempC!, 35.0, accuracy: 0.01)  // −521 LSB at 35 °C (PS 6.3)
            bus.assertDone()
        }
    }

    func testTemperatureFormula() throws {
        let sensor = try open()
        for (raw, celsius) in [(Int16(0), 36.53), (340, 37.53), (-3400, 26.53)] {
            bus.expect(.read(addr, ACCEL_XOUT_H, be(0, 0, 0, raw, 0, 0, 0)))
            XCTAssertEqual(try sensor.read(at: 0).tempC!, celsius, accuracy: 1e-9)
        }
        bus.assertDone()
    }

    func testBusErrorsMidReadAreTypedAndTheNextReadSucceeds() throws {
        let sensor = try open()
        let eio = I2CError(kind: .bus, device: "/dev/i2c-1", address: 0x68, register: 0x3B, errno: 5,
                           detail: "Input/output error")
        let nack = I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x68, register: 0x3B,
                            errno: 121, detail: "Remote I/O error")
        bus.expect(.readFails(addr, ACCEL_XOUT_H, count: 14, eio),
                   .read(addr, ACCEL_XOUT_H, be(16384, 0, 0, 0, 0, 0, 0)),
                   .readFails(addr, ACCEL_XOUT_H, count: 14, nack),
                   .read(addr, ACCEL_XOUT_H, be(0, 16384, 0, 0, 0, 0, 0)))
        assertThrows(eio) { _ = try sensor.read(at: 0) }
        XCTAssertEqual(try sensor.read(at: 0.01).accel, Vector3(1, 0, 0))
        assertThrows(nack) { _ = try sensor.read(at: 0.02) }
        XCTAssertEqual(try sensor.read(at: 0.03).accel, Vector3(0, 1, 0))
        bus.assertDone()
    }

    // MARK: FIFO

    private func openWithFIFO(rateHz: Double = 100) throws -> MPU6050 {
        let sensor = try open()
        expectConfigure(divider: 9, dlpf: 3, gyro: 0x08, accel: 0x00, fifo: true)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: rateHz, useFIFO: true))
        // The first frame after start-up is dropped (its gyro sample is out of specification).
        bus.expect(.read(addr, FIFO_COUNTH, [0x00, 14]), .readFIFO(addr, FIFO_R_W, be(1, 2, 3, 4, 5, 6, 7)))
        XCTAssertEqual(try sensor.drainFIFO(at: 0) { _ in XCTFail("the first frame is skipped") }, 0)
        return sensor
    }

    func testDrainReadsWholeFramesInOneBurstAndSpacesTimes() throws {
        let sensor = try openWithFIFO()
        let frames = be(16384, 0, 0, 340, 655, 0, 0) + be(0, -16384, 0, 0, 0, 655, 0)
        // 30 bytes waiting: two whole frames are read, the 2-byte partial frame stays.
        bus.expect(.read(addr, FIFO_COUNTH, [0x00, 30]), .readFIFO(addr, FIFO_R_W, frames))
        var samples: [Sample] = []
        let n = try sensor.drainFIFO(at: 2.0) { samples.append($0) }
        XCTAssertEqual(n, 2)
        XCTAssertEqual(samples[0].t, 1.99, accuracy: 1e-12)
        XCTAssertEqual(samples[1].t, 2.0)
        XCTAssertEqual(samples[0].accel, Vector3(1, 0, 0))
        XCTAssertEqual(samples[0].gyro!.x, 10, accuracy: 1e-12)
        XCTAssertEqual(samples[0].tempC!, 37.53, accuracy: 1e-9)
        XCTAssertEqual(samples[1].accel, Vector3(0, -1, 0))
        XCTAssertEqual(samples[1].gyro!.y, 10, accuracy: 1e-12)
        XCTAssertEqual(sensor.fifoOverflows, 0)
        bus.assertDone()
    }

    func testDrainOfAFullBatchUsesOneDataTransaction() throws {
        let sensor = try openWithFIFO()
        // 70 frames = 980 bytes, just under the 1024 − 3·14 = 982 reset margin.
        bus.expect(.read(addr, FIFO_COUNTH, [0x03, 0xD4]), .readFIFO(addr, FIFO_R_W, [UInt8](repeating: 0, count: 980)))
        XCTAssertEqual(try sensor.drainFIFO(at: 1) { _ in }, 70)
        bus.assertDone()
    }

    func testEmptyFIFOReadsNoData() throws {
        let sensor = try openWithFIFO()
        bus.expect(.read(addr, FIFO_COUNTH, [0x00, 13]))
        XCTAssertEqual(try sensor.drainFIFO(at: 1) { _ in XCTFail("no sample expected") }, 0)
        bus.assertDone()
    }

    func testOverflowResetsTheFIFOAndCountsIt() throws {
        let sensor = try openWithFIFO()
        // Overflowed: the count stays at the full 1024 bytes.
        bus.expect(.read(addr, FIFO_COUNTH, [0x04, 0x00]),
                   .write(addr, USER_CTRL, [0x04]), .write(addr, USER_CTRL, [0x40]))
        XCTAssertEqual(try sensor.drainFIFO(at: 1) { _ in XCTFail("no sample expected") }, 0)
        XCTAssertEqual(sensor.fifoOverflows, 1)
        // Not yet full, but at the 982-byte margin where the next frame could be cut.
        bus.expect(.read(addr, FIFO_COUNTH, [0x03, 0xD6]),
                   .write(addr, USER_CTRL, [0x04]), .write(addr, USER_CTRL, [0x40]))
        XCTAssertEqual(try sensor.drainFIFO(at: 2) { _ in }, 0)
        XCTAssertEqual(sensor.fifoOverflows, 2)
        bus.assertDone()
    }

    // MARK: Health after a bus failure

    func testConfigurationCheckIsOneByteReadOfPowerManagement() throws {
        let sensor = try open()
        // Nothing configured yet: nothing to check, no transaction.
        try sensor.checkConfiguration()
        XCTAssertEqual(bus.transactions, 1)
        expectConfigure(divider: 9, dlpf: 3, gyro: 0x08, accel: 0x00, fifo: false)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 100))
        // Held: PLL-X, awake (the reserved bit 4 and DEVICE_RESET do not count).
        bus.expect(.read(addr, PWR_MGMT_1, [0x01]), .read(addr, PWR_MGMT_1, [0x91]))
        try sensor.checkConfiguration()
        try sensor.checkConfiguration()
        // A power-on reset: SLEEP set, internal oscillator (RM p.8: PWR_MGMT_1 resets to 0x40).
        bus.expect(.read(addr, PWR_MGMT_1, [0x40]))
        XCTAssertThrowsError(try sensor.checkConfiguration()) { error in
            XCTAssertEqual(error as? SensorError, .configurationLost(register: PWR_MGMT_1, configured: 0x01, read: 0x40,
                                                                     bus: "/dev/i2c-1", address: addr))
        }
        // Awake but on the internal oscillator: what a part whose OTP clears SLEEP comes back as.
        bus.expect(.read(addr, PWR_MGMT_1, [0x00]))
        XCTAssertThrowsError(try sensor.checkConfiguration())
        bus.assertDone()
    }

    func testReidentifyReadsWhoAmIAndWantsTheSameID() throws {
        let sensor = try open(whoAmI: 0x70)
        bus.expect(.read(addr, WHO_AM_I, [0x70]), .read(addr, WHO_AM_I, [0x68]))
        try sensor.reidentify()
        XCTAssertThrowsError(try sensor.reidentify()) { error in
            XCTAssertEqual(error as? SensorError, .wrongChip(found: 0x68, address: addr, bus: "/dev/i2c-1",
                                                             expected: ExpectedChip(id: 0x70, part: "MPU-6500 (clone ID 0x70)", asWhenOpened: true)))
        }
        bus.assertDone()
    }

    // MARK: Sleep and offsets

    func testSleepSetsSleepBitKeepingTheClock() throws {
        let sensor = try open()
        bus.expect(.write(addr, PWR_MGMT_1, [0x41]))
        try sensor.sleep()
        bus.assertDone()
    }

    func testWriteOffsetsIsRelativeToFactoryTrimAndKeepsBitZero() throws {
        let sensor = try open()
        // Factory X = 0x0A51 (bit 0 set), Y = −4096, Z = 0x1235; gyro offsets zero.
        bus.expect(.read(addr, XA_OFFS_H, [0x0A, 0x51, 0xF0, 0x00, 0x12, 0x35]),
                   // X: 0.01 g × 2048 = 20.48 → −20 (even); Y: +40; Z: 0.5 g → −1024.
                   .write(addr, XA_OFFS_H, [0x0A, 0x3D, 0xF0, 0x28, 0x0E, 0x35]),
                   .read(addr, XG_OFFS_USRH, [0, 0, 0, 0, 0, 0]),
                   // ±1000 °/s format, 32.8 LSB/(°/s): +1 → −33, −2 → +66, +0.5 → −16.
                   .write(addr, XG_OFFS_USRH, be(-33, 66, -16)),
                   // Both blocks read back.
                   .read(addr, XA_OFFS_H, [0x0A, 0x3D, 0xF0, 0x28, 0x0E, 0x35]),
                   .read(addr, XG_OFFS_USRH, be(-33, 66, -16)))
        try sensor.writeOffsets(accelOffsetG: Vector3(0.01, -0.02, 0.5), gyroBiasDps: Vector3(1, -2, 0.5))
        bus.assertDone()
    }

    func testWriteOffsetsWithoutGyroAndSaturating() throws {
        let sensor = try open()
        bus.expect(.read(addr, XA_OFFS_H, be(32001, -32000, 0)),
                   .write(addr, XA_OFFS_H, be(-32767, 32766, 0)),
                   .read(addr, XA_OFFS_H, be(-32767, 32766, 0)))
        try sensor.writeOffsets(accelOffsetG: Vector3(100, -100, 0), gyroBiasDps: nil)
        bus.assertDone()
    }

    func testWriteOffsetsOnMPU6500UsesItsOffsetRegisters() throws {
        let sensor = try open(whoAmI: 0x70)
        // All three read before any write, so a failed read leaves the chip untouched.
        bus.expect(.read(addr, 0x77, be(100)), .read(addr, 0x7A, be(0)), .read(addr, 0x7D, be(-1)),
                   .write(addr, 0x77, be(100 - 2048)), .write(addr, 0x7A, be(0)), .write(addr, 0x7D, be(-1 + 2048)),
                   .read(addr, 0x77, be(100 - 2048)), .read(addr, 0x7A, be(0)), .read(addr, 0x7D, be(-1 + 2048)))
        try sensor.writeOffsets(accelOffsetG: Vector3(1, 0, -1), gyroBiasDps: nil)
        // A part that drops the write (as the simulator once did past 0x75) is caught by the read-back.
        bus.expect(.read(addr, 0x77, be(100)), .read(addr, 0x7A, be(0)), .read(addr, 0x7D, be(-1)),
                   .write(addr, 0x77, be(100 - 2048)), .write(addr, 0x7A, be(0)), .write(addr, 0x7D, be(-1 + 2048)),
                   .read(addr, 0x77, be(100)))
        assertThrows(SensorError.verifyFailed(register: 0x77, wrote: 0xF8, read: 0x00, bus: "/dev/i2c-1", address: addr)) {
            try sensor.writeOffsets(accelOffsetG: Vector3(1, 0, -1), gyroBiasDps: nil)
        }
        bus.assertDone()
    }
}

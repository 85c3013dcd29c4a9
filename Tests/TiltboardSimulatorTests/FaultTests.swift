import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// Scheduled faults on the simulated bus, and the chips' power-on state after a reset. Register
/// addresses and power-on values are re-declared from the data sheets (MPU-6050 RM Rev 4.2 p.8,
/// ADXL345 DS Rev E register map), independently of the drivers' maps the simulator uses.
final class FaultTests: XCTestCase {
    private let mpu: UInt8 = 0x68
    private let adxl: UInt8 = 0x53

    private func mpuBus(_ faults: [SimulatedFault]) -> (SimulatedI2CBus, ManualClock) {
        let clock = ManualClock(startNanoseconds: 7_000_000_000)
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMPU6050(clock: clock, motion: Constant(accel: .unitZ)), at: mpu)
        bus.schedule(faults: faults, address: mpu, clock: clock)
        return (bus, clock)
    }

    /// Reads `register` at `seconds` after the plan started: the byte, or the error.
    private func read(_ bus: SimulatedI2CBus, _ clock: ManualClock, at seconds: Double, _ address: UInt8,
                      _ register: UInt8) -> Result<UInt8, I2CError> {
        clock.set(nanoseconds: 7_000_000_000 + Nanoseconds.span(seconds: seconds, rounded: .toNearestOrAwayFromZero))
        do { return .success(try bus.readByte(address: address, register: register)) } catch {
            return .failure(error as! I2CError)
        }
    }

    func testNackAndEIOWindowsFailEveryTransactionWithTheKernelsErrnoAndKeepTheChip() throws {
        let (bus, clock) = mpuBus([SimulatedFault(at: 1, kind: .nack, seconds: 0.5),
                                   SimulatedFault(at: 2, kind: .eio, seconds: 0.25)])
        try bus.writeByte(address: mpu, register: 0x19, value: 9)  // SMPLRT_DIV
        XCTAssertEqual(read(bus, clock, at: 0.999, mpu, 0x75), .success(0x68))
        for t in [1.0, 1.25, 1.499] {
            guard case let .failure(e) = read(bus, clock, at: t, mpu, 0x75) else { return XCTFail("read at \(t) s went through") }
            // What a Pi's adapter reports for a NACK: EREMOTEIO, "Remote I/O error".
            XCTAssertEqual(e.errno, 121)
            XCTAssertEqual(e.kind, .noAcknowledgeAddress)
            XCTAssertEqual(e.register, 0x75)
        }
        XCTAssertThrowsError(try bus.writeByte(address: mpu, register: 0x19, value: 1))  // writes fail too
        XCTAssertEqual(read(bus, clock, at: 1.5, mpu, 0x19), .success(9), "the chip kept its registers")
        guard case let .failure(e) = read(bus, clock, at: 2.1, mpu, 0x19) else { return XCTFail("EIO window went through") }
        XCTAssertEqual(e.kind, .bus)
        XCTAssertEqual(e.errno, 5)
        XCTAssertEqual(read(bus, clock, at: 2.25, mpu, 0x19), .success(9))
    }

    func testUnplugGoesUnansweredThenTheChipIsBackAsleepAtPowerOn() throws {
        let (bus, clock) = mpuBus([SimulatedFault(at: 5, kind: .unplug, seconds: 2)])
        try bus.writeByte(address: mpu, register: 0x6B, value: 0x01)  // awake, PLL-X
        try bus.writeByte(address: mpu, register: 0x1C, value: 0x10)  // ±8 g
        XCTAssertEqual(read(bus, clock, at: 4.9, mpu, 0x6B), .success(0x01))
        guard case let .failure(e) = read(bus, clock, at: 6.9, mpu, 0x75) else { return XCTFail("answered while unplugged") }
        XCTAssertEqual(e, I2CError(kind: .noAcknowledgeAddress, device: "simulated", address: mpu, register: 0x75,
                                   detail: "simulated: unplugged"))
        XCTAssertEqual(read(bus, clock, at: 7, mpu, 0x75), .success(0x68))
        XCTAssertEqual(read(bus, clock, at: 7, mpu, 0x6B), .success(0x40), "asleep, as at power-on")
        XCTAssertEqual(read(bus, clock, at: 7, mpu, 0x1C), .success(0x00))
    }

    func testResetReturnsTheMPU6050ToItsPowerOnRegistersAndZeroData() throws {
        let (bus, clock) = mpuBus([SimulatedFault(at: 3, kind: .reset)])
        // Configured and sampling, with offsets written, as a driver leaves it.
        try bus.write(address: mpu, register: 0x13, bytes: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        try bus.write(address: mpu, register: 0x19, bytes: [9, 3, 0x08, 0x08])
        try bus.write(address: mpu, register: 0x23, bytes: [0xF8])
        try bus.write(address: mpu, register: 0x6A, bytes: [0x40, 0x01])
        clock.set(nanoseconds: 7_000_000_000 + 2_900_000_000)
        XCTAssertNotEqual(try bus.read(address: mpu, register: 0x3B, count: 14), Array(repeating: 0, count: 14))
        XCTAssertEqual(read(bus, clock, at: 2.999, mpu, 0x6B), .success(0x01))

        clock.set(nanoseconds: 7_000_000_000 + 3_000_000_000)
        // 0x00…0x73 in one burst (0x74 is the FIFO port, which does not advance), then WHO_AM_I.
        let registers = try bus.read(address: mpu, register: 0x00, count: 0x74)
        var expected = [UInt8](repeating: 0, count: 0x74)
        for (register, value) in SimulatedMPU6050.factoryRegisters { expected[Int(register)] = value }
        for (axis, trim) in SimulatedMPU6050.factoryAccelOffsets.enumerated() {  // XA/YA/ZA_OFFS_H at 0x06/0x08/0x0A
            expected[0x06 + 2 * axis] = UInt8(trim >> 8)
            expected[0x07 + 2 * axis] = UInt8(trim & 0xFF)
        }
        expected[0x6B] = 0x40  // PWR_MGMT_1: SLEEP, internal oscillator
        for r in 0..<0x74 where registers[r] != expected[r] {
            XCTFail("register \(UInt8(r).hex) is \(registers[r].hex) after the reset, want \(expected[r].hex)")
        }
        XCTAssertEqual(read(bus, clock, at: 3, mpu, 0x75), .success(0x68))
        // Asleep: the data registers stay zero, however long it waits.
        clock.set(nanoseconds: 7_000_000_000 + 4_000_000_000)
        XCTAssertEqual(try bus.read(address: mpu, register: 0x3B, count: 14), Array(repeating: 0, count: 14))
    }

    func testResetReturnsTheADXL345ToItsPowerOnRegisters() throws {
        let clock = ManualClock(startNanoseconds: 7_000_000_000)
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedADXL345(clock: clock, motion: Constant(accel: .unitZ)), at: adxl)
        bus.schedule(faults: [SimulatedFault(at: 1, kind: .reset)], address: adxl, clock: clock)
        try bus.write(address: adxl, register: 0x1E, bytes: [0x05, 0xFB, 0x10])  // OFSX/Y/Z
        try bus.write(address: adxl, register: 0x2C, bytes: [0x0F])              // BW_RATE 3200 Hz
        try bus.write(address: adxl, register: 0x31, bytes: [0x0B])              // FULL_RES ±16 g
        try bus.write(address: adxl, register: 0x38, bytes: [0x90])              // stream, watermark 16
        try bus.write(address: adxl, register: 0x2D, bytes: [0x08])              // measure
        clock.set(nanoseconds: 7_500_000_000)
        XCTAssertNotEqual(try bus.read(address: adxl, register: 0x39, count: 1), [0], "entries queued")

        clock.set(nanoseconds: 8_000_000_000)
        XCTAssertEqual(try bus.readByte(address: adxl, register: 0x00), 0xE5)            // DEVID
        XCTAssertEqual(try bus.read(address: adxl, register: 0x1D, count: 0x2B - 0x1D), Array(repeating: 0, count: 14))
        XCTAssertEqual(try bus.read(address: adxl, register: 0x2C, count: 4), [0x0A, 0x00, 0x00, 0x00])  // BW_RATE … INT_MAP
        XCTAssertEqual(try bus.readByte(address: adxl, register: 0x30), 0x02)            // INT_SOURCE: Watermark
        XCTAssertEqual(try bus.read(address: adxl, register: 0x31, count: 9), Array(repeating: 0, count: 9))
        // Standby: no conversions after the reset.
        clock.set(nanoseconds: 9_000_000_000)
        XCTAssertEqual(try bus.read(address: adxl, register: 0x32, count: 6), Array(repeating: 0, count: 6))
        XCTAssertEqual(try bus.readByte(address: adxl, register: 0x39), 0)
    }

    func testTheChipAtAnotherAddressIsUntouched() throws {
        let (bus, clock) = mpuBus([SimulatedFault(at: 1, kind: .unplug, seconds: 1)])
        bus.attach(SimulatedADXL345(clock: clock, motion: Constant(accel: .unitZ)), at: adxl)
        XCTAssertEqual(read(bus, clock, at: 1.5, adxl, 0x00), .success(0xE5))
    }
}

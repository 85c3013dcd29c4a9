import XCTest
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator

/// The LSM9DS1 and ICM-20948 drivers against their simulated parts: every range round trip,
/// the FIFO, and the ICM-20948's register bank at every transaction, after a failure and a reset.
final class LSM9DS1AndICM20948DriverTests: XCTestCase {
    private struct Still: MotionSource {
        var physical: PhysicalState
        func state(at t: Double) -> PhysicalState { physical }
        var duration: Duration? { nil }
    }

    private func open<Chip: SimulatedChip>(_ kind: ChipKind, _ physical: PhysicalState, clock: ManualClock,
                                           as: Chip.Type) throws -> (SimulatedI2CBus, Chip, MotionSensor) {
        let bus = SimulatedI2CBus()
        let chip = SimulatedChipRegistry.factory(for: kind).makeChip(chipID: nil, clock: clock, motion: Still(physical: physical),
                                                                     imperfections: .ideal) as! Chip
        bus.attach(chip, at: kind.addresses[0])
        return (bus, chip, try kind.openSensor(bus: bus, address: kind.addresses[0], clock: clock))
    }

    func testLSM9DS1EveryAccelAndGyroRange() throws {
        for (range, gPerLSB) in [(2, 0.061e-3), (4, 0.122e-3), (8, 0.244e-3), (16, 0.732e-3)] {
            for (gyroRange, dpsPerLSB) in [(245, 8.75e-3), (500, 17.5e-3), (2000, 70e-3)] {
                let g = Double(range), w = Double(gyroRange)
                let physical = PhysicalState(accelG: Vector3(0.61 * g, -0.37 * g, 0.93 * g),
                                             gyroDps: Vector3(-0.8 * w, 0.05 * w, 0.45 * w), tempC: 31.7)
                let clock = ManualClock()
                let (_, _, sensor) = try open(.lsm9ds1, physical, clock: clock, as: SimulatedLSM9DS1.self)
                try sensor.configure(SensorConfiguration(accelRangeG: range, gyroRangeDps: gyroRange, rateHz: 119))
                XCTAssertEqual(sensor.actualRateHz, 119)
                let s = try sensor.read(at: 0)
                for axis in 0..<3 {
                    XCTAssertEqual(s.accel[axis], physical.accelG[axis], accuracy: gPerLSB, "±\(range) g axis \(axis)")
                    XCTAssertEqual(try XCTUnwrap(s.gyro)[axis], physical.gyroDps[axis], accuracy: dpsPerLSB, "±\(gyroRange) °/s axis \(axis)")
                }
                XCTAssertEqual(try XCTUnwrap(s.tempC), 31.7, accuracy: 1.0 / 16)
            }
        }
    }

    func testLSM9DS1RefusesTheGyroRangeItLacks() throws {
        let (_, _, sensor) = try open(.lsm9ds1, .flat, clock: ManualClock(), as: SimulatedLSM9DS1.self)
        XCTAssertThrowsError(try sensor.configure(SensorConfiguration(gyroRangeDps: 1000))) { error in
            XCTAssertEqual(error as? SensorError, .unsupportedSetting(.gyroRange(degreesPerSecond: 1000), chip: "LSM9DS1", allowed: .oneOf([245, 500, 2000])))
        }
    }

    func testLSM9DS1FIFODrainsEverySampleOnceInOrder() throws {
        let clock = ManualClock()
        let (bus, chip, sensor) = try open(.lsm9ds1, .flat, clock: clock, as: SimulatedLSM9DS1.self)
        try sensor.configure(SensorConfiguration(rateHz: 238, useFIFO: true))
        _ = try sensor.drainFIFO(at: 0) { _ in }
        clock.advance(bySeconds: 0.1)  // 23.8 periods at 238 Hz
        chip.serviceInterruptPin()     // brings the part up to now
        let queued = chip.queuedFIFOFrames
        XCTAssertTrue((23...24).contains(queued), "\(queued)")
        bus.resetStatistics()
        var samples: [Sample] = []
        XCTAssertEqual(try sensor.drainFIFO(at: 1) { samples.append($0) }, queued)
        XCTAssertEqual(bus.transactionCount, 1 + queued, "FIFO_SRC, then one burst per sample")
        XCTAssertEqual(chip.queuedFIFOFrames, 0)
        for s in samples { XCTAssertEqual(s.accel.z, 1, accuracy: 1e-3) }
        XCTAssertTrue(zip(samples, samples.dropFirst()).allSatisfy { $0.t < $1.t })
    }

    func testICM20948EveryAccelAndGyroRange() throws {
        for (range, lsbPerG) in [(2, 16384.0), (4, 8192.0), (8, 4096.0), (16, 2048.0)] {
            for (gyroRange, lsbPerDps) in [(250, 131.0), (500, 65.5), (1000, 32.8), (2000, 16.4)] {
                let g = Double(range), w = Double(gyroRange)
                let physical = PhysicalState(accelG: Vector3(0.61 * g, -0.37 * g, 0.93 * g),
                                             gyroDps: Vector3(-0.8 * w, 0.05 * w, 0.45 * w), tempC: 31.7)
                let clock = ManualClock()
                let (_, _, sensor) = try open(.icm20948, physical, clock: clock, as: SimulatedICM20948.self)
                try sensor.configure(SensorConfiguration(accelRangeG: range, gyroRangeDps: gyroRange, rateHz: 100))
                XCTAssertEqual(sensor.actualRateHz, 1125.0 / 11, accuracy: 1e-9)
                let s = try sensor.read(at: 0)
                for axis in 0..<3 {
                    XCTAssertEqual(s.accel[axis], physical.accelG[axis], accuracy: 1 / lsbPerG, "±\(range) g axis \(axis)")
                    XCTAssertEqual(try XCTUnwrap(s.gyro)[axis], physical.gyroDps[axis], accuracy: 1 / lsbPerDps, "±\(gyroRange) °/s axis \(axis)")
                }
                XCTAssertEqual(try XCTUnwrap(s.tempC), 31.7, accuracy: 1 / 333.87)
            }
        }
    }

    func testICM20948ConfiguresInBankTwoAndSamplesInBankZeroWithoutSelecting() throws {
        let clock = ManualClock()
        let (bus, chip, sensor) = try open(.icm20948, .flat, clock: clock, as: SimulatedICM20948.self)
        XCTAssertEqual(chip.bankSelectWrites, 1, "open selects bank 0 once: the bank is unknown until then")
        bus.recordsTrace = true
        try sensor.configure(SensorConfiguration(useFIFO: true))
        let selects = bus.trace.filter { $0.kind == .write && $0.register == 0x7F }.map(\.bytes)
        XCTAssertEqual(selects, [[0x20], [0x00]], "to bank 2 for rates and ranges, back to bank 0")
        XCTAssertEqual(chip.selectedBank, 0)
        bus.trace.removeAll()
        clock.advance(bySeconds: 0.1)
        var n = 0
        _ = try sensor.drainFIFO(at: 1) { _ in n += 1 }
        _ = try sensor.read(at: 1)
        try sensor.checkConfiguration()
        try sensor.reidentify()
        XCTAssertGreaterThanOrEqual(n, 9)
        XCTAssertFalse(bus.trace.contains { $0.register == 0x7F }, "\(bus.trace)")
    }

    func testICM20948SelectsBankZeroAgainAfterAFailureAndFindsAResetChip() throws {
        let clock = ManualClock()
        let (bus, chip, sensor) = try open(.icm20948, .flat, clock: clock, as: SimulatedICM20948.self)
        try sensor.configure(SensorConfiguration())
        // Another program (or a glitch) leaves the part in bank 2, and the bus fails once.
        try bus.writeByte(address: 0x68, register: 0x7F, value: 0x20)
        bus.injectFault(.noAcknowledgeData)
        XCTAssertThrowsError(try sensor.read(at: 0))
        bus.recordsTrace = true
        try sensor.reidentify()
        XCTAssertEqual(bus.trace.first?.register, 0x7F, "the unknown bank is selected before WHO_AM_I is read")
        XCTAssertEqual(chip.selectedBank, 0)
        // A brown-out: the part is back in bank 0, asleep; the tell says so and configure restores it.
        chip.powerOnReset()
        XCTAssertThrowsError(try sensor.checkConfiguration()) { error in
            guard case let SensorError.configurationLost(register, configured, read, _, _) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual([register, configured, read], [0x06, 0x01, 0x41], "PWR_MGMT_1: asleep again")
        }
        try sensor.configure(sensor.configuration)
        XCTAssertEqual(try sensor.read(at: 1).accel.z, 1, accuracy: 1e-3)
    }

    func testProbeTellsTheICM20948FromTheMPU6050WithReadsOnly() throws {
        let clock = ManualClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMPU6050(clock: clock, motion: Still(physical: .flat)), at: 0x68)
        let icm = SimulatedICM20948(clock: clock, motion: Still(physical: .flat))
        bus.attach(icm, at: 0x69)
        bus.recordsTrace = true
        let found = try ChipKind.probe(bus: bus, addresses: [0x68, 0x69])
        XCTAssertEqual(found, [
            ProbeResult(address: 0x68, chip: .mpu6050, part: "MPU-6050", chipID: 0x68),
            ProbeResult(address: 0x69, chip: .icm20948, part: "ICM-20948", chipID: 0xEA),
        ])
        XCTAssertTrue(bus.trace.allSatisfy { $0.kind != .write }, "\(bus.trace)")
        XCTAssertEqual(icm.bankSelectWrites, 0)
    }
}

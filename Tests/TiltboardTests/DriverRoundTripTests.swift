import XCTest
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator

/// Physical value → simulated chip registers → real driver → physical value, for every range of
/// both chips (the simulator converts with whatever range the driver programmed).
final class DriverRoundTripTests: XCTestCase {
    private struct Constant: MotionSource {
        var physical: PhysicalState
        func state(at t: Double) -> PhysicalState { physical }
        var duration: Duration? { nil }
    }

    private func open(_ chip: ChipKind, _ physical: PhysicalState, clock: ManualClock,
                      chipID: UInt8? = nil) throws -> (SimulatedI2CBus, MotionSensor) {
        let bus = SimulatedI2CBus()
        let motion = Constant(physical: physical)
        let address = chip.addresses[0]
        bus.attach(SimulatedChipRegistry.factory(for: chip).makeChip(chipID: chipID, clock: clock, motion: motion,
                                                                     imperfections: .ideal), at: address)
        return (bus, try chip.openSensor(bus: bus, address: address, clock: clock))
    }

    func testMPU6050EveryAccelAndGyroRange() throws {
        for (range, lsbPerG) in [(2, 16384.0), (4, 8192.0), (8, 4096.0), (16, 2048.0)] {
            for (gyroRange, lsbPerDps) in [(250, 131.0), (500, 65.5), (1000, 32.8), (2000, 16.4)] {
                let g = Double(range), w = Double(gyroRange)
                let physical = PhysicalState(accelG: Vector3(0.61 * g, -0.37 * g, 0.93 * g),
                                             gyroDps: Vector3(-0.8 * w, 0.05 * w, 0.45 * w), tempC: 31.7)
                let clock = ManualClock()
                let (_, sensor) = try open(.mpu6050, physical, clock: clock)
                try sensor.configure(SensorConfiguration(accelRangeG: range, gyroRangeDps: gyroRange, rateHz: 100))
                clock.advance(bySeconds: 0.05)
                let s = try sensor.read(at: 0)
                for axis in 0..<3 {
                    XCTAssertEqual(s.accel[axis], physical.accelG[axis], accuracy: 1 / lsbPerG, "±\(range) g axis \(axis)")
                    XCTAssertEqual(try XCTUnwrap(s.gyro)[axis], physical.gyroDps[axis], accuracy: 1 / lsbPerDps,
                                   "±\(gyroRange) °/s axis \(axis)")
                }
                XCTAssertEqual(try XCTUnwrap(s.tempC), 31.7, accuracy: 1 / 340)
            }
        }
    }

    func testADXL345EveryRangeInFullResolution() throws {
        for range in [2, 4, 8, 16] {
            let g = Double(range)
            let physical = PhysicalState(accelG: Vector3(0.55 * g, -0.91 * g, 0.2 * g), gyroDps: .zero, tempC: 25)
            let clock = ManualClock()
            let (_, sensor) = try open(.adxl345, physical, clock: clock)
            try sensor.configure(SensorConfiguration(accelRangeG: range, rateHz: 100))
            clock.advance(bySeconds: 0.05)
            let s = try sensor.read(at: 0)
            for axis in 0..<3 {
                // Full resolution: 256 LSB/g in every range.
                XCTAssertEqual(s.accel[axis], physical.accelG[axis], accuracy: 1 / 256, "±\(range) g axis \(axis)")
            }
            XCTAssertNil(s.gyro)
            XCTAssertNil(s.tempC)
        }
    }

    func testLIS3DHEveryRangeInHighResolutionAndLowPower() throws {
        // High resolution (12-bit) up to 1.344 kHz: 1, 2, 4, 12 mg per digit; low power (8-bit)
        // at 5.376 kHz: 16, 32, 64, 192 mg per digit (ST's LIS3DH driver, the kernel's gains).
        let digits: [(rate: Double, mg: [Double])] = [(100, [1, 2, 4, 12]), (1344, [1, 2, 4, 12]),
                                                      (5376, [16, 32, 64, 192])]
        for (rate, mgPerDigit) in digits {
            for (i, range) in [2, 4, 8, 16].enumerated() {
                let g = Double(range)
                let physical = PhysicalState(accelG: Vector3(0.55 * g, -0.91 * g, 0.2 * g), gyroDps: .zero, tempC: 25)
                let clock = ManualClock()
                let (_, sensor) = try open(.lis3dh, physical, clock: clock)
                try sensor.configure(SensorConfiguration(accelRangeG: range, rateHz: rate))
                XCTAssertEqual(sensor.actualRateHz, rate)
                let s = try sensor.read(at: 0)
                for axis in 0..<3 {
                    XCTAssertEqual(s.accel[axis], physical.accelG[axis], accuracy: mgPerDigit[i] / 2000,
                                   "\(rate) Hz ±\(range) g axis \(axis)")
                }
                XCTAssertNil(s.gyro)
                XCTAssertNil(s.tempC)
            }
        }
    }

    func testOutOfRangeAccelerationSaturatesInsteadOfWrapping() throws {
        let clock = ManualClock()
        let (_, sensor) = try open(.mpu6050, PhysicalState(accelG: Vector3(5, -5, 1), gyroDps: .zero, tempC: 25), clock: clock)
        try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 100))
        clock.advance(bySeconds: 0.05)
        let s = try sensor.read(at: 0)
        XCTAssertEqual(s.accel.x, 32767 / 16384, accuracy: 1e-3)
        XCTAssertEqual(s.accel.y, -2, accuracy: 1e-3)
    }

    func testNACKAndEIOMidReadAreTypedAndTheNextReadSucceeds() throws {
        for (kind, errno, text) in [(I2CError.Kind.noAcknowledgeAddress, Int32(6), "no device answers at 0x68 on simulated"),
                                    (.bus, Int32(5), "bus error on simulated")] {
            let clock = ManualClock()
            let (bus, sensor) = try open(.mpu6050, .flat, clock: clock)
            try sensor.configure(SensorConfiguration())
            clock.advance(bySeconds: 0.05)
            bus.injectFault(kind, count: 1)
            XCTAssertThrowsError(try sensor.read(at: 0)) { error in
                guard let e = error as? I2CError else { return XCTFail("not an I2CError: \(error)") }
                XCTAssertEqual(e.kind, kind)
                XCTAssertEqual(e.errno, errno)
                XCTAssertEqual(e.address, 0x68)
                XCTAssertEqual(e.register, 0x3B)
                XCTAssertEqual(e.device, "simulated", text)
            }
            let s = try sensor.read(at: 0.01)
            XCTAssertEqual(s.accel.z, 1, accuracy: 1e-3)
        }
    }

    func testOneBurstTransactionPerSample() throws {
        let clock = ManualClock()
        for chip in ChipKind.allCases {
            let (bus, sensor) = try open(chip, .flat, clock: clock)
            try sensor.configure(SensorConfiguration())
            clock.advance(bySeconds: 0.05)
            bus.resetStatistics()
            for i in 0..<10 { _ = try sensor.read(at: Double(i)) }
            XCTAssertEqual(bus.transactionCount, 10, "\(chip)")
            // The data registers alone, read in one burst each time (the chip's sample size).
            XCTAssertEqual(bus.bytesTransferred, 10 * chip.sampleBytes, "\(chip)")
        }
    }
}

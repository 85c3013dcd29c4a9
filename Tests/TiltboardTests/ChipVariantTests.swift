import XCTest
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator

/// Every accepted ID of every registered chip, through the real driver and the simulated part
/// built from the same variant table: values, offsets, FIFO and the motion interrupt.
final class ChipVariantTests: XCTestCase {
    /// Holds `before` until `step` seconds into the motion, then `after`.
    private struct Step: MotionSource {
        var before: PhysicalState
        var after: PhysicalState
        var step = Double.infinity
        func state(at t: Double) -> PhysicalState { t < step ? before : after }
        var duration: Duration? { nil }
    }

    private let tilted = PhysicalState(accelG: Vector3(0.31, -0.42, 0.85), gyroDps: Vector3(12, -40, 3), tempC: 31.7)

    /// Every (chip, accepted ID) pair in the registry.
    private var everyVariant: [(ChipKind, UInt8)] {
        ChipRegistry.all.flatMap { chip in chip.acceptedIDs.map { (chip.kind, $0) } }
    }

    private func open(_ kind: ChipKind, _ id: UInt8, _ motion: MotionSource, clock: ManualClock,
                      imperfections: SensorImperfections = .ideal) throws -> (SimulatedI2CBus, any SimulatedChip, MotionSensor) {
        let bus = SimulatedI2CBus()
        let chip = SimulatedChipRegistry.factory(for: kind).makeChip(chipID: id, clock: clock, motion: motion,
                                                                      imperfections: imperfections)
        bus.attach(chip, at: kind.addresses[0])
        return (bus, chip, try kind.openSensor(bus: bus, address: kind.addresses[0], clock: clock))
    }

    func testEveryAcceptedIDIsIdentifiedAndReadsWhatTheChipFeels() throws {
        XCTAssertEqual(everyVariant.count, 10)  // six MPU-6050 family IDs, the ADXL345, the LIS3DH, the LSM9DS1, the ICM-20948
        for (kind, id) in everyVariant {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let (_, _, sensor) = try open(kind, id, Step(before: tilted, after: tilted), clock: clock)
            let variant = try XCTUnwrap(kind.details.anyVariant(chipID: id))
            XCTAssertEqual(sensor.identity.chipID, id)
            XCTAssertTrue(sensor.identity.part.hasPrefix(variant.part), sensor.identity.part)
            XCTAssertEqual(sensor.identity.warning == nil, !variant.acceptedAsCompatible, "\(variant.part)")
            XCTAssertEqual(sensor.chipVariant.chipID, id)
            try sensor.configure(SensorConfiguration(accelRangeG: 4, gyroRangeDps: 500, rateHz: 100))
            clock.advance(bySeconds: 0.05)
            let s = try sensor.read(at: 0)
            for axis in 0..<3 {
                XCTAssertEqual(s.accel[axis], tilted.accelG[axis], accuracy: 1.0 / 128, "\(variant.part) accel \(axis)")
            }
            if kind.details.gyroscope != nil {
                let gyro = try XCTUnwrap(s.gyro)
                for axis in 0..<3 { XCTAssertEqual(gyro[axis], tilted.gyroDps[axis], accuracy: 1 / 65.5, "\(variant.part) gyro") }
            }
            if let formula = variant.temperature {
                XCTAssertEqual(try XCTUnwrap(s.tempC), 31.7, accuracy: 1 / formula.lsbPerC, "\(variant.part) temperature")
            }
        }
    }

    /// The figures themselves, as the kernel's `inv_mpu6050` hw_info and the register maps give them.
    func testTheMPU6050FamilyTableHoldsTheDataSheetFigures() throws {
        let chip = MPU6050Chip()
        let fifo = Dictionary(uniqueKeysWithValues: chip.variants.map { ($0.chipID, $0.fifo!.capacityBytes) })
        XCTAssertEqual(fifo, [0x68: 1024, 0x70: 512, 0x71: 512, 0x72: 1024, 0x73: 512, 0x98: 4096])
        for id: UInt8 in [0x70, 0x71, 0x73, 0x98] {
            let v = try XCTUnwrap(chip.variant(chipID: id))
            XCTAssertEqual([v.accelOffsets!.x, v.accelOffsets!.y, v.accelOffsets!.z], [0x77, 0x7A, 0x7D])
            XCTAssertEqual(v.accelFilterRegister, 0x1D)
            XCTAssertEqual(v.motionEngine, .wakeOnMotion)
            XCTAssertEqual(v.motion.thresholdGPerLSB, 0.004)
        }
        // °C = raw / lsbPerC + offsetC: the kernel's (raw + offset) × scale.
        let mpu6500 = try XCTUnwrap(chip.variant(chipID: 0x70)?.temperature)
        XCTAssertEqual(mpu6500.celsius(raw: 1000), (1000 + 7011) * 2.995178e-3, accuracy: 0.01)
        let icm = try XCTUnwrap(chip.variant(chipID: 0x98))
        XCTAssertEqual(icm.temperature!.celsius(raw: 1000), (1000 + 8170) * 3.059976e-3, accuracy: 0.01)
        XCTAssertEqual(icm.temperature!.celsius(raw: 0), 25)
        XCTAssertEqual(icm.fifoSizeBits, 0xC0)
        XCTAssertEqual(icm.motion.thresholdRegister, 0x20)
        XCTAssertEqual(icm.motion.thresholdRegisterCount, 3)
        XCTAssertEqual(icm.motion.enableMask, 0xE0)
        let genuine = try XCTUnwrap(chip.variant(chipID: 0x68))
        XCTAssertEqual(genuine.temperature!.celsius(raw: 1000), (1000 + 12420) * 2.941176e-3, accuracy: 0.01)
        XCTAssertNil(genuine.accelFilterRegister)
    }

    func testChipOffsetsRemoveTheZeroGOffsetOnEveryVariant() throws {
        let flat = PhysicalState(accelG: .unitZ)
        var part = SensorImperfections.ideal
        part.zeroGOffsetG = Vector3(0.040, -0.030, 0.060)
        for (kind, id) in everyVariant where kind.details.anyVariant(chipID: id)?.accelOffsets != nil {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let (_, _, sensor) = try open(kind, id, Step(before: flat, after: flat), clock: clock, imperfections: part)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 100))
            try sensor.writeOffsets(accelOffsetG: part.zeroGOffsetG, gyroBiasDps: nil)
            clock.advance(bySeconds: 0.05)
            let s = try sensor.read(at: 0)
            // Within one offset step (1 mg on the MPU family, 15.6 mg on the ADXL345) of ideal.
            let step = try XCTUnwrap(sensor.chipVariant.accelOffsets).step
            for axis in 0..<3 {
                XCTAssertEqual(s.accel[axis], flat.accelG[axis], accuracy: step / 2 + 1.0 / 256, "\(sensor.identity.part) axis \(axis)")
            }
        }
    }

    func testFIFOSizeAndTheFirstFrameOnEveryVariant() throws {
        let flat = PhysicalState(accelG: .unitZ, tempC: 25)
        for (kind, id) in everyVariant {
            guard let fifo = try XCTUnwrap(kind.details.anyVariant(chipID: id)).fifo else { continue }
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let (_, chip, sensor) = try open(kind, id, Step(before: flat, after: flat), clock: clock)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 800, useFIFO: true))
            let rate = sensor.actualRateHz
            // Fewer frames than the FIFO holds: all arrive (the MPU family drops the first).
            let frames = fifo.capacityFrames / 2
            clock.advance(bySeconds: Double(frames) / rate)
            chip.serviceInterruptPin()  // brings the part up to now
            let queued = chip.queuedFIFOFrames
            var samples: [Sample] = []
            let n = try sensor.drainFIFO(at: 1) { samples.append($0) }
            XCTAssertEqual(n, queued - sensor.fifoFramesSkipped, "\(sensor.identity.part)")
            XCTAssertGreaterThanOrEqual(n, frames - 2, "\(sensor.identity.part)")
            XCTAssertTrue(samples.allSatisfy { abs($0.accel.z - 1) < 0.01 }, "\(sensor.identity.part)")
            // Twice what the FIFO holds: the MPU family's FIFO overflows (and is reset), the
            // ADXL345's stream mode keeps the newest.
            clock.advance(bySeconds: Double(2 * fifo.capacityFrames) / rate)
            let kept = try sensor.drainFIFO(at: 2) { _ in }
            if sensor.fifoOverflows > 0 {
                XCTAssertEqual(kept, 0, "\(sensor.identity.part)")
            } else {
                XCTAssertLessThanOrEqual(kept, fifo.capacityFrames, "\(sensor.identity.part)")
                XCTAssertGreaterThanOrEqual(kept, fifo.capacityFrames - 1, "\(sensor.identity.part)")
            }
            // Byte FIFOs in stream mode drop bytes mid-frame: the MPU family and the ICM-20948 reset.
            XCTAssertEqual(sensor.fifoOverflows > 0, [ChipKind.mpu6050, .icm20948].contains(kind), "\(sensor.identity.part)")
        }
    }

    func testTheMPUFamilyOverflowsAtItsOwnFIFOSize() throws {
        // 40 frames of 14 bytes = 560 bytes: past the 512 B of the 6500 family, inside 1 KiB and 4 KiB.
        for (id, overflows) in [(UInt8(0x68), false), (0x70, true), (0x71, true), (0x73, true), (0x98, false)] {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let flat = PhysicalState(accelG: .unitZ)
            let (_, _, sensor) = try open(.mpu6050, id, Step(before: flat, after: flat), clock: clock)
            try sensor.configure(SensorConfiguration(rateHz: 1000, useFIFO: true))
            clock.advance(bySeconds: 0.040)
            _ = try sensor.drainFIFO(at: 1) { _ in }
            XCTAssertEqual(sensor.fifoOverflows == 1, overflows, "WHO_AM_I \(id.hex)")
        }
    }

    func testWakeOnMotionFiresOnEveryVariantAndStaysQuietWhenStill() throws {
        let flat = PhysicalState(accelG: .unitZ)
        let bumped = PhysicalState(accelG: Vector3(0.5, 0, 0.87))
        for (kind, id) in everyVariant {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let (bus, chip, sensor) = try open(kind, id, Step(before: flat, after: bumped, step: 2), clock: clock)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 100))
            if !kind.details.offersWakeOnMotion { continue }  // not offered (see the slow-tilt test)
            bus.recordsTrace = true
            try sensor.armMotionInterrupt(thresholdG: 0.1)
            let armed = bus.trace
            clock.advance(bySeconds: 1)
            XCTAssertFalse(try sensor.acknowledgeMotionInterrupt(), "\(sensor.identity.part): still")
            clock.advance(bySeconds: 2)
            chip.serviceInterruptPin()
            XCTAssertTrue(try sensor.acknowledgeMotionInterrupt(), "\(sensor.identity.part): moved")
            XCTAssertFalse(try sensor.acknowledgeMotionInterrupt(), "\(sensor.identity.part): the read cleared it")
            if kind == .mpu6050, let v = MPU6050Chip().variant(chipID: id), v.motionEngine == .wakeOnMotion {
                // The 6500 family's wake-on-motion: sampling at 20 Hz (SMPLRT_DIV 49, DLPF 5 in CONFIG
                // and ACCEL_CONFIG2, FIFO_SIZE kept), 0.1 g within 0.253 s = 19.8 mg per 50 ms in
                // 4 mg steps = 5, ACCEL_INTEL_EN | MODE; everything read back.
                let writes = armed.filter { $0.kind == .write }.map { "\($0.register.hex) \($0.bytes.map(\.hex))" }
                let threshold = v.motion.thresholdRegisterCount == 3 ? "0x20 [\"0x05\", \"0x05\", \"0x05\"]" : "0x1f [\"0x05\"]"
                XCTAssertEqual(writes, ["0x19 [\"0x31\"]", "0x1a [\"0x05\"]", "0x1d [\"\((0x05 | v.fifoSizeBits).hex)\"]",
                                        threshold, "0x69 [\"0xc0\"]", "0x37 [\"0x20\"]", "0x38 [\"\(v.motion.enableMask.hex)\"]"],
                               "\(v.part)")
                XCTAssertEqual(armed.filter { $0.kind != .write }.count, 5, "\(v.part): read back in five runs")
            }
        }
    }

    /// Flat until `start`, then a roll of `degrees` at a steady rate over `seconds`, then held.
    private struct Ramp: MotionSource {
        var start: Double, seconds: Double, degrees: Double
        func state(at t: Double) -> PhysicalState {
            let angle = degrees * Swift.min(Swift.max((t - start) / seconds, 0), 1) * Double.pi / 180
            return PhysicalState(accelG: Vector3(sin(angle), 0, cos(angle)))
        }
        var duration: Duration? { nil }
    }

    func testASlowTiltWakesEveryVariantAndTheLoopRateIsBackAfterwards() throws {
        // Still (noise on, a typical part) for 4 s, then 30° in 0.5 s: 0.5 g over 0.5 s, 10 mg per
        // 100 Hz sample. A 0.1 g threshold must wake every part within the tilt, and no part before it.
        for (kind, id) in everyVariant {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let part = SimulatedChipRegistry.factory(for: kind).typicalPart(seed: 5)
            let (_, chip, sensor) = try open(kind, id, Ramp(start: 4, seconds: 0.5, degrees: 30), clock: clock,
                                             imperfections: part)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 100))
            if !kind.details.offersWakeOnMotion {
                // Not offered on these: refused with the reason, nothing armed.
                XCTAssertThrowsError(try sensor.armMotionInterrupt(thresholdG: 0.1)) { error in
                    guard case .unsupportedSetting(.wakeOnMotion, _, _)? = error as? SensorError else { return XCTFail("\(error)") }
                }
                continue
            }
            try sensor.armMotionInterrupt(thresholdG: 0.1)
            _ = try sensor.acknowledgeMotionInterrupt()
            var wokeAt: Double?
            while wokeAt == nil, clock.nowSeconds() - 1 < 6 {
                clock.advance(bySeconds: 0.005)
                chip.serviceInterruptPin()
                if chip.interruptPin.isHigh, try sensor.acknowledgeMotionInterrupt() { wokeAt = clock.nowSeconds() - 1 }
            }
            let name = "\(kind) \(id.hex)"
            let t = try XCTUnwrap(wokeAt, "\(name): the tilt never woke it")
            XCTAssertGreaterThan(t, 4, "\(name): woke while still")
            XCTAssertLessThanOrEqual(t, 4.25, "\(name): woke late")
            try sensor.disarmMotionInterrupt()
            if let mpu = chip as? SimulatedMPU6050 { XCTAssertEqual(mpu.sampleRateHz, 100, accuracy: 1e-9, name) }
        }
    }

    func testConfigureWaitsForTheGyroAndForTheFirstSampleAtTheNewRate() throws {
        let flat = PhysicalState(accelG: .unitZ)
        for id in MPU6050Chip().acceptedIDs {
            let gyroStartUp: UInt64 = [0x68, 0x72].contains(id) ? 60 : 70  // ms, the kernel's startup_time.gyro
            // 100 ms reset, then the gyro's start-up; at 4 Hz two periods (500 ms) after the rate
            // is set, 10 ms after waking.
            for (rate, expectedMs) in [(100.0, 100 + gyroStartUp), (4, 100 + 10 + 500)] {
                let clock = ManualClock(startNanoseconds: 1_000_000_000)
                let (_, _, sensor) = try open(.mpu6050, id, Step(before: flat, after: flat), clock: clock)
                let t0 = clock.nowNanoseconds()
                try sensor.configure(SensorConfiguration(rateHz: rate))
                XCTAssertEqual((clock.nowNanoseconds() - t0) / 1_000_000, expectedMs, "WHO_AM_I \(id.hex) at \(rate) Hz")
                XCTAssertEqual(try sensor.read(at: 0).accel.z, 1, accuracy: 0.01)
            }
        }
    }

    func testTheFactoryAccelTrimSitsInEachPartsOwnOffsetRegistersOnly() throws {
        // Independent of the tables: the 6050 keeps XA/YA/ZA_OFFS_H at 0x06/0x08/0x0A, the 6500
        // family and the ICM-20689 at 0x77/0x7A/0x7D (MPU-9250 RM rev 1.4 p.31), where 0x06–0x0B
        // are reserved and read 0.
        let flat = PhysicalState(accelG: .unitZ)
        for id in MPU6050Chip().acceptedIDs {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let (bus, _, _) = try open(.mpu6050, id, Step(before: flat, after: flat), clock: clock)
            let own: [UInt8] = [0x68, 0x72].contains(id) ? [0x06, 0x08, 0x0A] : [0x77, 0x7A, 0x7D]
            let trim = try own.map { try bus.read(address: 0x68, register: $0, count: 2) }
            XCTAssertEqual(trim, [[0xF8, 0x6B], [0x05, 0x12], [0x13, 0x8D]], "WHO_AM_I \(id.hex)")
            if own[0] != 0x06 {
                XCTAssertEqual(try bus.read(address: 0x68, register: 0x06, count: 6), [UInt8](repeating: 0, count: 6),
                               "WHO_AM_I \(id.hex): 0x06–0x0B hold no trim")
            }
        }
    }

    func testConfigureWritesTheAccelFilterOnPartsThatHaveIt() throws {
        for (id, expected) in [(UInt8(0x68), nil), (0x70, UInt8(0x03)), (0x98, 0xC3)] as [(UInt8, UInt8?)] {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let flat = PhysicalState(accelG: .unitZ)
            let (bus, _, sensor) = try open(.mpu6050, id, Step(before: flat, after: flat), clock: clock)
            bus.recordsTrace = true
            try sensor.configure(SensorConfiguration(rateHz: 100))
            let writes = bus.trace.filter { $0.kind == .write && $0.register == 0x1D }.map(\.bytes)
            XCTAssertEqual(writes, expected.map { [[$0]] } ?? [], "WHO_AM_I \(id.hex)")
        }
    }

    func testEveryRegisteredChipHasASimulatedPart() {
        XCTAssertEqual(SimulatedChipRegistry.all.map(\.kind), ChipKind.allCases)
    }
}

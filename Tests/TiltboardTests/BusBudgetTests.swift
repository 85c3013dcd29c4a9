import XCTest
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator

/// The bus budget against what every driver really sends: each chip's driver on a simulated bus
/// that records its transactions, bursts and FIFO drains, transaction by transaction.
final class BusBudgetTests: XCTestCase {
    private struct Still: MotionSource {
        func state(at t: Double) -> PhysicalState { .flat }
        var duration: Duration? { nil }
    }

    private func open(_ kind: ChipKind, clock: ManualClock) throws -> (SimulatedI2CBus, any SimulatedChip, MotionSensor) {
        let bus = SimulatedI2CBus()
        let chip = SimulatedChipRegistry.factory(for: kind).makeChip(chipID: nil, clock: clock, motion: Still(), imperfections: .ideal)
        bus.attach(chip, at: kind.addresses[0])
        return (bus, chip, try kind.openSensor(bus: bus, address: kind.addresses[0], clock: clock))
    }

    /// The recorded transactions as shapes: a read wrote its sub-address, a write its data after it.
    private func shapes(_ trace: [I2CTransaction]) -> [I2CTransferShape] {
        trace.map { $0.kind == .read ? .registerRead($0.bytes.count) : I2CTransferShape(writeBytes: 1 + $0.bytes.count, readBytes: 0) }
    }

    func testFramingCountsNineClocksAByteAndTheConditions() {
        // START, address+W, sub-address, repeated START, address+R, 14 bytes, STOP.
        XCTAssertEqual(I2CTransferShape.registerRead(14).clocks, 9 * 17 + 3)
        XCTAssertEqual(I2CTransferShape.registerRead(14).wireBytes, 17)
        XCTAssertEqual(I2CTransferShape.registerRead(14).dataBytes, 14)
        // START, address+W, sub-address, one data byte, STOP: no repeated START.
        XCTAssertEqual(I2CTransferShape(writeBytes: 2, readBytes: 0).clocks, 9 * 3 + 2)
        XCTAssertEqual(I2CTransferShape(writeBytes: 2, readBytes: 0).dataBytes, 1)
        // A read with no write phase: START, address+R, the bytes, STOP.
        XCTAssertEqual(I2CTransferShape(writeBytes: 0, readBytes: 6).clocks, 9 * 7 + 2)
        XCTAssertEqual(I2CTransferShape.registerRead(14).seconds(clockHz: 100_000), 156e-5, accuracy: 1e-15)
    }

    func testOneBurstPerSampleAsEveryDriverReads() throws {
        let clock = ManualClock()
        for kind in ChipKind.allCases {
            let (bus, _, sensor) = try open(kind, clock: clock)
            try sensor.configure(SensorConfiguration(rateHz: 100))
            clock.advance(bySeconds: 0.05)
            bus.recordsTrace = true
            bus.resetStatistics()
            for i in 0..<5 { _ = try sensor.read(at: Double(i)) }
            let budget = BusBudget(chip: kind, rateHz: 100, fifo: false)
            XCTAssertEqual(budget.samplesPerTick, 1)
            XCTAssertEqual(shapes(bus.trace), Array(repeating: budget.tickTransfers, count: 5).flatMap { $0 }, "\(kind)")
            XCTAssertEqual(Double(bus.bytesTransferred) / 5, budget.dataBytesPerSample, "\(kind)")
            XCTAssertEqual(budget.dataBytesPerSample, Double(kind.sampleBytes))
            XCTAssertEqual(budget.transactionsPerSample, 1)
        }
    }

    func testEveryFIFODrainAsTheDriverIssuesIt() throws {
        for kind in ChipKind.allCases {
            for wanted in [1, 5, 20] {
                let clock = ManualClock(startNanoseconds: 1_000_000_000)
                let (bus, chip, sensor) = try open(kind, clock: clock)
                try sensor.configure(SensorConfiguration(rateHz: 400, useFIFO: true))
                let rate = sensor.actualRateHz
                // The first drain takes what gathered while the part started (and the MPU family's first frame).
                clock.advance(bySeconds: 0.05)
                _ = try sensor.drainFIFO(at: 0) { _ in }
                clock.advance(bySeconds: Double(wanted) / rate)
                chip.serviceInterruptPin()
                let queued = chip.queuedFIFOFrames
                bus.recordsTrace = true
                bus.resetStatistics()
                let n = try sensor.drainFIFO(at: 1) { _ in }
                XCTAssertEqual(n, queued, "\(kind)")
                XCTAssertTrue(abs(n - wanted) <= 1 && n > 0, "\(kind): \(n) of \(wanted)")
                let budget = BusBudget(chip: kind, rateHz: rate, fifo: true, samplesPerTick: n)
                XCTAssertEqual(budget.samplesPerTick, n)
                XCTAssertEqual(shapes(bus.trace), budget.tickTransfers, "\(kind) draining \(n)")
                XCTAssertEqual(Double(bus.bytesTransferred) / Double(n), budget.dataBytesPerSample, accuracy: 1e-12, "\(kind)")
                XCTAssertEqual(Double(bus.transactionCount) / Double(n), budget.transactionsPerSample, accuracy: 1e-12, "\(kind)")
            }
        }
    }

    func testAFullADXL345FIFOIsAskedAgainForTheSampleBehindIt() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let (bus, chip, sensor) = try open(.adxl345, clock: clock)
        try sensor.configure(SensorConfiguration(rateHz: 400, useFIFO: true))
        clock.advance(bySeconds: 0.05)
        _ = try sensor.drainFIFO(at: 0) { _ in }
        clock.advance(bySeconds: 40 / sensor.actualRateHz)
        chip.serviceInterruptPin()
        bus.recordsTrace = true
        bus.resetStatistics()
        let n = try sensor.drainFIFO(at: 1) { _ in }
        XCTAssertEqual(n, 33, "32 entries and the sample in the output registers")
        let budget = BusBudget(chip: .adxl345, rateHz: 400, fifo: true, samplesPerTick: n)
        let status = I2CTransferShape.registerRead(1), burst = I2CTransferShape.registerRead(6)
        XCTAssertEqual(budget.tickTransfers, [status] + Array(repeating: burst, count: 32) + [status, burst])
        XCTAssertEqual(shapes(bus.trace), budget.tickTransfers)
    }

    func testShareAndItsSumOverTheBoardsOfOneBus() {
        // The doctor's figure for one burst per sample: 100 Hz × 156 clocks at 100 kHz.
        let mpu = BusBudget(chip: .mpu6050, rateHz: 100, fifo: false)
        XCTAssertEqual(mpu.share(clockHz: 100_000), 0.156, accuracy: 1e-12)
        for kind in ChipKind.allCases {
            for rate in [100.0, 400] {
                XCTAssertEqual(BusBudget(chip: kind, rateHz: rate, fifo: false).share(clockHz: 100_000),
                               Doctor.busLoad(chip: kind, rateHz: rate, clockHz: 100_000), accuracy: 1e-12, "\(kind)")
            }
        }
        // Two MPU-6050s at 500 Hz: 2 × 500 × 156 clocks = 1.56 of a 100 kHz bus, 0.39 of a 400 kHz one.
        let pair = [BusBudget(chip: .mpu6050, rateHz: 500, fifo: false), BusBudget(chip: .mpu6050, rateHz: 500, fifo: false)]
        XCTAssertEqual(BusBudget.share(of: pair, clockHz: 100_000), 1.56, accuracy: 1e-12)
        XCTAssertEqual(BusBudget.share(of: pair, clockHz: 400_000), 0.39, accuracy: 1e-12)
        // The FIFO at 1000 Hz drained 5 at a time: count (2 bytes) + 70 bytes per 5 samples.
        let fifo = BusBudget(chip: .mpu6050, rateHz: 1000, fifo: true, samplesPerTick: BusBudget.batch(rateHz: 1000, tickRateHz: 200))
        XCTAssertEqual(fifo.samplesPerTick, 5)
        XCTAssertEqual(BusBudget.batch(rateHz: 500, tickRateHz: 200), 2)
        XCTAssertEqual(BusBudget.batch(rateHz: 100, tickRateHz: 200), 1)
        XCTAssertEqual(BusBudget.batch(rateHz: 1000.0 / 3, tickRateHz: 1000.0 / 9), 3)
        XCTAssertEqual(fifo.clocksPerSample, Double(9 * 5 + 3 + 9 * 73 + 3) / 5)
        XCTAssertEqual(fifo.share(clockHz: 400_000), 1000 * Double(9 * 5 + 3 + 9 * 73 + 3) / 5 / 400_000, accuracy: 1e-12)
        // The health check's one-byte read once a second.
        XCTAssertEqual(BusBudget(chip: .mpu6050, rateHz: 100, fifo: false, checksPerSecond: 1).share(clockHz: 100_000),
                       (100 * 156 + 39) / 100_000.0, accuracy: 1e-12)
        // A batch is held to what the FIFO holds, and to 1 without it.
        XCTAssertEqual(BusBudget(chip: .lis3dh, rateHz: 400, fifo: true, samplesPerTick: 1000).samplesPerTick, 32)
        XCTAssertEqual(BusBudget(chip: .lis3dh, rateHz: 400, fifo: false, samplesPerTick: 10).samplesPerTick, 1)
    }
}

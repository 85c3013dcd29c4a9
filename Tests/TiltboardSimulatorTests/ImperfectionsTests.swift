import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

final class ImperfectionsTests: XCTestCase {
    /// Reads `count` MPU-6050 bursts at 100 Hz, reading every `every` samples.
    func mpuBursts(_ imperfections: SensorImperfections, every: Int = 1, count: Int = 20) throws -> [[UInt8]] {
        let clock = ManualClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMPU6050(clock: clock, motion: Constant(accel: .unitZ), imperfections: imperfections), at: 0x68)
        try bus.writeByte(address: 0x68, register: 0x1A, value: 0x03)
        try bus.writeByte(address: 0x68, register: 0x19, value: 9)
        try bus.writeByte(address: 0x68, register: 0x6B, value: 0x00)
        var out: [[UInt8]] = []
        for i in 1...count {
            clock.advance(ms: 10)
            if i % every == 0 { out.append(try bus.read(address: 0x68, register: 0x3B, count: 14)) }
        }
        return out
    }

    func testSameSeedSameBytesDifferentSeedDifferent() throws {
        let a = try mpuBursts(.datasheet(chip: .mpu6050, seed: 42))
        let b = try mpuBursts(.datasheet(chip: .mpu6050, seed: 42))
        let c = try mpuBursts(.datasheet(chip: .mpu6050, seed: 43))
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertGreaterThan(Set(a).count, 15, "noise makes samples differ")
    }

    func testNoiseDependsOnlyOnTheSampleNotOnHowOftenItIsRead() throws {
        let every = try mpuBursts(.datasheet(chip: .mpu6050, seed: 9))
        let sparse = try mpuBursts(.datasheet(chip: .mpu6050, seed: 9), every: 5)
        XCTAssertEqual(sparse, [every[4], every[9], every[14], every[19]])
    }

    func testIdealIsExact() throws {
        for burst in try mpuBursts(.ideal) {
            XCTAssertEqual(Array(burst[0..<6]), [0, 0, 0, 0, 0x40, 0])
            XCTAssertEqual(Array(burst[8..<14]), [0, 0, 0, 0, 0, 0])
        }
    }

    func testDatasheetMagnitudes() {
        for seed in UInt64(0)..<50 {
            let m = SensorImperfections.datasheet(chip: .mpu6050, seed: seed)
            XCTAssertLessThanOrEqual(abs(m.zeroGOffsetG.x), 0.050)
            XCTAssertLessThanOrEqual(abs(m.zeroGOffsetG.z), 0.080)
            XCTAssertLessThanOrEqual(m.scaleError.maxAbsComponent, 0.03)
            XCTAssertLessThanOrEqual(m.gyroBiasDps.maxAbsComponent, 20)
            XCTAssertEqual(m.accelNoiseDensityUgPerRootHz, 400)
            XCTAssertEqual(m.gyroNoiseDps, 0.005)
            let a = SensorImperfections.datasheet(chip: .adxl345, seed: seed)
            XCTAssertLessThanOrEqual(abs(a.zeroGOffsetG.y), 0.040)
            XCTAssertEqual(a.accelNoiseDensityUgPerRootHz, 290)
            XCTAssertEqual(a.accelNoiseDensityZUgPerRootHz, 430)
            XCTAssertEqual(a.gyroBiasDps, .zero)
        }
        XCTAssertNotEqual(SensorImperfections.datasheet(chip: .mpu6050, seed: 1).zeroGOffsetG,
                          SensorImperfections.datasheet(chip: .mpu6050, seed: 2).zeroGOffsetG)
    }

    func testOffsetScaleAndNoiseLevelReachTheRegisters() throws {
        // ±2 g, DLPF 44 Hz: 400 µg/√Hz · √44 ≈ 2.65 mg ≈ 43 LSB rms.
        let imperfections = SensorImperfections(zeroGOffsetG: Vector3(0.02, 0, 0), scaleError: Vector3(0, 0, 0.03),
                                                accelNoiseDensityUgPerRootHz: 400, gyroBiasDps: Vector3(0, 2, 0),
                                                seed: 5)
        let bursts = try mpuBursts(imperfections, count: 2000)
        func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(xs.count) }
        let ax = bursts.map { Double(int16BE($0, 0)) }
        let az = bursts.map { Double(int16BE($0, 4)) }
        XCTAssertEqual(mean(ax), 0.02 * 16384, accuracy: 5)
        XCTAssertEqual(mean(az), 1.03 * 16384, accuracy: 5)
        let m = mean(ax)
        let rms = (ax.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(ax.count)).squareRoot()
        XCTAssertEqual(rms, 400e-6 * 44.0.squareRoot() * 16384, accuracy: 4)
        XCTAssertEqual(int16BE(bursts[0], 10), 262, "2 °/s bias at 131 LSB/(°/s)")
    }

    func testADXLSameSeedSameBytes() throws {
        func run(_ seed: UInt64) throws -> [[UInt8]] {
            let clock = ManualClock()
            let bus = SimulatedI2CBus()
            bus.attach(SimulatedADXL345(clock: clock, motion: Constant(accel: .unitZ),
                                        imperfections: .datasheet(chip: .adxl345, seed: seed)), at: 0x53)
            try bus.writeByte(address: 0x53, register: 0x31, value: 0x08)
            try bus.writeByte(address: 0x53, register: 0x2D, value: 0x08)
            return try (0..<20).map { _ in
                clock.advance(ms: 10)
                return try bus.read(address: 0x53, register: 0x32, count: 6)
            }
        }
        XCTAssertEqual(try run(3), try run(3))
        XCTAssertNotEqual(try run(3), try run(4))
    }
}

/// Worst-case parts sit at the data sheets' limits, and their dies warm up after power-on.
final class WorstCasePartTests: XCTestCase {
    func testEveryFigureIsAtItsLimitWithASeededSign() {
        for seed: UInt64 in 1...20 {
            let p = SensorImperfections.worstCase(chip: .mpu6050, seed: seed)
            for axis in 0..<3 {
                XCTAssertEqual(Swift.abs(p.gyroBiasDps[axis]), 20, accuracy: 1e-12)
                XCTAssertEqual(Swift.abs(p.gyroBiasTempcoDpsPerC[axis]), 1.0 / 3, accuracy: 1e-12)
                XCTAssertEqual(Swift.abs(p.zeroGOffsetG[axis]), axis == 2 ? 0.080 : 0.050, accuracy: 1e-12)
                XCTAssertEqual(Swift.abs(p.zeroGTempcoGPerC[axis]) * 45, axis == 2 ? 0.060 : 0.035, accuracy: 1e-12)
            }
            let a = SensorImperfections.worstCase(chip: .adxl345, seed: seed)
            XCTAssertEqual(a.gyroBiasDps, .zero)
            for axis in 0..<3 {
                XCTAssertEqual(Swift.abs(a.zeroGOffsetG[axis]), axis == 2 ? 0.250 : 0.150, accuracy: 1e-12)
                XCTAssertEqual(Swift.abs(a.zeroGTempcoGPerC[axis]), axis == 2 ? 0.0045 : 0.0008, accuracy: 1e-12)
            }
        }
        // Signs differ between parts: not one part repeated.
        let signs = Set((1...20).map { SensorImperfections.worstCase(chip: .mpu6050, seed: UInt64($0)).gyroBiasDps.x > 0 })
        XCTAssertEqual(signs.count, 2)
    }

    func testTheDieWarmsUpAndTheBiasFollowsTheTemperature() throws {
        var part = SensorImperfections.ideal
        part.gyroBiasDps = Vector3(2, 0, 0)
        part.gyroBiasTempcoDpsPerC = Vector3(0.3, 0, 0)
        part.zeroGTempcoGPerC = Vector3(0, 0.001, 0)
        part.warmUpC = 10
        part.warmUpSeconds = 60
        let clock = ManualClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMPU6050(clock: clock, motion: Constant(accel: .unitZ), imperfections: part), at: 0x68)
        try bus.writeByte(address: 0x68, register: 0x6B, value: 0x00)
        func reading() throws -> (tempC: Double, gyroX: Double, accelY: Double) {
            let b = try bus.read(address: 0x68, register: 0x3B, count: 14)
            func word(_ i: Int) -> Double { Double(Int16(bitPattern: UInt16(b[i]) << 8 | UInt16(b[i + 1]))) }
            return (word(6) / 340 + 36.53, word(8) / 131, word(2) / 16384)
        }
        clock.advance(ms: 10)
        let cold = try reading()
        XCTAssertEqual(cold.tempC, 25, accuracy: 0.01)
        XCTAssertEqual(cold.gyroX, 2, accuracy: 0.01)
        clock.advance(ms: 60_000)
        let warm = try reading()
        let rise = 10 * (1 - exp(-1.0))
        XCTAssertEqual(warm.tempC, 25 + rise, accuracy: 0.01)
        XCTAssertEqual(warm.gyroX, 2 + 0.3 * rise, accuracy: 0.01)
        XCTAssertEqual(warm.accelY, 0.001 * rise, accuracy: 0.0002)
    }
}

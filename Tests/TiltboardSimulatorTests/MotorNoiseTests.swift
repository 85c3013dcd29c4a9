import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// The motor's fault model on the simulated bus (`SimulatedMotorNoise`): each knob does what it
/// says and nothing while the motor is off. Registers re-declared from the MPU-6050 register map
/// (RM-MPU-6000A Rev 4.2): WHO_AM_I 0x75 (0x68), PWR_MGMT_1 0x6B (0x40 at power-on),
/// ACCEL_XOUT_H 0x3B (a 14-byte burst to GYRO_ZOUT_L).
final class MotorNoiseTests: XCTestCase {
    private let mpu: UInt8 = 0x68

    private func coupled(_ noise: SimulatedMotorNoise, seed: UInt64 = 7) -> (SimulatedI2CBus, ManualClock, SimulatedMotorCoupling) {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMPU6050(clock: clock, motion: Constant(accel: .unitZ)), at: mpu)
        let coupling = bus.couple(motorNoise: noise, address: mpu, clock: clock, seed: seed)
        return (bus, clock, coupling)
    }

    /// How many of `count` one-byte reads of WHO_AM_I fail, one every millisecond.
    private func failures(_ bus: SimulatedI2CBus, _ clock: ManualClock, count: Int) -> [I2CError] {
        (0..<count).compactMap { _ in
            defer { clock.advance(ms: 1) }
            do { _ = try bus.readByte(address: mpu, register: 0x75); return nil } catch { return error as? I2CError }
        }
    }

    func testTheSwitchWindowFailsEveryTransactionWithErrno121ThenNothing() throws {
        let (bus, clock, motor) = coupled(SimulatedMotorNoise(switchSeconds: 0.005))
        XCTAssertEqual(failures(bus, clock, count: 20).count, 0, "the motor off and never switched")
        motor.motorSwitched(active: true)
        let on = failures(bus, clock, count: 20)
        XCTAssertEqual(on.count, 5, "5 ms after the switch, one read a millisecond")
        XCTAssertTrue(on.allSatisfy { $0.errno == 121 }, "\(on)")
        motor.motorSwitched(active: true)  // no change, no new window
        XCTAssertEqual(failures(bus, clock, count: 10).count, 0)
        motor.motorSwitched(active: false)
        XCTAssertEqual(failures(bus, clock, count: 20).count, 5, "switching off spikes as well")
    }

    func testErrorRateFailsOnlyWhileTheMotorRunsAndIdleErrorRateAlways() throws {
        let (bus, clock, motor) = coupled(SimulatedMotorNoise(errorRate: 0.1))
        XCTAssertEqual(failures(bus, clock, count: 2000).count, 0)
        motor.motorSwitched(active: true)
        let running = failures(bus, clock, count: 2000).count
        XCTAssertEqual(Double(running), 200, accuracy: 45, "about 10 % of 2000")
        motor.motorSwitched(active: false)
        XCTAssertEqual(failures(bus, clock, count: 2000).count, 0)

        let (idleBus, idleClock, _) = coupled(SimulatedMotorNoise(idleErrorRate: 0.05))
        XCTAssertEqual(Double(failures(idleBus, idleClock, count: 2000).count), 100, accuracy: 30, "about 5 % with the motor off")
    }

    func testTheSameSeedFailsTheSameTransactions() throws {
        func pattern(seed: UInt64) -> [Int] {
            let (bus, clock, motor) = coupled(SimulatedMotorNoise(errorRate: 0.3), seed: seed)
            motor.motorSwitched(active: true)
            return (0..<200).filter { _ in
                defer { clock.advance(ms: 1) }
                return (try? bus.readByte(address: mpu, register: 0x75)) == nil
            }
        }
        XCTAssertEqual(pattern(seed: 3), pattern(seed: 3))
        XCTAssertNotEqual(pattern(seed: 3), pattern(seed: 4))
    }

    func testABrownOutGoesUnansweredThenTheChipIsAtItsPowerOnState() throws {
        let (bus, clock, motor) = coupled(SimulatedMotorNoise(brownOutSeconds: 0.05))
        try bus.writeByte(address: mpu, register: 0x6B, value: 0x01)  // awake, PLL-X
        motor.motorSwitched(active: true)
        let lost = failures(bus, clock, count: 60)
        XCTAssertEqual(lost.count, 50)
        XCTAssertTrue(lost.allSatisfy { $0.kind == .noAcknowledgeAddress && $0.detail == "simulated: brown-out" }, "\(lost)")
        XCTAssertEqual(try bus.readByte(address: mpu, register: 0x6B), 0x40, "asleep, as at power-on")
        // Switching off browns nothing out.
        try bus.writeByte(address: mpu, register: 0x6B, value: 0x01)
        motor.motorSwitched(active: false)
        XCTAssertEqual(failures(bus, clock, count: 60).count, 0)
        XCTAssertEqual(try bus.readByte(address: mpu, register: 0x6B), 0x01)
    }

    func testAGlitchInvertsBit6OfEveryByteOfASampleBurstOnly() throws {
        let (bus, clock, motor) = coupled(SimulatedMotorNoise(glitchRate: 1))
        try bus.writeByte(address: mpu, register: 0x6B, value: 0x01)
        clock.advance(ms: 100)
        let clean = try bus.read(address: mpu, register: 0x3B, count: 14)
        motor.motorSwitched(active: true)
        let glitched = try bus.read(address: mpu, register: 0x3B, count: 14)
        XCTAssertEqual(glitched, clean.map { $0 ^ 0x40 })
        // +1 g on Z at ±2 g is 0x4000: the glitch reads about 0 g, a 1 g jump.
        XCTAssertEqual(int16BE(clean, 4), 16384)
        XCTAssertEqual(int16BE(glitched, 4), 64, "0x4000 ^ 0x4040: 0 g and 64 LSB")
        XCTAssertEqual(try bus.readByte(address: mpu, register: 0x75), 0x68, "a single register is left alone")
        motor.motorSwitched(active: false)
        XCTAssertEqual(try bus.read(address: mpu, register: 0x3B, count: 14), clean)
    }

    func testAQuietModelIsQuiet() {
        XCTAssertTrue(SimulatedMotorNoise().isQuiet)
        XCTAssertFalse(SimulatedMotorNoise(glitchRate: 0.01).isQuiet)
    }
}

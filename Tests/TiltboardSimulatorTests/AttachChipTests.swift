import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// What a library user's own test does with the public API only: a simulated bus, a simulated
/// chip of each registered family on it, and the family's driver opened on that bus.
final class AttachChipTests: XCTestCase {
    func testEachChipAttachedAtItsDefaultAddressIsFoundByItsDriverAndReadsGravity() throws {
        for kind in ChipKind.allCases {
            let clock = ManualClock()
            let bus = SimulatedI2CBus()
            bus.attachChip(kind, clock: clock, motion: Constant(accel: .unitZ))
            bus.recordsTrace = true

            let sensor = try kind.openSensor(bus: bus, address: kind.addresses[0], clock: clock)
            XCTAssertEqual(sensor.identity.chip, kind, "\(kind)")
            XCTAssertEqual(sensor.identity.address, kind.addresses[0], "\(kind)")
            try sensor.configure(SensorConfiguration(accelRangeG: 2, rateHz: 100))
            clock.advance(by: .milliseconds(100))
            let sample = try sensor.read(at: clock.nowSeconds())

            XCTAssertEqual(sample.accel.x, 0, accuracy: 0.01, "\(kind)")
            XCTAssertEqual(sample.accel.y, 0, accuracy: 0.01, "\(kind)")
            XCTAssertEqual(sample.accel.z, 1, accuracy: 0.01, "\(kind)")
            XCTAssertFalse(bus.trace.isEmpty, "\(kind)")
            XCTAssertEqual(Set(bus.trace.map(\.address)), [kind.addresses[0]], "\(kind): every transaction at the chip's address")
        }
    }

    func testAChipAttachedAtItsOtherAddressIsNotAtTheDefaultOne() throws {
        let clock = ManualClock()
        let bus = SimulatedI2CBus()
        bus.attachChip(.adxl345, at: 0x1D, clock: clock, motion: Constant(accel: .unitZ))

        XCTAssertEqual(try ChipKind.adxl345.openSensor(bus: bus, address: 0x1D, clock: clock).identity.address, 0x1D)
        XCTAssertThrowsError(try ChipKind.adxl345.openSensor(bus: bus, address: 0x53, clock: clock)) { error in
            XCTAssertEqual((error as? I2CError)?.kind, .noAcknowledgeAddress)
        }
    }
}

final class SimulatedLineDurationTests: XCTestCase {
    func testActiveTimeCountsEachPulseAndTheOngoingOne() throws {
        let clock = ManualClock()
        let line = SimulatedGPIOLine(clock: clock)
        try line.set(active: true)
        clock.advance(by: .milliseconds(150))
        try line.set(active: false)
        clock.advance(by: .milliseconds(500))
        try line.set(active: true)
        clock.advance(by: .milliseconds(25))
        XCTAssertEqual(line.activeTime.components.seconds, 0)
        XCTAssertEqual(Double(line.activeTime.components.attoseconds) / 1e15, 175, accuracy: 1e-6, "milliseconds")
    }
}

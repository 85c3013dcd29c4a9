import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// FIFO sample times on every chip when the FIFO count is read late in its tick.
final class FIFOTimestampTests: XCTestCase {
    /// Passes transactions to the simulated bus; the first one after `delayNext` is set moves
    /// the clock on by that much before the chip sees it, as a thread held up between waking
    /// and reading the FIFO count would.
    private final class LateBus: I2CBus {
        let inner: SimulatedI2CBus
        let clock: ManualClock
        var delayNext: UInt64 = 0
        var name: String { inner.name }

        init(_ inner: SimulatedI2CBus, clock: ManualClock) { self.inner = inner; self.clock = clock }

        func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                      pattern: I2CReadPattern) throws {
            clock.advance(byNanoseconds: delayNext)
            delayNext = 0
            try inner.transfer(address: address, write: write, read: read, pattern: pattern)
        }
    }

    /// A loop at 100 Hz drains the FIFO of a chip sampling at about 500 Hz; of every three ticks
    /// one reads the count 1.5 periods late within the drain, one begins the drain that late.
    /// Each stamp comes after the one before, and a batch whose count was read late in its drain
    /// ends within a period of that read.
    func testStampsIncreaseOnEveryChipWhenTheCountIsReadLate() throws {
        for kind in ChipKind.allCases {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let simulated = SimulatedI2CBus()
            let flat = Constant(accel: .unitZ)
            simulated.attach(SimulatedChipRegistry.factory(for: kind).makeChip(chipID: nil, clock: clock, motion: flat,
                                                                               imperfections: .ideal),
                             at: kind.addresses[0])
            let bus = LateBus(simulated, clock: clock)
            let sensor = try kind.openSensor(bus: bus, address: kind.addresses[0], clock: clock)
            try sensor.configure(SensorConfiguration(accelRangeG: 2, gyroRangeDps: 500, rateHz: 500, useFIFO: true))
            let period = 1 / sensor.actualRateHz
            let origin = clock.nowNanoseconds()
            var stamps: [Double] = []
            var late = 0
            for tick in 0..<30 {
                clock.set(nanoseconds: origin + UInt64(tick) * 10_000_000)
                let t = Nanoseconds.seconds(from: origin, to: clock.nowNanoseconds())
                let delay = Nanoseconds.span(seconds: 1.5 * period, rounded: .toNearestOrAwayFromZero)
                if tick % 3 == 2 { bus.delayNext = delay; late += 1 }
                // Held up after waking but before the drain begins: the driver cannot see it.
                if tick % 3 == 1 { clock.advance(byNanoseconds: delay) }
                let before = stamps.count
                let transactions = simulated.transactionCount
                let n = try sensor.drainFIFO(at: t) { stamps.append($0.t) }
                let countReadAt = Nanoseconds.seconds(from: origin, to: clock.nowNanoseconds())
                XCTAssertEqual(stamps.count - before, n, "\(kind)")
                guard n > 0 else { continue }
                if tick % 3 != 1 { XCTAssertEqual(stamps.last!, countReadAt, accuracy: period, "\(kind) tick \(tick)") }
                if kind == .mpu6050 {
                    XCTAssertEqual(simulated.transactionCount - transactions, 2, "count, then the whole batch")
                }
            }
            XCTAssertEqual(late, 10)
            XCTAssertGreaterThan(stamps.count, 100, "\(kind)")
            for (earlier, later) in zip(stamps, stamps.dropFirst()) where later <= earlier {
                XCTFail("\(kind): \(later) follows \(earlier)")
                break
            }
        }
    }

    /// A caller starting a new run (its times begin again at 0) is stamped on its own times.
    func testANewRunsEarlierTimesStartAfresh() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let simulated = SimulatedI2CBus()
        simulated.attach(SimulatedChipRegistry.factory(for: .mpu6050).makeChip(chipID: nil, clock: clock, motion: Constant(accel: .unitZ),
                                                                               imperfections: .ideal),
                         at: ChipKind.mpu6050.addresses[0])
        let sensor = try ChipKind.mpu6050.openSensor(bus: simulated, address: ChipKind.mpu6050.addresses[0], clock: clock)
        try sensor.configure(SensorConfiguration(rateHz: 500, useFIFO: true))
        clock.advance(bySeconds: 0.02)
        var last = 0.0
        XCTAssertGreaterThan(try sensor.drainFIFO(at: 5) { last = $0.t }, 0)
        XCTAssertEqual(last, 5, accuracy: 1e-9)
        clock.advance(bySeconds: 0.02)
        var first: Double?
        XCTAssertGreaterThan(try sensor.drainFIFO(at: 0.02) { first = first ?? $0.t }, 0)
        XCTAssertEqual(try XCTUnwrap(first), 0.002, accuracy: 0.0025)
    }
}

import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest
import TiltboardTestSupport

// Motion-interrupt registers, declared here independently of the drivers (MPU-6050 Register Map rev 3.2, ADXL345 data sheet rev E).
private let MOT_THR: UInt8 = 0x1F
private let MOT_DUR: UInt8 = 0x20
private let INT_PIN_CFG: UInt8 = 0x37
private let MOT_DETECT_CTRL: UInt8 = 0x69
private let ADXL_ADDR: UInt8 = 0x53
private let THRESH_ACT: UInt8 = 0x24
private let ACT_INACT_CTL: UInt8 = 0x27
private let BW_RATE: UInt8 = 0x2C
private let POWER_CTL: UInt8 = 0x2D
private let ADXL_INT_ENABLE: UInt8 = 0x2E
private let INT_MAP: UInt8 = 0x2F
private let INT_SOURCE: UInt8 = 0x30
private let DATA_FORMAT: UInt8 = 0x31

private let ms: UInt64 = 1_000_000

/// Flat for 1 s, a 4 Hz 2 g shake along X for 0.5 s, then flat.
private let restShakeRest = try! MotionScript(segments: [
    .hold(TiltAngles(pitchDeg: 0, rollDeg: 0), seconds: 1),
    .shake(axis: Vector3(1, 0, 0), frequencyHz: 4, peakG: 2, seconds: 0.5),
    .hold(TiltAngles(pitchDeg: 0, rollDeg: 0), seconds: 2),
])

/// The simulated chips' motion detectors and INT pins, driven through raw register writes.
final class InterruptPinTests: XCTestCase {
    var clock = ManualClock()
    var bus = SimulatedI2CBus()

    // MARK: MPU-6050

    /// A noisy MPU-6050 at 100 Hz, motion interrupt armed: 0.63 Hz high-pass, MOT_THR (96 mg),
    /// MOT_DUR 1 ms, latched active-high pin unless `pinConfig` says otherwise.
    private func armedMPU(_ motion: MotionSource, highPass: UInt8 = 4, threshold: UInt8 = 3,
                          pinConfig: UInt8 = 0x20) throws -> SimulatedMPU6050 {
        clock = ManualClock(startNanoseconds: 7_000 * ms)
        bus = SimulatedI2CBus()
        let chip = SimulatedMPU6050(clock: clock, motion: motion,
                                    imperfections: .datasheet(chip: .mpu6050, seed: 3))
        bus.attach(chip, at: MPU.address)
        try w(MPU.PWR_MGMT_1, 0x01)
        try w(MPU.SMPLRT_DIV, 9)
        try w(MPU.CONFIG, 3)
        try w(MPU.ACCEL_CONFIG, highPass)
        try w(MOT_THR, threshold)
        try w(MOT_DUR, 1)
        try w(MOT_DETECT_CTRL, 0x01)
        try w(INT_PIN_CFG, pinConfig)
        try w(MPU.INT_ENABLE, 0x40)
        return chip
    }

    private func w(_ reg: UInt8, _ v: UInt8, at address: UInt8 = MPU.address) throws {
        try bus.writeByte(address: address, register: reg, value: v)
    }

    private func r(_ reg: UInt8, at address: UInt8 = MPU.address) throws -> UInt8 {
        try bus.readByte(address: address, register: reg)
    }

    /// Script seconds on the clock (the script starts when the chip is created, at 7 s).
    private var scriptSeconds: Double { Nanoseconds.seconds(from: 7_000 * ms, to: clock.nowNanoseconds()) }

    func testStillNoisyMPU6050RaisesNothingAndTheWaitTimesOutOnTheClock() throws {
        let chip = try armedMPU(restShakeRest)
        let pin = chip.interruptPin
        XCTAssertFalse(try pin.waitForEdge(within: .milliseconds(900), on: clock))
        XCTAssertEqual(clock.nowNanoseconds(), 7_900 * ms, "the wait steps the manual clock to its timeout")
        XCTAssertFalse(pin.isHigh)
        XCTAssertEqual(pin.risingEdges, 0)
        XCTAssertEqual(try r(MPU.INT_STATUS) & 0x40, 0)
        XCTAssertEqual(chip.samplesTaken, 90)
    }

    func testTheDeadlineWaitEndsOnTheEdgeTheStopOrTheDeadline() throws {
        let chip = try armedMPU(restShakeRest)
        let pin = chip.interruptPin
        let stop = pin.makeWakeStop()
        // Still until 1 s of script: the deadline comes first, exactly.
        XCTAssertEqual(try pin.waitForEdge(until: 7_900 * ms, on: clock, stop: stop), .deadline)
        XCTAssertEqual(clock.nowNanoseconds(), 7_900 * ms)
        // No deadline: the shake's first sample over the threshold.
        XCTAssertEqual(try pin.waitForEdge(until: nil, on: clock, stop: stop), .edge)
        XCTAssertEqual(scriptSeconds, 1.01, accuracy: 1e-9)
        // Requested: the wait returns at once, with edges still coming and no time passing.
        stop.request()
        let now = clock.nowNanoseconds()
        XCTAssertEqual(try pin.waitForEdge(until: nil, on: clock, stop: stop), .stopped)
        XCTAssertEqual(clock.nowNanoseconds(), now)
    }

    func testEveryQueuedEdgeIsDiscardedWithoutWaiting() throws {
        let pin = SimulatedInterruptPin(name: "sim INT", clock: clock)
        for _ in 0..<100 { pin.pulse() }
        let now = clock.nowNanoseconds()
        XCTAssertEqual(try pin.discardQueuedEdges(), 100)
        XCTAssertEqual(try pin.discardQueuedEdges(), 0)
        XCTAssertEqual(clock.nowNanoseconds(), now)
        XCTAssertFalse(try pin.waitForEdge(within: .zero, on: clock))
        XCTAssertEqual(pin.risingEdges, 100)
        pin.release()
        XCTAssertThrowsError(try pin.discardQueuedEdges())
    }

    func testShakeLatchesMOTINTAndThePinUntilINTSTATUSIsRead() throws {
        let chip = try armedMPU(restShakeRest)
        let pin = chip.interruptPin
        XCTAssertTrue(try pin.waitForEdge(within: .milliseconds(2_000), on: clock))
        // The shake starts at 1.000 s; 2 g·sin(2π·4·t) passes 96 mg after 2 ms, so the sample
        // tick at 1.01 s is the first to see it.
        XCTAssertEqual(scriptSeconds, 1.01, accuracy: 1e-9)
        XCTAssertTrue(pin.isHigh, "latched")
        clock.advance(ms: 3)
        XCTAssertTrue(pin.isHigh, "still latched between samples")
        let status = try r(MPU.INT_STATUS)
        XCTAssertEqual(status & 0x40, 0x40)
        XCTAssertFalse(pin.isHigh, "reading INT_STATUS clears the latch and drops the pin")
        XCTAssertFalse(try pin.waitForEdge(within: .zero, on: clock), "one edge, already consumed")
        // The shake goes on: the next sample over the threshold raises the pin again.
        XCTAssertTrue(try pin.waitForEdge(within: .milliseconds(100), on: clock))
        XCTAssertTrue(pin.isHigh)
        XCTAssertEqual(pin.risingEdges, 2)
    }

    func testAfterTheShakeStopsTheAcknowledgedPinStaysLow() throws {
        let chip = try armedMPU(restShakeRest)
        clock.set(nanoseconds: 7_000 * ms + 2_500 * ms)  // 1 s after the shake ended
        _ = try r(MPU.INT_STATUS)
        XCTAssertFalse(chip.interruptPin.isHigh)
        XCTAssertFalse(try chip.interruptPin.waitForEdge(within: .zero, on: clock), "edges from the shake are consumed here")
        XCTAssertFalse(try chip.interruptPin.waitForEdge(within: .milliseconds(500), on: clock))
        XCTAssertEqual(try r(MPU.INT_STATUS) & 0x40, 0)
    }

    func testASlowTiltWakesThroughTheLowHighPass() throws {
        let chip = try armedMPU(MotionScript.builtIn(named: "tilt-left")!)
        // Flat 0.5 s, then 30° of roll over 1 s: Y changes by 0.5 g, which 0.63 Hz lets through.
        XCTAssertTrue(try chip.interruptPin.waitForEdge(within: .milliseconds(2_000), on: clock))
        XCTAssertGreaterThan(scriptSeconds, 0.5)
        XCTAssertLessThan(scriptSeconds, 1.5)
    }

    func testNoMotionDetectionWithoutTheHighPass() throws {
        // ACCEL_HPF = 0: the motion detector does not work (Register Map rev 3.2, ACCEL_CONFIG).
        let chip = try armedMPU(restShakeRest, highPass: 0)
        XCTAssertFalse(try chip.interruptPin.waitForEdge(within: .milliseconds(2_000), on: clock))
        XCTAssertEqual(try r(MPU.INT_STATUS) & 0x40, 0)
    }

    func testAThresholdAboveTheShakeStaysQuiet() throws {
        // 80 × 32 mg = 2.56 g, over the 2 g shake.
        let chip = try armedMPU(restShakeRest, threshold: 80)
        XCTAssertFalse(try chip.interruptPin.waitForEdge(within: .milliseconds(2_000), on: clock))
    }

    func testUnlatchedPinPulsesPerEventAndStaysLow() throws {
        let chip = try armedMPU(restShakeRest, pinConfig: 0x00)
        XCTAssertTrue(try chip.interruptPin.waitForEdge(within: .milliseconds(2_000), on: clock))
        XCTAssertFalse(chip.interruptPin.isHigh)
        XCTAssertTrue(try chip.interruptPin.waitForEdge(within: .milliseconds(20), on: clock),
                      "the next sample over the threshold pulses again without any read")
    }

    func testActiveLowLatchedPinIdlesHighAndFallsOnMotion() throws {
        let chip = try armedMPU(restShakeRest, pinConfig: 0xA0)
        _ = try r(MPU.INT_STATUS)
        XCTAssertTrue(chip.interruptPin.isHigh)
        clock.set(nanoseconds: 7_000 * ms + 1_050 * ms)
        _ = try r(MPU.WHO_AM_I)
        XCTAssertFalse(chip.interruptPin.isHigh)
    }

    func testAReleasedPinRefusesToWait() throws {
        let chip = try armedMPU(restShakeRest)
        chip.interruptPin.release()
        XCTAssertThrowsError(try chip.interruptPin.waitForEdge(within: .zero, on: clock)) { error in
            XCTAssertEqual((error as? GPIOError)?.kind, .io)
        }
    }

    // MARK: ADXL345

    /// A noisy ADXL345 at 100 Hz, ac-coupled activity on X/Y/Z above `threshold` × 62.5 mg, INT1.
    private func armedADXL(_ motion: MotionSource, threshold: UInt8 = 2, format: UInt8 = 0x08,
                           noise: Bool = true) throws -> SimulatedADXL345 {
        clock = ManualClock(startNanoseconds: 7_000 * ms)
        bus = SimulatedI2CBus()
        let chip = SimulatedADXL345(clock: clock, motion: motion,
                                    imperfections: noise ? .datasheet(chip: .adxl345, seed: 3) : .ideal)
        bus.attach(chip, at: ADXL_ADDR)
        try w(DATA_FORMAT, format, at: ADXL_ADDR)
        try w(BW_RATE, 0x0A, at: ADXL_ADDR)
        try w(POWER_CTL, 0x08, at: ADXL_ADDR)
        try w(ADXL_INT_ENABLE, 0, at: ADXL_ADDR)
        try w(THRESH_ACT, threshold, at: ADXL_ADDR)
        try w(ACT_INACT_CTL, 0xF0, at: ADXL_ADDR)
        try w(INT_MAP, 0, at: ADXL_ADDR)
        try w(ADXL_INT_ENABLE, 0x10, at: ADXL_ADDR)
        return chip
    }

    func testStillADXL345RaisesNoActivity() throws {
        // Tilted: ac coupling compares against the pose at arming, so gravity never counts.
        let tilted = try MotionScript(start: TiltAngles(pitchDeg: 20, rollDeg: -35), segments: [])
        let chip = try armedADXL(tilted)
        XCTAssertFalse(try chip.interruptPin.waitForEdge(within: .milliseconds(2_000), on: clock))
        XCTAssertEqual(try r(INT_SOURCE, at: ADXL_ADDR) & 0x10, 0)
        XCTAssertEqual(chip.interruptPin.risingEdges, 0)
    }

    func testADXL345ActivityOnAShakeLatchesUntilINTSOURCEIsRead() throws {
        let chip = try armedADXL(restShakeRest)
        XCTAssertTrue(try chip.interruptPin.waitForEdge(within: .milliseconds(2_000), on: clock))
        // 125 mg is passed 2.5 ms into the shake: the 1.01 s sample.
        XCTAssertEqual(scriptSeconds, 1.01, accuracy: 1e-9)
        XCTAssertTrue(chip.interruptPin.isHigh)
        XCTAssertEqual(try r(0x2B, at: ADXL_ADDR) & 0x70, 0x40, "ACT_TAP_STATUS names X")
        XCTAssertEqual(try r(INT_SOURCE, at: ADXL_ADDR) & 0x10, 0x10)
        XCTAssertFalse(chip.interruptPin.isHigh)
        XCTAssertEqual(try r(INT_SOURCE, at: ADXL_ADDR) & 0x10, 0, "cleared by the first read")
    }

    func testADXL345CatchesAShortTap() throws {
        let chip = try armedADXL(MotionScript.builtIn(named: "tap")!, threshold: 8, noise: false)
        XCTAssertTrue(try chip.interruptPin.waitForEdge(within: .milliseconds(1_000), on: clock))
        XCTAssertEqual(scriptSeconds, 0.51, accuracy: 1e-9, "the one sample inside the 15 ms spike")
    }

    func testADXL345ActivityMappedToINT2LeavesINT1LowAndInvertIdlesHigh() throws {
        let chip = try armedADXL(restShakeRest)
        try w(INT_MAP, 0x10, at: ADXL_ADDR)
        XCTAssertFalse(try chip.interruptPin.waitForEdge(within: .milliseconds(1_500), on: clock))
        XCTAssertEqual(try r(INT_SOURCE, at: ADXL_ADDR) & 0x10, 0x10, "the event is flagged, only not on INT1")

        let inverted = try armedADXL(restShakeRest, format: 0x28)
        _ = try r(0x00, at: ADXL_ADDR)
        XCTAssertTrue(inverted.interruptPin.isHigh)
        clock.set(nanoseconds: 7_000 * ms + 1_050 * ms)
        _ = try r(0x00, at: ADXL_ADDR)
        XCTAssertFalse(inverted.interruptPin.isHigh)
    }
}

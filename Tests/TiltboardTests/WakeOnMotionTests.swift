import XCTest
import CAllocationCounter
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers
import TiltboardTestSupport

/// The loop sleeping on the simulated chip's interrupt pin while still and waking on motion,
/// on a manual clock (deterministic and instant).
final class WakeOnMotionTests: XCTestCase {
    /// Script: flat 4 s, a 4 Hz 2 g shake for 1 s, flat 4 s (the shipped wake board's script).
    static let script = packageRoot + "/Boards/scripts/rest-shake-rest.json"
    static let shakeOnset = 4.0

    private func session(_ chip: ChipKind, clock: MonotonicClock, script: String = WakeOnMotionTests.script,
                         interrupt: Bool = true) throws -> BoardSession {
        var board = BoardDescription.builtInSimulated(chip: chip, script: script)
        board.simulation?.seed = 9
        if interrupt {
            board.interrupt = .init(line: .init(chip: "simulated", line: .offset(4)))
        }
        return try BoardSession(board: board, clock: clock, useProfile: false)
    }

    func testTheFirstShakeAfterWakingIsDetectedWithinTheLatencyBudget() throws {
        for chip in [ChipKind.mpu6050, .adxl345] {
            let name = chip.partName
            // The chip (and its script) starts when the session opens, at clock 1 s.
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let s = try session(chip, clock: clock)
            defer { s.close() }
            nonisolated(unsafe) var events: [(WakeEvent, script: Double)] = []
            let loop = try wakingLoop(s) { event in events.append((event, clock.nowSeconds() - 1)) }
            nonisolated(unsafe) var outputs: [PipelineOutput] = []
            nonisolated(unsafe) var shakeAt: Double?
            _ = try loop.start(for: .seconds(8), observers: [LoopObserver(sample: { out, _ in
                outputs.append(out)
                if shakeAt == nil, out.shakeEvent?.phase == .started { shakeAt = clock.nowSeconds() - 1 }
            })]).wait()
            // Still from the start: asleep 2 s later, awake at the shake, asleep 2 s after it ends.
            XCTAssertEqual(events.count, 3, "\(name): \(events)")
            guard events.count == 3 else { continue }
            guard case .sleeping = events[0].0, case let .woke(_, asleep) = events[1].0, case .sleeping = events[2].0 else {
                XCTFail("\(name): \(events)"); continue
            }
            let period = 0.01
            let wokeAt = events[1].script
            XCTAssertGreaterThanOrEqual(wokeAt, Self.shakeOnset, name)
            XCTAssertLessThanOrEqual(wokeAt, Self.shakeOnset + period + 1e-9, "\(name): wake latency")
            XCTAssertEqual(Nanoseconds.seconds(asleep), wokeAt - events[0].script, accuracy: 1e-9)
            let detected = try XCTUnwrap(shakeAt, "\(name): the shake after waking was missed")
            // On the shake's third half-cycle: 250 ms, plus the 16 ms the 2 g sine takes to reach 0.8 g,
            // and a sample while its direction forms.
            XCTAssertGreaterThan(detected - Self.shakeOnset, 0.25, "\(name): detection latency")
            XCTAssertLessThanOrEqual(detected - Self.shakeOnset, 0.266 + 2 * period, "\(name): detection latency")
            XCTAssertGreaterThan(events[2].script, Self.shakeOnset + 1 + 1.9, name)

            let stats = loop.wakeStatistics
            XCTAssertEqual(stats.sleeps, 2, name)
            XCTAssertEqual(stats.wakeups, 1, name)
            // Samples plus the ticks skipped asleep make up the 8 s at 100 Hz.
            let skipped = stats.ticksSkipped(rateHz: 100)
            XCTAssertGreaterThan(skipped, 200, name)
            XCTAssertEqual(Double(loop.samples + skipped), 800, accuracy: 3, name)
            XCTAssertEqual(loop.scheduler.statistics.ticks, loop.samples, name)
            XCTAssertEqual(loop.scheduler.statistics.missedTicks, 0, "\(name): sleeping is not a missed tick")
        }
    }

    func testWakingResumesWithoutAJumpInTiltOrMarker() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        // Tilted 20° forward, so the marker is moving when the loop falls asleep.
        let folder = try makeScratchFolder(self)
        let path = folder + "/tilted.json"
        try #"{"start": {"pitchDeg": 20, "rollDeg": 0}, "segments": [{"hold": {"seconds": 4}}, {"shake": {"axis": [1, 0, 0], "frequencyHz": 4, "peakG": 2, "seconds": 1}}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let s = try session(.mpu6050, clock: clock, script: path)
        defer { s.close() }
        nonisolated(unsafe) var sleptAfter = -1
        nonisolated(unsafe) var outputs: [PipelineOutput] = []
        let loop = try wakingLoop(s) { event in
            if case .sleeping = event { sleptAfter = outputs.count - 1 }
        }
        _ = try loop.start(for: .seconds(4.5), observers: [LoopObserver(sample: { out, _ in outputs.append(out) })]).wait()
        XCTAssertGreaterThan(sleptAfter, 0)
        guard sleptAfter > 0, sleptAfter + 1 < outputs.count else { return XCTFail("never slept and woke") }
        let before = outputs[sleptAfter], after = outputs[sleptAfter + 1]
        XCTAssertGreaterThan(after.t - before.t, 1.5, "a gap of about 2 s")
        // The first sample after the gap is a first step: nothing integrates over the sleep.
        XCTAssertEqual(after.control.x, before.control.x)
        XCTAssertEqual(after.control.y, before.control.y)
        XCTAssertEqual(after.tilt.pitchDeg, before.tilt.pitchDeg, accuracy: 1e-12)
        XCTAssertEqual(after.tilt.rollDeg, before.tilt.rollDeg, accuracy: 1e-12)
    }

    func testAStopRequestIsHonouredWhileAsleep() throws {
        // On a virtual clock the test thread takes part in time: it sleeps to 3 s and stops the
        // loop, asleep on the pin since about 1 s. The stop wakes the pin's wait at that instant:
        // no time passes after it (no periodic look at a flag, no wait for the next sample tick).
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let s = try session(.adxl345, clock: clock, script: "flat")
        defer { s.close() }
        nonisolated(unsafe) var asleepAt: UInt64?
        let loop = try wakingLoop(s, rateHz: 50, WakeOnMotionSettings(idleSeconds: 1)) { event in
            if case .sleeping = event { asleepAt = clock.nowNanoseconds() }
        }
        // Not on a sample tick of the loop (20 ms) or of the chip.
        let stopAt: UInt64 = 4_000_000_000 + 123_457
        let running = clock.takingPart { () -> RunningLoop in
            let running = loop.start()
            // Time holds still while this thread runs: wait until the loop thread takes part.
            while clock.runningThreads < 2 && clock.waitingThreads == 0 && !running.isFinished { sched_yield() }
            clock.sleep(untilNanoseconds: stopAt)
            running.stop()
            return running
        }
        try running.wait()
        XCTAssertEqual(clock.nowNanoseconds(), stopAt, "the stop ended the sleep at its own instant")
        let stats = loop.wakeStatistics
        XCTAssertEqual(stats.sleeps, 1)
        XCTAssertEqual(stats.wakeups, 0)
        let slept = try XCTUnwrap(asleepAt)
        XCTAssertEqual(Nanoseconds.seconds(slept), 2, accuracy: 0.3, "asleep after 1 s still")
        XCTAssertEqual(stats.idleSeconds, Nanoseconds.seconds(from: slept, to: stopAt), accuracy: 1e-9)
        XCTAssertLessThan(loop.samples, 70)
    }

    func testAStopFromTheSleepingEventTakesNoTimeOnAManualClock() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(.mpu6050, clock: clock, script: "flat")
        defer { s.close() }
        nonisolated(unsafe) var asleepAt: UInt64?
        nonisolated(unsafe) var loopRef: TiltLoop?
        let loop = try wakingLoop(s, rateHz: 50, WakeOnMotionSettings(idleSeconds: 1)) { event in
            if case .sleeping = event { asleepAt = clock.nowNanoseconds(); loopRef?.stop() }
        }
        loopRef = loop
        _ = try loop.start().wait()
        XCTAssertEqual(clock.nowNanoseconds(), try XCTUnwrap(asleepAt))
        XCTAssertEqual(loop.wakeStatistics.sleeps, 1)
        XCTAssertEqual(loop.wakeStatistics.idleSeconds, 0)
    }

    func testEveryStaleEdgeIsDrainedBeforeSleeping() throws {
        // 100 edges queued on the pin while awake (more than a blind cap of 64 would take): all are
        // dropped when the loop goes to sleep, so none leads to a look at the chip's flag while asleep.
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(.mpu6050, clock: clock, script: "flat")
        defer { s.close() }
        let pin = try XCTUnwrap(try s.wakeLine() as? SimulatedInterruptPin)
        for _ in 0..<100 { pin.pulse() }
        let bus = try XCTUnwrap(s.simulatedBus)
        nonisolated(unsafe) var transactionsAsleep: Int?
        let loop = try wakingLoop(s, rateHz: 50, WakeOnMotionSettings(idleSeconds: 1)) { event in
            if case .sleeping = event { transactionsAsleep = bus.transactionCount }
        }
        _ = try loop.start(for: .seconds(3), observers: [LoopObserver(sample: { _, _ in })]).wait()
        let asleep = try XCTUnwrap(transactionsAsleep)
        XCTAssertEqual(bus.transactionCount - asleep, 0, "no edge while asleep, so no look at the flag")
        XCTAssertEqual(loop.wakeStatistics.sleeps, 1)
        XCTAssertEqual(loop.wakeStatistics.wakeups, 0)
        XCTAssertGreaterThan(loop.wakeStatistics.idleSeconds, 1.5, "asleep until the end of the run")
        XCTAssertFalse(try pin.waitForEdge(within: .zero, on: clock), "none left queued")
    }

    func testABoardWithoutAnInterruptSectionIsRefusedWithTheFix() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(.mpu6050, clock: clock, script: "flat", interrupt: false)
        defer { s.close() }
        XCTAssertThrowsError(try s.wakeLine()) { error in
            let e = error as? BoardFileError
            XCTAssertEqual(e?.key, "interrupt")
            XCTAssertEqual(e?.problem, .noInterruptLine)
        }
    }

    func testTheSessionOpensTheSimulatedChipsOwnPinAndReleasesItOnClose() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(.mpu6050, clock: clock, script: "flat")
        let line = try XCTUnwrap(try s.openInterruptLine() as? SimulatedInterruptPin)
        XCTAssertTrue(line === (s.simulatedDevice as? SimulatedMPU6050)?.interruptPin)
        XCTAssertTrue(try s.openInterruptLine() === line, "opened once")
        s.close()
        XCTAssertTrue(line.isReleased)
    }

    func testSamplingWithWakeOnMotionDoesNotAllocatePerSample() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(.mpu6050, clock: clock)
        defer { s.close() }
        let loop = try wakingLoop(s)
        let capacity = 900
        let before = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: capacity)
        let after = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: capacity)
        let times = UnsafeMutableBufferPointer<Double>.allocate(capacity: capacity)
        defer { before.deallocate(); after.deallocate(); times.deallocate() }
        nonisolated(unsafe) var n = 0
        _ = try loop.start(for: .seconds(8), observers: [LoopObserver(sample: { out, _ in
            if n < capacity { before[n] = tiltboard_thread_allocation_count(); times[n] = out.t }
            if n < capacity { after[n] = tiltboard_thread_allocation_count() }
            n += 1
        })]).wait()
        XCTAssertGreaterThan(n, 300)
        // Between one sample's exit and the next one's entry: read, pipeline, idle check. A sample
        // after a gap also carries the whole sleep (arming, waiting, acknowledging, restarting the
        // ticks): a few allocations there are once per wake, not per sample.
        var perSample: UInt64 = 0, perWake: UInt64 = 0, wakes = 0
        for i in 10..<min(n, capacity) {
            let count = before[i] &- after[i - 1]
            if times[i] - times[i - 1] > 0.5 { perWake += count; wakes += 1 } else { perSample += count }
        }
        XCTAssertEqual(wakes, 1)
        XCTAssertEqual(perSample, 0)
        XCTAssertLessThanOrEqual(perWake, 4)
    }
}

extension WakeOnMotionTests {
    /// The board's loop waking on motion with `settings`, its sleeps and wakes to `events`.
    func wakingLoop(_ session: BoardSession, rateHz: Double = 100, _ settings: WakeOnMotionSettings = WakeOnMotionSettings(),
                    events: @escaping (WakeEvent) -> Void = { _ in }) throws -> TiltLoop {
        var configuration = TiltLoop.Configuration(rateHz: rateHz)
        configuration.wakeOnMotion = WakeOnMotion(settings: settings, line: try session.wakeLine())
        let loop = session.makeLoop(configuration, haptics: nil)
        loop.observe(LoopObserver(event: { if case let .wake(event) = $0 { events(event) } }))
        return loop
    }
}

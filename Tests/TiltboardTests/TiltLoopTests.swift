import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

final class TiltLoopTests: XCTestCase {
    private func session(script: String, clock: MonotonicClock) throws -> BoardSession {
        var board = BoardDescription.builtInSimulated(script: script)
        board.simulation?.noise = false
        return try BoardSession(board: board, clock: clock, useProfile: false)
    }

    func testTiltLeftDrivesTheMarkerToTheLeftEdgeAndStops() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(script: "tilt-left", clock: clock)
        let loop = s.makeLoop(rateHz: 100, haptics: nil)
        nonisolated(unsafe) var outputs: [PipelineOutput] = []
        _ = try loop.start(for: .seconds(3.4), observers: [LoopObserver(sample: { out, _ in outputs.append(out) })]).wait()
        XCTAssertGreaterThan(outputs.count, 300)
        let last = try XCTUnwrap(outputs.last)
        XCTAssertEqual(last.control.x, -1, accuracy: 1e-9)
        XCTAssertTrue(last.control.atEdgeX)
        XCTAssertEqual(last.control.vx, 0, accuracy: 1e-9)
        XCTAssertEqual(last.control.y, 0, accuracy: 0.02)
        XCTAssertEqual(last.tilt.rollDeg, -30, accuracy: 1)
        // x only ever moves left once the tilt starts.
        let xs = outputs.map(\.control.x)
        XCTAssertTrue(zip(xs, xs.dropFirst()).allSatisfy { $1 <= $0 + 1e-9 })
    }

    /// The motor's own thread on the virtual clock: its edges land exactly when they are due.
    func testShakeStartsTheMotor() throws {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let s = try session(script: "shake", clock: clock)
        let line = try XCTUnwrap(try s.openMotor() as? SimulatedGPIOLine)
        let engine = HapticEngine(line: line, clock: clock)
        defer { engine.shutdown() }
        let loop = s.makeLoop(rateHz: 100, haptics: engine)
        nonisolated(unsafe) var started: Double?
        nonisolated(unsafe) var shakingSamples = 0
        _ = try loop.start(for: .seconds(2), observers: [LoopObserver(sample: { out, _ in
            if out.shaking { shakingSamples += 1 }
            // Script time: the simulated chip's motion began when the session was opened (clock 1 s).
            if started == nil, out.shakeEvent?.phase == .started { started = clock.nowSeconds() - 1 }
        })]).wait()
        let t = try XCTUnwrap(started)
        // The script shakes at 4 Hz from 1.0 s; detection on the third half-cycle, from 1.25 s.
        XCTAssertGreaterThan(t, 1.25)
        XCTAssertLessThan(t, 1.30)
        // The script shakes for a whole second: the shake state holds, it is not a blip.
        XCTAssertGreaterThan(shakingSamples, 50)
        // The board's shake effect, pulse:150, from the sample that detected the shake.
        XCTAssertEqual(line.changes.map(\.active), [true, false])
        for (change, due) in zip(line.changes, [t, t + 0.15]) { XCTAssertEqual(change.t - 1, due, accuracy: 1e-9) }
    }

    /// The mailbox: work posted between two ticks all runs at the next tick boundary, before
    /// that tick's read, in the order posted; a throwing piece is tried again at the following
    /// ticks until it succeeds or newer work arrives.
    func testPostedWorkRunsInOrderAtTheNextTickAndAFailureIsRetriedUntilNewerWork() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(script: "flat", clock: clock)
        defer { s.close() }
        let loop = s.makeLoop(rateHz: 100)
        struct Failed: Error {}
        let log = Log()
        nonisolated(unsafe) var flakyTries = 0
        _ = try loop.start(for: .seconds(1), observers: [LoopObserver(sample: { _, _ in
            switch loop.samples {
            case 10:
                for name in ["a", "b", "c"] { loop.perform { log.add("\(name)@\($0.samples)") } }
            case 20:
                loop.perform { loop in
                    flakyTries += 1
                    log.add("flaky \(flakyTries)@\(loop.samples)")
                    if flakyTries < 3 { throw Failed() }
                }
            case 30:
                loop.perform { log.add("stale@\($0.samples)"); throw Failed() }
            case 32:
                loop.perform { log.add("newer@\($0.samples)") }
            default: break
            }
        })]).wait()
        XCTAssertEqual(log.list, ["a@10", "b@10", "c@10",
                                  "flaky 1@20", "flaky 2@21", "flaky 3@22",
                                  "stale@30", "stale@31", "stale@32", "newer@32"])
    }

    /// An observer added while the loop runs hears it from the next tick on, and every later run.
    func testAnObserverAddedWhileRunningHearsFromTheNextTick() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(script: "flat", clock: clock)
        defer { s.close() }
        let loop = s.makeLoop(rateHz: 100)
        let log = Log()
        let late = LoopObserver(sample: { _, _ in log.add("late@\(loop.samples)") })
        let running = loop.start(for: .seconds(0.1), observers: [LoopObserver(sample: { _, _ in
            if loop.samples == 5 { loop.observe(late) }
        })])
        try running.wait()
        let first = running.totals.samples
        XCTAssertGreaterThanOrEqual(first, 10)
        XCTAssertEqual(log.list, (6...first).map { "late@\($0)" })
        // Added with `observe`, it hears the next run too (where the first left off).
        let second = loop.start(for: .seconds(0.03))
        try second.wait()
        XCTAssertGreaterThan(second.totals.samples, first)
        XCTAssertEqual(log.list, (6...second.totals.samples).map { "late@\($0)" })
    }

    /// `stop()` on the handle ends the run: the one way to end it early.
    func testTheHandlesStopEndsTheRun() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(script: "flat", clock: clock)
        defer { s.close() }
        let loop = s.makeLoop(rateHz: 100)
        nonisolated(unsafe) var seen: UInt64 = 0
        let holder = HandleHolder()
        let running = loop.start(observers: [LoopObserver(sample: { _, _ in
            seen = loop.samples
            if loop.samples == 25 { holder.running?.stop() ?? loop.stop() }
        })])
        holder.running = running
        try running.wait()
        XCTAssertTrue(running.isFinished)
        XCTAssertEqual(seen, 25)
        XCTAssertEqual(running.totals.samples, 25)
    }
}

/// Entries from the loop thread, read after the run.
private final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var list: [String] { lock.withLock { stored } }
    func add(_ entry: String) { lock.withLock { stored.append(entry) } }
}

private final class HandleHolder: @unchecked Sendable {
    var running: RunningLoop?
}

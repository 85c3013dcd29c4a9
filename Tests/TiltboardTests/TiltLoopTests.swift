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
}

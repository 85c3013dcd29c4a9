import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// The whole per-sample path on simulator scripts, on a manual clock (instant, deterministic).
final class PipelineScriptTests: XCTestCase {
    private func session(script: String, clock: ManualClock, rate: Double? = nil, fifo: Bool? = nil) throws -> BoardSession {
        var board = BoardDescription.builtInSimulated(script: script)
        board.simulation?.noise = false
        return try BoardSession(board: board, clock: clock, useProfile: false, rateHz: rate, fifo: fifo)
    }

    private func run(script: String, rate: Double = 100, seconds: Double,
                     controller: TiltControllerSettings = TiltControllerSettings()) throws -> [PipelineOutput] {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let loop = try session(script: script, clock: clock, rate: rate).makeLoop(rateHz: rate, haptics: nil,
                                                                                  controller: controller)
        nonisolated(unsafe) var outputs: [PipelineOutput] = []
        _ = try loop.start(for: .seconds(seconds), observers: [LoopObserver(sample: { out, _ in outputs.append(out) })]).wait()
        return outputs
    }

    /// The output nearest to time `t`.
    private func at(_ t: Double, _ outputs: [PipelineOutput]) -> PipelineOutput {
        outputs.min(by: { abs($0.t - t) < abs($1.t - t) })!
    }

    func testTiltForwardDrivesTheMarkerToTheFarEdgeAndStops() throws {
        let outputs = try run(script: "tilt-forward", seconds: 3.4)
        let last = try XCTUnwrap(outputs.last)
        XCTAssertEqual(last.control.y, 1, accuracy: 1e-9)
        XCTAssertTrue(last.control.atEdgeY)
        XCTAssertEqual(last.control.vy, 0, accuracy: 1e-9)
        XCTAssertEqual(last.control.x, 0, accuracy: 0.02)
        XCTAssertEqual(last.tilt.pitchDeg, 30, accuracy: 1)
        XCTAssertEqual(last.control.headingDeg, 90, accuracy: 2)
        let ys = outputs.map(\.control.y)
        XCTAssertTrue(zip(ys, ys.dropFirst()).allSatisfy { $1 >= $0 - 1e-9 }, "y moved back")
    }

    func testDemoVisitsEveryEdgeThenShakes() throws {
        let outputs = try run(script: "demo", seconds: 12.5)
        XCTAssertEqual(outputs.count, 1251)
        // Script time runs ahead of loop time by the chip's start-up (configuration waits for it).
        func window(_ from: Double, _ to: Double) -> [PipelineOutput] { outputs.filter { $0.t >= from && $0.t <= to } }
        // Left hold 2.0–2.5 s, right 4.0–4.5, forward 6.0–6.5, back 8.0–8.5 (30° each).
        XCTAssertEqual(window(1.8, 2.6).map(\.control.x).min() ?? 0, -1, accuracy: 1e-9)
        XCTAssertEqual(window(1.8, 2.6).map(\.tilt.rollDeg).min() ?? 0, -30, accuracy: 1.5)
        XCTAssertEqual(window(3.8, 4.6).map(\.control.x).max() ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(window(3.8, 4.6).map(\.tilt.rollDeg).max() ?? 0, 30, accuracy: 1.5)
        XCTAssertGreaterThan(window(5.8, 6.6).map(\.control.y).max() ?? 0, 0.9)
        XCTAssertEqual(window(5.8, 6.6).map(\.tilt.pitchDeg).max() ?? 0, 30, accuracy: 1.5)
        XCTAssertLessThan(window(7.8, 8.6).map(\.control.y).min() ?? 0, -0.9)
        XCTAssertEqual(window(7.8, 8.6).map(\.tilt.pitchDeg).min() ?? 0, -30, accuracy: 1.5)
        // Level again before the shake.
        XCTAssertEqual(at(10.1, outputs).tilt.pitchDeg, 0, accuracy: 1)
        XCTAssertEqual(at(10.1, outputs).tilt.rollDeg, 0, accuracy: 1)
        let starts = outputs.filter { $0.shakeEvent?.phase == .started }.map(\.t)
        XCTAssertEqual(starts.count, 1, "shake starts at \(starts)")
        // The shake runs 10.5–12.0 s of script time.
        XCTAssertGreaterThan(starts.first ?? 0, 10.2)
        XCTAssertLessThan(starts.first ?? 99, 10.7)
        XCTAssertTrue(window(10.8, 11.8).allSatisfy(\.shaking))
        XCTAssertFalse(window(0, 10.2).contains(where: \.shaking))
    }

    /// The feel does not depend on the loop rate: the same script gives the same x(t).
    func testMarkerPathIsTheSameAt100And500Hz() throws {
        for model in [TiltControllerSettings.Model.damped(), .integrating()] {
            let settings = TiltControllerSettings(model: model)
            let slow = try run(script: "tilt-left", rate: 100, seconds: 3, controller: settings)
            let fast = try run(script: "tilt-left", rate: 500, seconds: 3, controller: settings)
            XCTAssertGreaterThan(fast.count, 4 * slow.count)
            var largest = 0.0
            for t in stride(from: 0.2, through: 2.9, by: 0.1) {
                largest = max(largest, abs(at(t, slow).control.x - at(t, fast).control.x))
            }
            XCTAssertLessThan(largest, 0.03, "\(model): x(t) differs by up to \(largest)")
            // Both really moved.
            XCTAssertLessThan(at(2.9, slow).control.x, -0.5, "\(model)")
        }
    }

    /// At 1 kHz with the FIFO drained at 200 Hz every sample the chip took is processed, 1 ms apart.
    func testFIFOAt1kHzDropsNoSample() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let s = try session(script: "demo", clock: clock, rate: 1000, fifo: true)
        XCTAssertEqual(s.sensor.actualRateHz, 1000)
        let loop = s.makeLoop(rateHz: 200, haptics: nil)
        let chip = try XCTUnwrap(s.simulatedDevice as? SimulatedMPU6050)
        // Configuring waits for the chip (time moves on the manual clock): count from here.
        let takenBefore = Int(chip.samplesTaken), queuedBefore = chip.fifoByteCount / 14
        nonisolated(unsafe) var times: [Double] = []
        _ = try loop.start(for: .seconds(2), observers: [LoopObserver(sample: { out, _ in times.append(out.t) })]).wait()
        XCTAssertEqual(Double(times.count), 2000, accuracy: 6)
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        XCTAssertEqual(gaps.max() ?? 0, 0.001, accuracy: 1e-6)
        XCTAssertEqual(gaps.min() ?? 0, 0.001, accuracy: 1e-6)
        let mpu = try XCTUnwrap(s.sensor as? MPU6050)
        XCTAssertEqual(mpu.fifoOverflows, 0)
        // Every sample the chip queued went through the pipeline or still waits in the FIFO,
        // but the first one after start-up, which the driver drops.
        XCTAssertEqual(mpu.fifoFramesSkipped, 1)
        XCTAssertEqual(queuedBefore + Int(chip.samplesTaken) - takenBefore, times.count + chip.fifoByteCount / 14 + 1)
    }
}

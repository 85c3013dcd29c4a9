import CAllocationCounter
import Foundation
import Tiltboard
@testable import TiltboardCLI
import XCTest
import TiltboardCore

/// The monitor's loop-thread side on a manual clock: neutral requests and zero allocations.
final class MonitorLoopTests: XCTestCase {
    /// A session on a simulated MPU-6050 held at pitch 10°, roll −5°, without noise.
    private func heldSession(clock: ManualClock) throws -> BoardSession {
        let folder = try makeScratchFolder(self)
        let script = folder + "/held.json"
        try #"{"start": {"pitchDeg": 10, "rollDeg": -5}, "segments": [{"hold": {"seconds": 1}}]}"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        var board = BoardDescription.builtInSimulated()
        board.simulation?.script = script
        board.simulation?.noise = false
        return try CommandBoard.open(board, clock: clock, profilePath: folder + "/p.json", useProfile: false)
    }

    func testCaptureWaitsForAFullWindowAppliesThePoseAndLevelUndoesIt() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try heldSession(clock: clock)
        let loop = session.makeLoop(rateHz: 100, haptics: nil)
        let link = MonitorLink()
        let side = MonitorLoopSide(link: link, rateHz: 100, captureSeconds: 0.5)
        XCTAssertEqual(side.recent.capacity, 50)

        nonisolated(unsafe) var index = 0
        nonisolated(unsafe) var capturedAt: Int?
        nonisolated(unsafe) var captured: (pose: NeutralPose, summary: CaptureSummary)?
        nonisolated(unsafe) var tilts: [TiltAngles] = []
        tilts.reserveCapacity(400)
        nonisolated(unsafe) var allocations: UInt64 = 0
        _ = try loop.start(for: .seconds(3), observers: [LoopObserver(sample: { out, _ in
            index += 1
            // Asked for before the window holds half a second of samples.
            if index == 20 { side.capture(on: loop) }
            if index == 200 { side.level(on: loop) }
            let before = tiltboard_thread_allocation_count()
            side.handle(out, loop: loop)
            if index > 5 { allocations += tiltboard_thread_allocation_count() - before }
            if capturedAt == nil, let c = link.takeCaptured() {
                capturedAt = index
                captured = c
            }
            tilts.append(out.tilt)
        })]).wait()
        XCTAssertEqual(allocations, 0, "the per-sample monitor work allocated")
        XCTAssertEqual(link.snapshot.samples, UInt64(index))
        XCTAssertEqual(capturedAt, 50, "the capture must wait for a full half second")
        let (pose, summary) = try XCTUnwrap(captured)
        XCTAssertEqual(summary.sampleCount, 50)
        XCTAssertEqual(summary.noiseMg.x, 0, accuracy: 0.01)
        XCTAssertNotNil(summary.temperatureC)
        XCTAssertEqual(pose.tiltDeg, acos(cos(10 * Double.pi / 180) * cos(5 * Double.pi / 180)) * 180 / .pi, accuracy: 0.05)
        XCTAssertFalse(pose.clamped)
        // Before the capture the board reads its held pose; after, level; after `level`, the pose again.
        XCTAssertEqual(tilts[40].pitchDeg, 10, accuracy: 0.2)
        XCTAssertEqual(tilts[40].rollDeg, -5, accuracy: 0.2)
        XCTAssertEqual(tilts[150].pitchDeg, 0, accuracy: 0.2)
        XCTAssertEqual(tilts[150].rollDeg, 0, accuracy: 0.2)
        XCTAssertEqual(tilts[299].pitchDeg, 10, accuracy: 0.2)
        XCTAssertEqual(tilts[299].rollDeg, -5, accuracy: 0.2)
        XCTAssertEqual(loop.pipeline.tracker.neutral, .level)
        XCTAssertNil(link.takeCaptured())
    }

    func testShakeStartsAreCountedForTheFlash() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        var board = BoardDescription.builtInSimulated(script: "shake")
        board.simulation?.noise = false
        let session = try CommandBoard.open(board, clock: clock, useProfile: false)
        let loop = session.makeLoop(rateHz: 100, haptics: nil)
        let link = MonitorLink()
        let side = MonitorLoopSide(link: link, rateHz: 100, captureSeconds: 0.5)
        nonisolated(unsafe) var startedAt: Double?
        _ = try loop.start(for: .seconds(4), observers: [LoopObserver(sample: { out, _ in
            side.handle(out, loop: loop)
            if startedAt == nil, out.shakeEvent?.phase == .started { startedAt = out.t }
        })]).wait()
        let s = link.snapshot
        XCTAssertEqual(s.shakes, 1)
        XCTAssertEqual(s.lastShakeStart, try XCTUnwrap(startedAt))
        XCTAssertFalse(s.shaking)
    }
}

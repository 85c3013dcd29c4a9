import CAllocationCounter
import Foundation
import XCTest
@testable import Tiltboard
import TiltboardCore
@testable import TiltboardServer

/// The loop's side of serve: the latest-wins slot and the per-sample work, which must neither
/// block nor allocate.
final class LatestFrameTests: XCTestCase {
    private struct Pair { var a: UInt64; var b: UInt64 }

    func testTheReaderGetsTheNewestValueOnce() {
        let slot = LatestSlot(Pair(a: 0, b: 0))
        XCTAssertNil(slot.take(), "nothing published yet")
        slot.publish(Pair(a: 1, b: 1))
        slot.publish(Pair(a: 2, b: 2))
        slot.publish(Pair(a: 3, b: 3))
        XCTAssertEqual(slot.take()?.a, 3)
        XCTAssertNil(slot.take(), "taken already")
        slot.publish(Pair(a: 4, b: 4))
        XCTAssertEqual(slot.take()?.a, 4)
    }

    func testAWriterThreadNeverTearsOrReordersWhatTheReaderSees() {
        let slot = LatestSlot(Pair(a: 0, b: 0))
        let n: UInt64 = 200_000
        let writer = Thread {
            for i in 1...n { slot.publish(Pair(a: i, b: ~i)) }
        }
        writer.start()
        var last: UInt64 = 0
        var taken = 0
        while last < n {
            guard let v = slot.take() else { continue }
            XCTAssertEqual(v.b, ~v.a, "a value is always whole")
            XCTAssertGreaterThan(v.a, last, "never an older value after a newer one")
            last = v.a
            taken += 1
        }
        XCTAssertEqual(last, n, "the last value published is the last one taken")
        XCTAssertGreaterThan(taken, 0)
    }

    func testTheLoopSidePublishesWithoutAllocating() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let board = BoardDescription.builtInSimulated(script: "demo")
        let session = try BoardSession(board: board, backend: try SimulatedBoard(board: board, clock: clock), clock: clock, useProfile: false)
        defer { session.close() }
        let loop = session.makeLoop(rateHz: 100, haptics: nil)
        let feed = BoardFeed(session: session, loop: loop, haptics: nil)
        var pipeline = TiltPipeline(tracker: session.makeTiltTracker(), shake: ShakeDetector())
        var t = 0.0
        var index: UInt64 = 0
        func tick() {
            t += 0.01
            index += 1
            let out = pipeline.process(Sample(t: t, accel: Vector3(0.1, 0, 0.99), gyro: .zero, tempC: 25))
            feed.tick(out, TickContext(index: index, deadline: 0, wakeTime: 0, dt: 0.01, missedTicks: 0), loop: loop)
        }
        for _ in 0..<50 { tick() }
        var before = tiltboard_thread_allocation_count()
        for _ in 0..<500 { tick() }
        XCTAssertEqual(tiltboard_thread_allocation_count() - before, 0, "publishing")
        // A neutral capture running on the same samples allocates nothing either.
        // The loop is not running here: the capture its mailbox would start is started by hand.
        XCTAssertTrue(feed.requestCapture())
        feed.beginCapture()
        tick()
        XCTAssertTrue(feed.isCapturing)
        before = tiltboard_thread_allocation_count()
        for _ in 0..<100 { tick() }
        XCTAssertEqual(tiltboard_thread_allocation_count() - before, 0, "capturing")
        XCTAssertEqual(feed.slot.take()?.calibration.running, true)
        XCTAssertFalse(feed.requestCapture(), "one capture at a time")
    }
}

import XCTest
import CAllocationCounter
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// The per-sample path with a shake in it — read, pipeline, detection, posting the effect to the
/// engine — allocates nothing on the loop thread.
final class ShakeAllocationTests: XCTestCase {
    func testDetectingAShakeAndPostingTheEffectDoesNotAllocate() throws {
        for chip in [ChipKind.mpu6050, .adxl345] {
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            var board = BoardDescription.builtInSimulated(chip: chip, script: "shake")
            board.simulation?.noise = true
            let session = try BoardSession(board: board, clock: clock, useProfile: false)
            defer { session.close() }
            let line = try XCTUnwrap(try session.openMotor() as? SimulatedGPIOLine)
            let engine = HapticEngine(line: line, clock: clock, startsThread: false)
            defer { engine.shutdown() }
            let loop = session.makeLoop(rateHz: 100, haptics: engine)
            let capacity = 400
            let before = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: capacity)
            let after = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: capacity)
            defer { before.deallocate(); after.deallocate() }
            nonisolated(unsafe) var n = 0
            nonisolated(unsafe) var shakeSample = -1
            _ = try loop.start(for: .seconds(3), observers: [LoopObserver(sample: { out, _ in
                // Counted on entry (read + pipeline + posting since the last exit) and on exit; the
                // engine's service, which runs on its own thread in the program, is left out.
                let entry = tiltboard_thread_allocation_count()
                if n < capacity { before[n] = entry }
                if out.shakeEvent?.phase == .started { shakeSample = n }
                engine.service(now: clock.nowNanoseconds())
                if n < capacity { after[n] = tiltboard_thread_allocation_count() }
                n += 1
            })]).wait()
            XCTAssertGreaterThan(shakeSample, 50, "\(chip.partName): no shake detected")
            XCTAssertEqual(line.changes.map(\.active), [true, false], chip.partName)
            // From the tenth sample on, past any first-use setup.
            var allocations: UInt64 = 0
            for i in 10..<min(n, capacity) { allocations += before[i] &- after[i - 1] }
            XCTAssertEqual(allocations, 0, "\(chip.partName): \(allocations) allocations over \(min(n, capacity) - 10) samples")
        }
    }
}

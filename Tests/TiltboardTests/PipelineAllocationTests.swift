import CAllocationCounter
import XCTest
@testable import Tiltboard
import TiltboardCommands
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// The per-sample path allocates nothing, stage by stage, once warmed up.
final class PipelineAllocationTests: XCTestCase {
    private func allocations(_ n: Int = 200, _ body: () throws -> Void) rethrows -> UInt64 {
        for _ in 0..<20 { try body() }
        let before = tiltboard_thread_allocation_count()
        for _ in 0..<n { try body() }
        return tiltboard_thread_allocation_count() - before
    }

    func testEachStageAllocatesNothing() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: BoardDescription.builtInSimulated(script: "demo"), clock: clock, useProfile: false)
        var t = 0.0
        let read = try allocations { t += 0.01; clock.advance(bySeconds: 0.01); _ = try session.sensor.read(at: t) }
        var pipeline = TiltPipeline(tracker: session.makeTiltTracker(), shake: ShakeDetector())
        var sampleT = 0.0
        let process = allocations { sampleT += 0.01; _ = pipeline.process(Sample(t: sampleT, accel: .unitZ, gyro: .zero, tempC: 25)) }
        var line = JSONLineWriter()
        let json = allocations { line.writeRunLine(PipelineOutput(t: 1.5), haptic: true) }
        XCTAssertEqual(read, 0, "sensor read")
        XCTAssertEqual(process, 0, "pipeline")
        XCTAssertEqual(json, 0, "JSON line")
    }

    /// Every registered chip's driver reading its simulated part, sample by sample and through
    /// the FIFO.
    func testEveryChipReadsWithoutAllocating() throws {
        for chip in ChipKind.allCases {
            for fifo in [false, true] {
                let clock = ManualClock(startNanoseconds: 1_000_000_000)
                let session = try BoardSession(board: BoardDescription.builtInSimulated(chip: chip, script: "demo"),
                                               clock: clock, useProfile: false, fifo: fifo)
                defer { session.close() }
                var t = 0.0
                let count = try allocations {
                    t += 0.01
                    clock.advance(bySeconds: 0.01)
                    if fifo { try session.sensor.drainFIFO(at: t) { _ in } } else { _ = try session.sensor.read(at: t) }
                }
                XCTAssertEqual(count, 0, "\(chip) \(fifo ? "FIFO" : "read")")
            }
        }
    }
}


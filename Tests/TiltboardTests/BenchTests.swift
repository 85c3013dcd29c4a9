import CAllocationCounter
import XCTest
@testable import Tiltboard
@testable import TiltboardCommands
import TiltboardSimulator
import TiltboardCore
import TiltboardLinux

/// The benchmark's figures that do not depend on timing: traffic, allocations, lost samples.
final class BenchTests: XCTestCase {
    private func open(clock: ManualClock, rate: Double, fifo: Bool) throws -> (BoardSession, CountingI2CBus) {
        var board = BoardDescription.builtInSimulated(script: "demo")
        board.simulation?.noise = false
        var counting: CountingI2CBus?
        let session = try BoardSession(board: board, clock: clock, useProfile: false, rateHz: rate, fifo: fifo,
                                       wrapBus: { let c = CountingI2CBus($0); counting = c; return c })
        return (session, try XCTUnwrap(counting))
    }

    func testOneBurstPerSampleAndNoAllocationsWithoutTheFIFO() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let (session, bus) = try open(clock: clock, rate: 500, fifo: false)
        let r = try LoopBenchmark.run(session: session, bus: bus, seconds: 1, tickRateHz: 500,
                                      threadAllocations: { tiltboard_thread_allocation_count() })
        XCTAssertEqual(r.rateHz, 500)
        XCTAssertFalse(r.fifo)
        XCTAssertEqual(r.ticks, 501)
        XCTAssertEqual(r.samples, 501)
        // One burst per tick, and at 1 s the once-a-second one-byte check of PWR_MGMT_1.
        XCTAssertEqual(r.transactions, 502)
        XCTAssertEqual(r.transactionsPerSample, 502.0 / 501)
        XCTAssertEqual(r.bytesPerSample, (501.0 * 14 + 1) / 501)
        XCTAssertEqual(r.allocationsPerTick, 0)
        XCTAssertEqual(r.droppedSamples, 0)
        XCTAssertEqual(r.missedTicks, 0)
        XCTAssertEqual(r.latenessMaxMicroseconds, 0)
        // The simulator's own counters agree with the wrapper's.
        XCTAssertEqual(session.simulatedBus?.bytesTransferred ?? 0 > 0, true)
    }

    func testFIFOAt1kHzDropsNothingAndReadsInBatches() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let (session, bus) = try open(clock: clock, rate: 1000, fifo: true)
        let r = try LoopBenchmark.run(session: session, bus: bus, seconds: 1, tickRateHz: 200,
                                      threadAllocations: { tiltboard_thread_allocation_count() })
        XCTAssertTrue(r.fifo)
        XCTAssertEqual(r.ticks, 201)
        XCTAssertEqual(r.droppedSamples, 0)
        XCTAssertEqual(r.fifoOverflows, 0)
        XCTAssertEqual(Double(r.samples), 1000, accuracy: 200)  // plus what queued while configuring
        XCTAssertEqual(Double(r.expectedSamples ?? 0), Double(r.samples), accuracy: 10)
        // The count, then the whole batch: two transactions per tick, whatever the batch size
        // (one when the FIFO happens to be empty).
        XCTAssertEqual(r.transactionsPerTick, 2, accuracy: 0.05)
        XCTAssertLessThan(r.transactionsPerSample, 1)
        XCTAssertEqual(r.allocationsPerTick, 0)
    }

    func testDropsAreCountedWhenTheFIFOIsDrainedTooRarely() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let (session, bus) = try open(clock: clock, rate: 1000, fifo: true)
        // 100 samples gather between ticks; the FIFO holds 73 frames.
        let r = try LoopBenchmark.run(session: session, bus: bus, seconds: 1, tickRateHz: 10)
        XCTAssertGreaterThan(r.fifoOverflows, 0)
        XCTAssertGreaterThan(r.droppedSamples ?? 0, 500)
        XCTAssertEqual(Int64(r.expectedSamples ?? 0) - Int64(r.samples), r.droppedSamples ?? 0, accuracy: 80)
    }

    func testADXL345FIFOAt800HzDropsNothing() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        var board = BoardDescription.builtInSimulated(chip: .adxl345, script: "demo")
        board.simulation?.noise = false
        var counting: CountingI2CBus?
        let session = try BoardSession(board: board, clock: clock, useProfile: false, rateHz: 800, fifo: true,
                                       wrapBus: { let c = CountingI2CBus($0); counting = c; return c })
        let r = try LoopBenchmark.run(session: session, bus: try XCTUnwrap(counting), seconds: 1, tickRateHz: 200,
                                      threadAllocations: { tiltboard_thread_allocation_count() })
        XCTAssertEqual(r.rateHz, 800)
        XCTAssertEqual(r.droppedSamples, 0)
        XCTAssertEqual(Double(r.samples), 800, accuracy: 40)
        XCTAssertEqual(r.allocationsPerTick, 0)
    }

    func testPipelineThroughputRunsEverySample() throws {
        let clock = ManualClock()
        let samples = PipelineThroughput.syntheticSamples(count: 64)
        // The manual clock never moves on its own: one pass, then the clock says time is up.
        let rate = PipelineThroughput.pipelineRate(pipeline: TiltPipeline(tracker: TiltTracker()), samples: samples,
                                                   seconds: 0, clock: clock)
        XCTAssertTrue(rate.isInfinite || rate > 0)
        XCTAssertEqual(samples.count, 64)
        XCTAssertEqual(samples[1].t - samples[0].t, 0.001, accuracy: 1e-12)
    }

    func testReportEncodesEveryField() throws {
        let loop = LoopBenchmarkResult(rateHz: 100, tickRateHz: 100, fifo: false, ticks: 10, missedTicks: 0,
                                       latenessP50Microseconds: 1, latenessP99Microseconds: 2, latenessMaxMicroseconds: 3,
                                       samples: 10, transactions: 10, bytes: 140, transactionsPerSample: 1,
                                       transactionsPerTick: 1, bytesPerSample: 14, allocationsPerTick: 0,
                                       expectedSamples: 10, droppedSamples: 0, fifoOverflows: 0)
        let report = BenchReport(board: "b", simulated: true, chip: "MPU-6050", loops: [loop],
                                 pipelineSamplesPerSecond: 5e6, readAndPipelineSamplesPerSecond: 1e6, peakResidentBytes: 1 << 20)
        let data = try JSONEncoder().encode(report)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["board", "simulated", "chip", "loops", "pipelineSamplesPerSecond",
                                          "readAndPipelineSamplesPerSecond", "peakResidentBytes"])
        XCTAssertEqual(try JSONDecoder().decode(BenchReport.self, from: data), report)
    }

    func testPeakResidentSetIsReported() throws {
        let bytes = try XCTUnwrap(ResourceUsage.peakResidentBytes())
        XCTAssertGreaterThan(bytes, 1 << 20)
    }
}

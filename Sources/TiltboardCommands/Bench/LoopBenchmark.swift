import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import Tiltboard

/// What one timed run of the tilt loop measured.
package struct LoopBenchmarkResult: Sendable, Equatable, Codable {
    /// This run with its bus shares filled in for `boards` like it on one bus: samples per second
    /// × clocks per sample × boards / clock.
    package func withBusShares(boards: Int) -> LoopBenchmarkResult {
        var r = self
        let perSecond = Double(samples) > 0 ? rateHz * busClocksPerSample * Double(boards) : 0
        r.busShareAt100kHz = perSecond / 100_000
        r.busShareAt400kHz = perSecond / 400_000
        return r
    }

    /// The sensor's output data rate, Hz.
    package var rateHz: Double
    /// Loop ticks per second (lower than `rateHz` when each tick drains the FIFO).
    package var tickRateHz: Double
    package var fifo: Bool
    package var ticks: UInt64
    package var missedTicks: UInt64
    package var latenessP50Microseconds: Double
    package var latenessP99Microseconds: Double
    package var latenessMaxMicroseconds: Double
    /// Samples run through the pipeline.
    package var samples: UInt64
    /// Bus transactions and data bytes during the run.
    package var transactions: Int
    package var bytes: Int
    package var transactionsPerSample: Double
    package var transactionsPerTick: Double
    package var bytesPerSample: Double
    /// SCL clocks per sample of the transactions counted (`CountingI2CBus.clocks`).
    package var busClocksPerSample: Double = 0
    /// The share of a 100 kHz and a 400 kHz bus the samples took (bus time per second / 1 s), for
    /// every board `bench --boards` puts on the bus; set by the caller (`withBusShares`).
    package var busShareAt100kHz: Double?
    package var busShareAt400kHz: Double?
    /// Heap allocations per tick on the loop thread after the warm-up; nil when not counted.
    package var allocationsPerTick: Double?
    /// Samples the simulated chip produced for the loop; nil on hardware.
    package var expectedSamples: UInt64?
    /// Samples produced but never processed (`expectedSamples − samples − still queued`); nil on hardware.
    package var droppedSamples: Int64?
    /// FIFO overflows the driver saw (each one loses the FIFO's contents).
    package var fifoOverflows: Int
    /// Why SCHED_FIFO was not used, when it was asked for and refused.
    package var realtimeNote: String?
}

/// Runs the tilt loop on an opened session for a while and measures lateness, bus traffic,
/// allocations and lost samples. Reusable on any board: open the session with a
/// `CountingI2CBus` wrapper (`BoardSession(wrapBus:)`) so the traffic can be counted.
package enum LoopBenchmark {
    /// - Parameters:
    ///   - tickRateHz: loop rate: the sensor's rate for one read per tick or, with the FIFO on,
    ///     less, so each tick drains several samples.
    ///   - warmupTicks: ticks run before allocations are counted (first-use costs).
    ///   - threadAllocations: the calling thread's allocation counter (from `CAllocationCounter`),
    ///     called on the loop thread; nil to skip counting.
    ///   - threadPolicy: how the loop thread is scheduled (SCHED_FIFO, timer slack: the program's choice).
    ///   - started: hears the running loop's handle (to stop it early on a signal).
    package static func run(session: BoardSession, bus: CountingI2CBus, seconds: Double,
                           tickRateHz: Double, warmupTicks: UInt64 = 20, threadPolicy: LoopThreadPolicy = .inherited,
                           threadAllocations: (@Sendable () -> UInt64)? = nil,
                           started: (RunningLoop) -> Void = { _ in }) throws -> LoopBenchmarkResult {
        let configuration = session.sensor.configuration
        let rate = session.sensor.actualRateHz
        var loopConfiguration = TiltLoop.Configuration(rateHz: tickRateHz)
        loopConfiguration.threadPolicy = threadPolicy
        let loop = session.makeLoop(loopConfiguration, haptics: nil)
        // Short runs still leave most of their ticks for counting.
        let warmup = min(warmupTicks, UInt64(seconds * tickRateHz / 4))
        let state = BenchState()
        let device = session.simulatedDevice
        state.takenBefore = samplesTaken(device)
        state.queuedBefore = queuedFrames(device)
        bus.resetCounters()
        let running = loop.start(for: Nanoseconds.duration(seconds: seconds), observers: [LoopObserver(sample: { out, tick in
            // The same formatting as the run's JSON lines, so its cost is part of the measurement.
            state.line.writeRunLine(out, haptic: false)
            state.checksum &+= UInt64(state.line.bytes.count)
            guard let count = threadAllocations else { return }
            if tick.index >= warmup && state.countFromTick == nil {
                state.countFromTick = tick.index
                state.allocationsFrom = count()
            }
            if state.countFromTick != nil {
                state.lastTick = tick.index
                state.allocationsTo = count()
            }
        })])
        started(running)
        let note = try running.wait()
        let stats = loop.scheduler.statistics
        let samples = loop.samples
        var expected: UInt64?
        var dropped: Int64?
        if let before = state.takenBefore, let after = samplesTaken(device),
           let queuedBefore = state.queuedBefore, let queuedAfter = queuedFrames(device) {
            if configuration.useFIFO {
                let produced = UInt64(queuedBefore) &+ (after &- before)
                expected = produced
                dropped = Int64(produced) - Int64(samples) - Int64(queuedAfter) - Int64(session.sensor.fifoFramesSkipped)
            } else {
                // Without the FIFO each tick reads the newest sample; none can queue up.
                expected = ticksExpected(stats)
                dropped = Int64(stats.missedTicks)
            }
        }
        var allocations: Double?
        if let from = state.countFromTick, state.lastTick > from {
            allocations = Double(state.allocationsTo &- state.allocationsFrom) / Double(state.lastTick - from)
        }
        let n = Double(max(samples, 1))
        return LoopBenchmarkResult(
            rateHz: rate, tickRateHz: tickRateHz, fifo: configuration.useFIFO,
            ticks: stats.ticks, missedTicks: stats.missedTicks,
            latenessP50Microseconds: Double(stats.latenessP50Nanoseconds) / 1000,
            latenessP99Microseconds: Double(stats.latenessP99Nanoseconds) / 1000,
            latenessMaxMicroseconds: Double(stats.latenessMaxNanoseconds) / 1000,
            samples: samples, transactions: bus.transactionCount, bytes: bus.bytesTransferred,
            transactionsPerSample: Double(bus.transactionCount) / n,
            transactionsPerTick: Double(bus.transactionCount) / Double(max(stats.ticks, 1)),
            bytesPerSample: Double(bus.bytesTransferred) / n, busClocksPerSample: Double(bus.clocks) / n,
            allocationsPerTick: allocations, expectedSamples: expected, droppedSamples: dropped,
            fifoOverflows: session.sensor.fifoOverflows, realtimeNote: note)
    }

    /// Bus time per sample at `clockHz`, seconds.
    package static func busSecondsPerSample(_ result: LoopBenchmarkResult, clockHz: Double) -> Double {
        result.busClocksPerSample / clockHz
    }

    private static func ticksExpected(_ stats: LoopStatistics) -> UInt64 { stats.ticks &+ stats.missedTicks }

    private static func samplesTaken(_ device: (any SimulatedChip)?) -> UInt64? { device?.samplesTaken }

    /// Samples waiting in the simulated FIFO. A FIFO that overwrites its oldest entry when full
    /// (the ADXL345's stream mode) shows such losses only here, as produced samples that never arrived.
    private static func queuedFrames(_ device: (any SimulatedChip)?) -> Int? { device?.queuedFIFOFrames }
}

/// The loop thread's scratch state, allocated once before the run.
private final class BenchState: @unchecked Sendable {
    var line = JSONLineWriter(capacity: 512)
    var checksum: UInt64 = 0
    var countFromTick: UInt64?
    var lastTick: UInt64 = 0
    var allocationsFrom: UInt64 = 0
    var allocationsTo: UInt64 = 0
    var takenBefore: UInt64?
    var queuedBefore: Int?
}

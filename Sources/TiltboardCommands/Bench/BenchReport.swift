/// Everything `tiltboard bench` measured on one board.
package struct BenchReport: Sendable, Equatable, Codable {
    /// The board's name and whether it is simulated.
    package var board: String
    package var simulated: Bool
    package var chip: String
    /// Timed loop runs: one read per tick at each rate, then the FIFO run.
    package var loops: [LoopBenchmarkResult]
    /// Pre-generated samples through `TiltPipeline.process`, per second of the thread's CPU time.
    package var pipelineSamplesPerSecond: Double
    /// Sensor read plus pipeline, no sleeping, per second of the thread's CPU time.
    package var readAndPipelineSamplesPerSecond: Double
    /// Peak resident set of the process, bytes; nil when unknown.
    package var peakResidentBytes: UInt64?
    /// Whether the loops ran with SCHED_FIFO; the note says why not when asked for and refused.
    package var realtimeNote: String?

    package init(board: String, simulated: Bool, chip: String, loops: [LoopBenchmarkResult],
                pipelineSamplesPerSecond: Double, readAndPipelineSamplesPerSecond: Double,
                peakResidentBytes: UInt64?, realtimeNote: String? = nil) {
        self.board = board; self.simulated = simulated; self.chip = chip; self.loops = loops
        self.pipelineSamplesPerSecond = pipelineSamplesPerSecond
        self.readAndPipelineSamplesPerSecond = readAndPipelineSamplesPerSecond
        self.peakResidentBytes = peakResidentBytes; self.realtimeNote = realtimeNote
    }
}

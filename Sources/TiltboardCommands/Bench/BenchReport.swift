import TiltboardDrivers

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
    /// Boards like this one sharing its bus (`bench --boards`), nil for one: the loops' bus shares count them all.
    package var boardsOnBus: Int?
    /// The bus the board file's own rate and FIFO setting need (`BusBudget`), for every board on the bus.
    package var boardFileBus: PlannedBus?

    /// What `BusBudget` plans for a rate: clocks per sample and the share of a 100 kHz and a 400 kHz bus.
    package struct PlannedBus: Sendable, Equatable, Codable {
        package var rateHz: Double
        package var fifo: Bool
        /// Samples each tick reads (a FIFO drain's batch; 1 without the FIFO).
        package var samplesPerTick: Int
        package var busClocksPerSample: Double
        package var busShareAt100kHz: Double
        package var busShareAt400kHz: Double

        /// The plan of `budget` for `boards` such boards on one bus.
        package init(_ budget: BusBudget, boards: Int) {
            rateHz = budget.rateHz; fifo = budget.fifo; samplesPerTick = budget.samplesPerTick
            busClocksPerSample = budget.clocksPerSample
            let all = Array(repeating: budget, count: boards)
            busShareAt100kHz = BusBudget.share(of: all, clockHz: 100_000)
            busShareAt400kHz = BusBudget.share(of: all, clockHz: 400_000)
        }
    }

    package init(board: String, simulated: Bool, chip: String, loops: [LoopBenchmarkResult],
                pipelineSamplesPerSecond: Double, readAndPipelineSamplesPerSecond: Double,
                peakResidentBytes: UInt64?, realtimeNote: String? = nil, boardsOnBus: Int? = nil, boardFileBus: PlannedBus? = nil) {
        self.board = board; self.simulated = simulated; self.chip = chip; self.loops = loops
        self.pipelineSamplesPerSecond = pipelineSamplesPerSecond
        self.readAndPipelineSamplesPerSecond = readAndPipelineSamplesPerSecond
        self.peakResidentBytes = peakResidentBytes; self.realtimeNote = realtimeNote
        self.boardsOnBus = boardsOnBus; self.boardFileBus = boardFileBus
    }
}

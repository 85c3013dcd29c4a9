import ArgumentParser
import CAllocationCounter
import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardServer

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the loop's timing, bus traffic, allocations and throughput on a board.",
        discussion: """
        Runs the tilt loop on the real clock at 100, 500 and 1000 Hz (one burst read per tick), then \
        at 1000 Hz with the FIFO drained at 200 Hz, for --seconds each; then times the pipeline alone \
        on pre-generated samples and the sensor read plus pipeline with no sleeping. Reports loop \
        lateness p50/p99/max, I²C transactions and bytes per sample (counted in a wrapper around the \
        bus), heap allocations per tick on the loop thread, samples dropped (simulated boards count \
        them against the chip's own sample clock), samples per second and the peak resident set. \
        Then the bus time per sample of the transactions counted (SCL clocks as the I²C-bus \
        specification frames them) and the share of a 100 kHz and a 400 kHz bus it takes, for each \
        run and as planned for the board file's own rate, summed over --boards such boards on one bus.

        Build with `swift build -c release` and run `.build/release/tiltboard bench` for figures \
        that mean something; a debug build is several times slower.
        """
    )

    @OptionGroup var boardOptions: BoardOptions

    @Flag(help: "The report as one JSON object on stdout.")
    var json = false

    @Option(help: ArgumentHelp("Seconds per loop run.", valueName: "s"))
    var seconds = 2.0

    @Option(help: ArgumentHelp("Boards like this one on the same bus, for the bus shares.", valueName: "n"))
    var boards = 1

    @Flag(help: "Run the loops with SCHED_FIFO and locked memory when permitted.")
    var realtime = false

    @Flag(help: "Instead: how still a calibrated board stays, on seeded worst-case simulated parts of both chips (simulated clock).")
    var holdStill = false

    @Option(help: ArgumentHelp("Parts per chip for --hold-still (seeds 1…N).", valueName: "n"))
    var parts = 20

    @Flag(help: "Instead: loop lateness at 500 Hz with 20 web clients of `serve` connected (one never reading) and without, in 5 interleaved pairs of --seconds runs.")
    var serve = false

    @Flag(help: "Instead: the loop's wake-up lateness at 500 Hz beside cyclictest's (rt-tests: `cyclictest -i 2000 -m`, at priority 50 with --realtime) on this machine, each without and with the CPUs held out of deep idle states (a zero latency request on /dev/cpu_dma_latency, root only), in 5 interleaved rounds of --seconds runs.")
    var kernelLimit = false

    @Option(help: ArgumentHelp("Instead: loop lateness at 200 Hz with this many copies of the board read in one loop (as `run` with several --board does) and with one alone, in 3 interleaved pairs of --seconds runs.", valueName: "n"))
    var players: Int?

    func validate() throws {
        guard seconds > 0 && seconds <= 600 else { throw ValidationError("--seconds must be above 0 and at most 600, got \(seconds)") }
        guard parts >= 1 && parts <= 1000 else { throw ValidationError("--parts must be 1 to 1000, got \(parts)") }
        guard boards >= 1 && boards <= BenchRunner.maxBoardsOnBus else {
            throw ValidationError("--boards must be 1 to \(BenchRunner.maxBoardsOnBus), got \(boards)")
        }
        if let players, !(2...PlayerBoardOptions.maxPlayers).contains(players) {
            throw ValidationError("--players must be 2 to \(PlayerBoardOptions.maxPlayers), got \(players)")
        }
        if [players != nil, serve, holdStill, kernelLimit].filter({ $0 }).count > 1 {
            throw ValidationError("--players, --serve, --kernel-limit and --hold-still are separate measurements: give one")
        }
    }

    func run() throws {
        try SignalWatcher.shared.start()
        if holdStill {
            let summaries = try HoldStillBenchmark.run(parts: parts, progress: { Console.note($0) })
            return try print(summaries) { HoldStillBenchmark.render(summaries) }
        }
        let board = try boardOptions.loadBoard(defaultScript: "demo")
        if serve { return try runServe(board) }
        if kernelLimit { return try runKernelLimit(board) }
        if let players { return try runPlayers(board, boards: players) }
        let report = try BenchRunner(board: board, options: boardOptions, seconds: seconds, realtime: realtime,
                                     boards: boards, progress: { Console.note($0) }).run()
        try print(report) { BenchText.render(report) }
    }
}

extension BenchCommand {
    /// Loop rate for `--serve`: the rate the plain lateness figures use.
    static let serveRateHz = 500.0

    private func runServe(_ board: BoardDescription) throws {
        let clock = CommandClock.system()
        let report = try ServeBenchmark.run(
            open: { try CommandBoard.open(board, clock: clock, profilePath: boardOptions.profile, useProfile: !boardOptions.ignoreProfile,
                                          rateHz: Self.serveRateHz, fifo: false, warn: false) },
            rateHz: Self.serveRateHz, seconds: seconds, threadPolicy: RunPlan.loopThreadPolicy(realtime: realtime), residentBytes: { ResourceUsage.currentResidentBytes() },
            progress: { Console.note($0) }, shouldStop: { SignalWatcher.shared.stopRequested },
            started: { running in SignalWatcher.shared.onStop { _ in running.stop() } })
        try print(report) { BenchText.render(report) }
    }

    /// Rounds of `--kernel-limit`.
    static let kernelLimitRounds = 5

    private func runKernelLimit(_ board: BoardDescription) throws {
        let rate = Self.serveRateHz
        var cpuLatencyNote: String?
        switch CPULatencyRequest.hold() {
        case let .success(request): request.release()
        case let .failure(refused):
            cpuLatencyNote = "no CPU latency request: \(CPULatencyRequest.devicePath): \(ErrorWording.reason(refused.errno))"
        }
        let cyclictest = Subprocess.executablePath(of: "cyclictest")
        let runner = BenchRunner(board: board, options: boardOptions, seconds: seconds, realtime: realtime, progress: { Console.note($0) })
        let clock = CommandClock.system()
        var realtimeNote: String?
        var report = try KernelLimitBenchmark.run(
            rounds: Self.kernelLimitRounds, rateHz: rate, seconds: seconds, realtime: realtime, cpuLatencyNote: cpuLatencyNote,
            progress: { Console.note($0) }, shouldStop: { SignalWatcher.shared.stopRequested }
        ) { source, zero in
            switch source {
            case .cyclictest:
                guard let cyclictest else { return .unavailable("cyclictest is not installed (Debian package rt-tests)") }
                return Self.runCyclictest(cyclictest, KernelLimitBenchmark.cyclictestArguments(rateHz: rate, seconds: seconds,
                                                                                              realtime: realtime, cpuLatencyZero: zero))
            case .loop:
                let request = zero ? try? CPULatencyRequest.hold().get() : nil
                defer { request?.release() }
                let (session, bus) = try runner.open(clock: clock, rate: rate, fifo: false)
                defer { session.close() }
                let result = try LoopBenchmark.run(session: session, bus: bus, seconds: seconds, tickRateHz: rate,
                                                   threadPolicy: RunPlan.loopThreadPolicy(realtime: realtime),
                                                   started: { running in SignalWatcher.shared.onStop { _ in running.stop() } })
                realtimeNote = result.realtimeNote ?? realtimeNote
                return .lateness(WakeLateness(wakeups: result.ticks, p50Microseconds: result.latenessP50Microseconds,
                                              p99Microseconds: result.latenessP99Microseconds, maxMicroseconds: result.latenessMaxMicroseconds))
            }
        }
        report.realtimeNote = realtimeNote
        try print(report) { BenchText.render(report) }
    }

    /// One `cyclictest` run: its histogram read from its output.
    private static func runCyclictest(_ path: String, _ arguments: [String]) -> KernelLimitBenchmark.Measured {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .unavailable("cyclictest could not start: \(error.localizedDescription)") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let lateness = KernelLimitBenchmark.parseCyclictest(String(decoding: data, as: UTF8.self)) else {
            return .unavailable("cyclictest \(arguments.joined(separator: " ")) failed (exit status \(process.terminationStatus))")
        }
        return .lateness(lateness)
    }

    /// Loop rate for `--players`.
    static let playersRateHz = 200.0

    private func runPlayers(_ board: BoardDescription, boards: Int) throws {
        let clock = CommandClock.system()
        let report = try PlayersBenchmark.run(
            open: { try CommandBoard.open(board, clock: clock, profilePath: boardOptions.profile, useProfile: !boardOptions.ignoreProfile,
                                          rateHz: Self.playersRateHz, fifo: false, warn: false) },
            boards: boards, rateHz: Self.playersRateHz, seconds: seconds, threadPolicy: RunPlan.loopThreadPolicy(realtime: realtime),
            progress: { Console.note($0) }, shouldStop: { SignalWatcher.shared.stopRequested },
            started: { stop in SignalWatcher.shared.onStop { _ in stop() } })
        try print(report) { BenchText.render(report) }
    }

    /// `report` as `--json` prints it: one line, sorted keys (docs/schema/bench.schema.json).
    static func jsonLine(_ report: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
    }

    /// `report` as one JSON object with --json, else as `text` renders it.
    private func print(_ report: some Encodable, text: () -> String) throws {
        if json {
            Console.out(try Self.jsonLine(report))
        } else {
            Console.out(text())
        }
    }
}

/// Runs every measurement of `bench` in turn on one board.
struct BenchRunner {
    let board: BoardDescription
    let options: BoardOptions
    let seconds: Double
    let realtime: Bool
    /// Boards like this one on its bus (`--boards`).
    var boards = 1
    let progress: (String) -> Void

    /// Most boards one bus can address: 128 7-bit addresses less the 16 the I²C-bus specification
    /// reserves (UM10204 §3.1.12, Table 4).
    static let maxBoardsOnBus = 112

    /// Loop runs: (sensor rate, FIFO).
    static let loopRuns: [(rate: Double, fifo: Bool)] = [(100, false), (500, false), (1000, false), (1000, true)]

    func run() throws -> BenchReport {
        let clock = CommandClock.system()
        var loops: [LoopBenchmarkResult] = []
        var realtimeNote: String?
        var chip = board.sensor.chip.partName
        for (rate, fifo) in Self.loopRuns {
            if SignalWatcher.shared.stopRequested { break }
            progress("loop at \(Int(rate)) Hz\(fifo ? " with the FIFO" : "") for \(decimal(seconds, 1)) s…")
            let (session, bus) = try open(clock: clock, rate: rate, fifo: fifo)
            defer { session.close() }
            chip = session.sensor.identity.part
            let result = try LoopBenchmark.run(session: session, bus: bus, seconds: seconds,
                                               tickRateHz: RunPlan.tickRate(session), threadPolicy: RunPlan.loopThreadPolicy(realtime: realtime),
                                               threadAllocations: { tiltboard_thread_allocation_count() },
                                               started: { running in SignalWatcher.shared.onStop { _ in running.stop() } })
            realtimeNote = result.realtimeNote ?? realtimeNote
            loops.append(result.withBusShares(boards: boards))
        }
        progress("pipeline on pre-generated samples…")
        let (session, _) = try open(clock: clock, rate: 1000, fifo: false)
        defer { session.close() }
        let samples = PipelineThroughput.syntheticSamples()
        let pipeline = TiltPipeline(tracker: session.makeTiltTracker(),
                                    shake: ShakeDetector(settings: session.shakeSettings))
        let pipelineRate = PipelineThroughput.pipelineRate(pipeline: pipeline, samples: samples,
                                                           seconds: min(seconds, 1), clock: clock,
                                                           cpuNanoseconds: ResourceUsage.threadCPUNanoseconds)
        progress("sensor read + pipeline, no sleeping…")
        let readRate = try PipelineThroughput.readAndPipelineRate(session: session, seconds: min(seconds, 1), clock: clock,
                                                                  cpuNanoseconds: ResourceUsage.threadCPUNanoseconds)
        return BenchReport(board: board.name, simulated: board.isSimulated, chip: chip, loops: loops,
                           pipelineSamplesPerSecond: pipelineRate, readAndPipelineSamplesPerSecond: readRate,
                           peakResidentBytes: ResourceUsage.peakResidentBytes(), realtimeNote: realtimeNote,
                           boardsOnBus: boards == 1 ? nil : boards, boardFileBus: BenchReport.PlannedBus(boardFileBudget, boards: boards))
    }

    /// What the board file's own rate and FIFO setting take of the bus, as the commands that run
    /// the loop would drain it (`RunPlan`), with the loop's health check.
    var boardFileBudget: BusBudget {
        BusBudget.planned(board.sensor, fifoAboveHz: RunPlan.fifoAboveHz, fifoTickHz: RunPlan.fifoTickHz)
    }

    func open(clock: MonotonicClock, rate: Double, fifo: Bool) throws -> (BoardSession, CountingI2CBus) {
        var counting: CountingI2CBus?
        let session = try CommandBoard.open(board, clock: clock, profilePath: options.profile,
                                            useProfile: !options.ignoreProfile, rateHz: rate, fifo: fifo, warn: false,
                                            wrapBus: { bus in
                                                let c = CountingI2CBus(bus)
                                                counting = c
                                                return c
                                            })
        guard let counting else { throw CLIError(message: "internal: the bus was not wrapped", category: .internalFailure) }
        return (session, counting)
    }
}

/// The human-readable bench report.
enum BenchText {
    static func render(_ r: BenchReport) -> String {
        var s = "\(r.board) (\(r.chip)\(r.simulated ? ", simulated 400 kHz bus" : ""))\n"
        s += "loop (real clock)          ticks  missed   p50 µs   p99 µs   max µs  I²C/sample  bytes/sample  allocs/tick   samples  dropped\n"
        for l in r.loops {
            let label = l.fifo ? "\(Int(l.rateHz)) Hz FIFO @\(Int(l.tickRateHz)) Hz" : "\(Int(l.rateHz)) Hz read"
            s += pad(label, 24, left: true) + pad("\(l.ticks)", 8) + pad("\(l.missedTicks)", 8)
            s += pad(fixed(l.latenessP50Microseconds, 1), 9) + pad(fixed(l.latenessP99Microseconds, 1), 9)
            s += pad(fixed(l.latenessMaxMicroseconds, 1), 9) + pad(fixed(l.transactionsPerSample, 3), 12)
            s += pad(fixed(l.bytesPerSample, 2), 14) + pad(l.allocationsPerTick.map { fixed($0, 2) } ?? "-", 13)
            s += pad("\(l.samples)", 10) + pad(l.droppedSamples.map { "\($0)" } ?? "-", 9) + "\n"
        }
        s += "pipeline (pre-generated samples, per CPU second): \(millions(r.pipelineSamplesPerSecond)) samples/s\n"
        s += "sensor read + pipeline, no sleeping:             \(millions(r.readAndPipelineSamplesPerSecond)) samples/s\n"
        if let rss = r.peakResidentBytes { s += "peak resident set: \(decimal(Double(rss) / 1_048_576, 1)) MiB\n" }
        if let note = r.realtimeNote { s += "realtime: \(note)\n" }
        s += busTable(r)
        return s
    }

    /// Bus time per sample and the share of a 100 and a 400 kHz bus, per run and for the board file.
    static func busTable(_ r: BenchReport) -> String {
        let boards = r.boardsOnBus ?? 1
        var s = "bus time per sample (I²C framing of the transactions counted), share for \(boards) board\(boards == 1 ? "" : "s") on one bus:\n"
        s += "run                     clocks/sample  µs @100 kHz  µs @400 kHz  share @100 kHz  share @400 kHz\n"
        func row(_ label: String, clocks: Double, share100: Double?, share400: Double?) -> String {
            pad(label, 24, left: true) + pad(fixed(clocks, 1), 13) + pad(fixed(clocks / 100_000 * 1e6, 1), 13)
                + pad(fixed(clocks / 400_000 * 1e6, 1), 13) + pad(share100.map { fixed($0 * 100, 1) + " %" } ?? "-", 16)
                + pad(share400.map { fixed($0 * 100, 1) + " %" } ?? "-", 16) + "\n"
        }
        for l in r.loops {
            let label = l.fifo ? "\(Int(l.rateHz)) Hz FIFO @\(Int(l.tickRateHz)) Hz" : "\(Int(l.rateHz)) Hz read"
            s += row(label, clocks: l.busClocksPerSample, share100: l.busShareAt100kHz, share400: l.busShareAt400kHz)
        }
        if let p = r.boardFileBus {
            let rate = p.rateHz == p.rateHz.rounded() ? "\(Int(p.rateHz))" : "\(p.rateHz)"
            let label = "board file: " + (p.fifo ? "\(rate) Hz FIFO ×\(p.samplesPerTick)" : "\(rate) Hz read")
            s += row(label, clocks: p.busClocksPerSample, share100: p.busShareAt100kHz, share400: p.busShareAt400kHz)
        }
        return s
    }

    static func render(_ r: ServeBenchmarkReport) -> String {
        var s = "loop at \(Int(r.rateHz)) Hz, \(decimal(r.secondsPerRun, 1)) s per run, frames at \(Int(r.uiRateHz)) Hz\n"
        s += "run                 clients   ticks  missed   p50 µs   p99 µs   received KiB  frames dropped   RSS MiB\n"
        for (i, (a, b)) in zip(r.without, r.with).enumerated() {
            for run in [a, b] {
                s += pad("pair \(i + 1) " + (run.clients == 0 ? "alone" : "served"), 18, left: true) + pad("\(run.clients)", 9)
                s += pad("\(run.ticks)", 8) + pad("\(run.missedTicks)", 8)
                s += pad(fixed(run.latenessP50Microseconds, 1), 9) + pad(fixed(run.latenessP99Microseconds, 1), 9)
                s += pad(decimal(Double(run.bytesReceived) / 1024, 0), 15) + pad("\(run.framesDropped)", 16)
                s += pad(run.residentBytesAfter.map { decimal(Double($0) / 1_048_576, 1) } ?? "-", 10) + "\n"
            }
        }
        s += "median p50: \(fixed(r.medianP50Without, 1)) µs alone, \(fixed(r.medianP50With, 1)) µs served (ratio \(decimal(r.p50Ratio, 3)))\n"
        s += "median p99: \(fixed(r.medianP99Without, 1)) µs alone, \(fixed(r.medianP99With, 1)) µs served (ratio \(decimal(r.p99Ratio, 3)))\n"
        if let note = (r.without + r.with).compactMap(\.realtimeNote).first { s += "realtime: \(note)\n" }
        return s
    }

    static func render(_ r: KernelLimitReport) -> String {
        var s = "wake-up lateness at \(Int(r.rateHz)) Hz, \(decimal(r.secondsPerRun, 1)) s per run, \(r.realtime ? "SCHED_FIFO priority 50" : "normal scheduling")\n"
        s += "run                          CPU latency 0   wakeups   p50 µs   p99 µs   max µs\n"
        for run in r.runs {
            s += pad("round \(run.round) " + name(run.source), 29, left: true) + pad(run.cpuLatencyZero ? "yes" : "no", 13)
            s += pad("\(run.lateness.wakeups)", 10) + pad(fixed(run.lateness.p50Microseconds, 1), 9)
            s += pad(fixed(run.lateness.p99Microseconds, 1), 9) + pad(fixed(run.lateness.maxMicroseconds, 1), 9) + "\n"
        }
        for zero in [false, true] {
            let these = r.medians.filter { $0.cpuLatencyZero == zero }
            guard !these.isEmpty else { continue }
            s += "median\(zero ? " with CPU latency 0" : ""): " + these.map {
                "\(name($0.source)) p50 \(fixed($0.p50Microseconds, 1)) µs, p99 \(fixed($0.p99Microseconds, 1)) µs"
            }.joined(separator: "; ")
            if let kernel = these.first(where: { $0.source == .cyclictest }), let loop = these.first(where: { $0.source == .loop }),
               kernel.p50Microseconds > 0 {
                s += " (loop/cyclictest p50 \(decimal(loop.p50Microseconds / kernel.p50Microseconds, 2)))"
            }
            s += "\n"
        }
        for note in [r.cyclictestNote, r.cpuLatencyNote].compactMap({ $0 }) { s += "note: \(note)\n" }
        if let note = r.realtimeNote { s += "realtime: \(note)\n" }
        return s
    }

    static func render(_ r: PlayersBenchmarkReport) -> String {
        var s = "\(r.board)\(r.simulated && !r.board.contains("simulated") ? " (simulated)" : ""): loop at \(Int(r.rateHz)) Hz, \(decimal(r.secondsPerRun, 1)) s per run\n"
        s += "run                 boards   ticks  missed   p50 µs   p99 µs   max µs   samples\n"
        for (i, (a, b)) in zip(r.alone, r.together).enumerated() {
            for run in [a, b] {
                s += pad("pair \(i + 1) " + (run.boards == 1 ? "alone" : "together"), 18, left: true) + pad("\(run.boards)", 8)
                s += pad("\(run.ticks)", 8) + pad("\(run.missedTicks)", 8)
                s += pad(fixed(run.latenessP50Microseconds, 1), 9) + pad(fixed(run.latenessP99Microseconds, 1), 9)
                s += pad(fixed(run.latenessMaxMicroseconds, 1), 9) + pad("\(run.samples)", 10) + "\n"
            }
        }
        s += "median p50: \(fixed(r.medianP50Alone, 1)) µs alone, \(fixed(r.medianP50Together, 1)) µs with \(r.boards) boards\n"
        s += "median p99: \(fixed(r.medianP99Alone, 1)) µs alone, \(fixed(r.medianP99Together, 1)) µs with \(r.boards) boards\n"
        if let note = r.realtimeNote { s += "realtime: \(note)\n" }
        return s
    }

    private static func name(_ source: WakeSource) -> String { source == .loop ? "tiltboard loop" : "cyclictest" }

    private static func millions(_ v: Double) -> String { decimal(v / 1e6, 2) + " M" }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let text = String(text.drop(while: { $0 == " " }))
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + fill : fill + text
    }
}

import TiltboardCore
import TiltboardDrivers
import Tiltboard

/// One timed loop run of `PlayersBenchmark`: one board alone, or several in one loop.
package struct PlayersRun: Sendable, Equatable, Codable {
    /// Boards read at every tick.
    package var boards: Int
    package var ticks: UInt64
    package var missedTicks: UInt64
    package var latenessP50Microseconds: Double
    package var latenessP99Microseconds: Double
    package var latenessMaxMicroseconds: Double
    /// Samples run through the pipelines, every board's together.
    package var samples: UInt64
}

/// `tiltboard bench --players N`: the loop's lateness with N boards in one loop (`TiltLoopGroup`)
/// beside one board alone (`TiltLoop`), at one rate, in interleaved pairs of runs so that a
/// change in the machine's load falls on both.
package struct PlayersBenchmarkReport: Sendable, Equatable, Codable {
    /// The board's name and whether it is simulated.
    package var board: String
    package var simulated: Bool
    /// Loop ticks per second of every run.
    package var rateHz: Double
    /// Boards in the runs together.
    package var boards: Int
    package var secondsPerRun: Double
    /// One board alone, then `boards` boards in one loop, pair by pair.
    package var alone: [PlayersRun]
    package var together: [PlayersRun]
    /// The medians over the pairs, microseconds.
    package var medianP50Alone: Double
    package var medianP50Together: Double
    package var medianP99Alone: Double
    package var medianP99Together: Double
    /// Why SCHED_FIFO was not used, when it was asked for and refused.
    package var realtimeNote: String?
}

package enum PlayersBenchmark {
    /// Runs `pairs` pairs: `open()` once, its loop alone for `seconds`; then `boards` boards
    /// opened with `open()` in one group for `seconds`. Each sample is formatted as a run line,
    /// as `tiltboard run --json` would, so that cost is part of the measurement.
    /// `shouldStop` is asked between runs; `started` hears each run's stop.
    package static func run(open: () throws -> BoardSession, boards: Int, rateHz: Double, seconds: Double, pairs: Int = 3,
                            threadPolicy: LoopThreadPolicy = .inherited, progress: (String) -> Void = { _ in },
                            shouldStop: () -> Bool = { false },
                            started: (@escaping @Sendable () -> Void) -> Void = { _ in }) throws -> PlayersBenchmarkReport {
        var alone: [PlayersRun] = []
        var together: [PlayersRun] = []
        var note: String?
        var name = ""
        var simulated = false
        for pair in 1...pairs {
            if shouldStop() { break }
            progress("pair \(pair) of \(pairs): one board at \(Int(rateHz)) Hz for \(seconds) s…")
            do {
                let session = try open()
                defer { session.close() }
                name = session.board.name
                simulated = session.board.isSimulated
                var configuration = TiltLoop.Configuration(rateHz: rateHz)
                configuration.threadPolicy = threadPolicy
                let loop = session.makeLoop(configuration)
                let line = LineScratch()
                let running = loop.start(for: Nanoseconds.duration(seconds: seconds), observers: [line.observer(player: nil)])
                started { running.stop() }
                note = try running.wait() ?? note
                alone.append(PlayersRun(boards: 1, statistics: loop.scheduleStatistics, samples: loop.samples))
            }
            if shouldStop() { break }
            progress("pair \(pair) of \(pairs): \(boards) boards in one loop at \(Int(rateHz)) Hz for \(seconds) s…")
            var sessions: [BoardSession] = []
            defer { for session in sessions.reversed() { session.close() } }
            for _ in 0..<boards { sessions.append(try open()) }
            let loops = sessions.map { session in
                var configuration = TiltLoop.Configuration(rateHz: rateHz)
                configuration.threadPolicy = threadPolicy
                return session.makeLoop(configuration)
            }
            let group = try TiltLoopGroup(loops)
            let lines = loops.map { _ in LineScratch() }
            let running = group.start(for: Nanoseconds.duration(seconds: seconds),
                                      observers: lines.indices.map { [lines[$0].observer(player: $0 + 1)] })
            started { running.stop() }
            note = running.wait() ?? note
            for member in running.members { _ = try? member.wait() }
            together.append(PlayersRun(boards: boards, statistics: loops[0].scheduleStatistics,
                                       samples: loops.reduce(0) { $0 &+ $1.samples }))
        }
        return PlayersBenchmarkReport(
            board: name, simulated: simulated, rateHz: rateHz, boards: boards, secondsPerRun: seconds,
            alone: alone, together: together,
            medianP50Alone: median(alone.map(\.latenessP50Microseconds)), medianP50Together: median(together.map(\.latenessP50Microseconds)),
            medianP99Alone: median(alone.map(\.latenessP99Microseconds)), medianP99Together: median(together.map(\.latenessP99Microseconds)),
            realtimeNote: note)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}

extension PlayersRun {
    init(boards: Int, statistics: LoopStatistics, samples: UInt64) {
        self.init(boards: boards, ticks: statistics.ticks, missedTicks: statistics.missedTicks,
                  latenessP50Microseconds: Double(statistics.latenessP50Nanoseconds) / 1000,
                  latenessP99Microseconds: Double(statistics.latenessP99Nanoseconds) / 1000,
                  latenessMaxMicroseconds: Double(statistics.latenessMaxNanoseconds) / 1000, samples: samples)
    }
}

/// A run line's buffer, allocated before the run; loop thread only.
private final class LineScratch: @unchecked Sendable {
    var line = JSONLineWriter(capacity: 512)
    var checksum: UInt64 = 0

    func observer(player: Int?) -> LoopObserver {
        LoopObserver(sample: { out, _ in
            self.line.writeRunLine(out, haptic: false, player: player)
            self.checksum &+= UInt64(self.line.bytes.count)
        })
    }
}

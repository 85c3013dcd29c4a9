/// What measured a run of `bench --kernel-limit`: `cyclictest` (rt-tests), the kernel's own
/// wake-up latency with nothing else in the way, or the tilt loop.
package enum WakeSource: String, Sendable, Equatable, Codable, CaseIterable {
    case cyclictest
    case loop
}

/// Wake-up lateness of one run: how long after its deadline a sleeper woke.
package struct WakeLateness: Sendable, Equatable, Codable {
    package var wakeups: UInt64
    package var p50Microseconds: Double
    package var p99Microseconds: Double
    package var maxMicroseconds: Double

    package init(wakeups: UInt64, p50Microseconds: Double, p99Microseconds: Double, maxMicroseconds: Double) {
        self.wakeups = wakeups; self.p50Microseconds = p50Microseconds
        self.p99Microseconds = p99Microseconds; self.maxMicroseconds = maxMicroseconds
    }
}

/// One run of the comparison.
package struct WakeRun: Sendable, Equatable, Codable {
    /// 1 for the first round.
    package var round: Int
    package var source: WakeSource
    /// Whether a zero CPU wake-up latency request (`CPULatencyRequest`) was held during the run.
    package var cpuLatencyZero: Bool
    package var lateness: WakeLateness
}

/// The medians over the rounds of one kind of run.
package struct WakeMedian: Sendable, Equatable, Codable {
    package var source: WakeSource
    package var cpuLatencyZero: Bool
    package var p50Microseconds: Double
    package var p99Microseconds: Double

    package init(source: WakeSource, cpuLatencyZero: Bool, p50Microseconds: Double, p99Microseconds: Double) {
        self.source = source; self.cpuLatencyZero = cpuLatencyZero
        self.p50Microseconds = p50Microseconds; self.p99Microseconds = p99Microseconds
    }
}

/// `bench --kernel-limit`: the loop's wake-up lateness beside the kernel's limit on the same
/// machine, with and without the CPUs held out of deep idle states.
package struct KernelLimitReport: Sendable, Equatable, Codable {
    package var rateHz: Double
    package var secondsPerRun: Double
    /// Whether the loop (and `cyclictest`, at the same priority) asked for SCHED_FIFO.
    package var realtime: Bool
    /// Every run, in the order run.
    package var runs: [WakeRun]
    /// Per source and request, the median over the rounds.
    package var medians: [WakeMedian]
    /// Why there are no `cyclictest` runs, when there are none.
    package var cyclictestNote: String?
    /// Why no run held the CPU latency request, when none did.
    package var cpuLatencyNote: String?
    /// Why SCHED_FIFO was refused, when it was asked for and refused.
    package var realtimeNote: String? = nil
}

/// Runs the comparison's rounds: in each, `cyclictest` then the loop, first without the CPU
/// latency request and then with it, so that a machine's drift over time falls on every kind
/// of run alike.
package enum KernelLimitBenchmark {
    /// What one run gave: its lateness, or why its source cannot run on this machine.
    package enum Measured {
        case lateness(WakeLateness)
        /// The source is left out of every later round (`cyclictest` not installed).
        case unavailable(String)
    }

    /// - Parameters:
    ///   - cpuLatencyNote: why runs with the request are impossible; nil to run both kinds.
    ///   - measure: one run of a source, with the request held (true) or not.
    package static func run(rounds: Int, rateHz: Double, seconds: Double, realtime: Bool, cpuLatencyNote: String?,
                           progress: (String) -> Void, shouldStop: () -> Bool,
                           measure: (WakeSource, Bool) throws -> Measured) rethrows -> KernelLimitReport {
        var runs: [WakeRun] = []
        var sources = WakeSource.allCases
        var cyclictestNote: String?
        let requests = cpuLatencyNote == nil ? [false, true] : [false]
        let rounds = max(rounds, 1)
        rounds: for round in 1...rounds {
            for zero in requests {
                for source in sources {
                    if shouldStop() { break rounds }
                    progress("round \(round) of \(rounds): \(source == .loop ? "the loop" : "cyclictest")\(zero ? " with CPU latency 0" : "")…")
                    switch try measure(source, zero) {
                    case let .lateness(lateness):
                        runs.append(WakeRun(round: round, source: source, cpuLatencyZero: zero, lateness: lateness))
                    case let .unavailable(note):
                        sources.removeAll { $0 == source }
                        if source == .cyclictest { cyclictestNote = note }
                    }
                }
            }
        }
        return KernelLimitReport(rateHz: rateHz, secondsPerRun: seconds, realtime: realtime, runs: runs,
                                 medians: medians(of: runs), cyclictestNote: cyclictestNote,
                                 cpuLatencyNote: cpuLatencyNote)
    }

    /// The median p50 and p99 of each kind of run present, cyclictest first, without the
    /// request first.
    package static func medians(of runs: [WakeRun]) -> [WakeMedian] {
        var result: [WakeMedian] = []
        for zero in [false, true] {
            for source in WakeSource.allCases {
                let these = runs.filter { $0.source == source && $0.cpuLatencyZero == zero }
                guard !these.isEmpty else { continue }
                result.append(WakeMedian(source: source, cpuLatencyZero: zero,
                                         p50Microseconds: median(these.map(\.lateness.p50Microseconds)),
                                         p99Microseconds: median(these.map(\.lateness.p99Microseconds))))
            }
        }
        return result
    }

    /// The middle value (the mean of the middle two for an even count); 0 for none.
    package static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// `cyclictest`'s arguments for one run as the loop runs: one thread waking every
    /// `1/rateHz` on absolute deadlines with memory locked (`-m`), at SCHED_FIFO priority 50 with
    /// `realtime` (the loop's), a histogram of whole microseconds (`-h`), and `--laptop` to leave
    /// the CPU latency request alone when the run is without it.
    package static func cyclictestArguments(rateHz: Double, seconds: Double, realtime: Bool, cpuLatencyZero: Bool) -> [String] {
        let interval = Int((1_000_000 / rateHz).rounded())
        let loops = max(1, Int((seconds * rateHz).rounded()))
        var arguments = ["-i", "\(interval)", "-l", "\(loops)", "-m", "-q", "-h", "\(histogramMicroseconds)"]
        if realtime { arguments += ["-p", "50"] }
        if !cpuLatencyZero { arguments.append("--laptop") }
        return arguments
    }

    /// Microseconds `cyclictest`'s histogram spans; later wake-ups count as overflows.
    package static let histogramMicroseconds = 10_000

    /// Lateness from `cyclictest -q -h N`'s output: its histogram (`NNNNNN count` per
    /// microsecond), its overflow count and its maximum (`# Max Latencies: NNNNN`). Nil when the
    /// output holds no histogram.
    package static func parseCyclictest(_ output: String) -> WakeLateness? {
        var buckets: [(microseconds: Int, count: UInt64)] = []
        var overflows: UInt64 = 0
        var maximum: Double?
        for line in output.split(whereSeparator: \.isNewline) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if line.hasPrefix("# Max Latencies:"), let last = fields.last, let value = Double(last) {
                maximum = value
            } else if line.hasPrefix("# Histogram Overflows:"), let last = fields.last, let value = UInt64(last) {
                overflows = value
            } else if fields.count == 2, let us = Int(fields[0]), let count = UInt64(fields[1]) {
                buckets.append((us, count))
            }
        }
        let counted = buckets.reduce(0) { $0 + $1.count }
        let total = counted + overflows
        guard total > 0, let maximum else { return nil }
        func percentile(_ p: Double) -> Double {
            let rank = max(1, UInt64((p * Double(total)).rounded(.up)))
            var seen: UInt64 = 0
            for bucket in buckets {
                seen += bucket.count
                if seen >= rank { return Double(bucket.microseconds) }
            }
            return maximum
        }
        return WakeLateness(wakeups: total, p50Microseconds: percentile(0.5), p99Microseconds: percentile(0.99),
                            maxMicroseconds: maximum)
    }
}

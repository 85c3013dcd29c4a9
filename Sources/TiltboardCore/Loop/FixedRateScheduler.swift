import Synchronization

/// What a fixed-rate loop tells each tick.
public struct TickContext: Sendable, Equatable {
    /// 0 for the first tick run, counting only ticks run (not missed ones).
    public var index: UInt64
    /// The deadline this tick was scheduled for: start + k·period, in clock nanoseconds.
    public var deadline: UInt64
    /// When the loop actually woke, in clock nanoseconds.
    public var wakeTime: UInt64
    /// Seconds since the previous tick woke (one period for the first tick): the step the
    /// signal processing integrates over.
    @usableFromInline package var dt: Double
    /// Deadlines skipped just before this tick because the previous one overran.
    public var missedTicks: UInt64

    /// A tick's context as the scheduler hands it to the loop.
    @inlinable package init(index: UInt64, deadline: UInt64, wakeTime: UInt64, dt: Double, missedTicks: UInt64) {
        self.index = index; self.deadline = deadline; self.wakeTime = wakeTime; self.dt = dt; self.missedTicks = missedTicks
    }

    /// How long since the previous tick woke (one period for the first tick), to the nanosecond.
    public var interval: Duration { .rounded(seconds: dt) }

    /// How late the loop woke for this tick: wakeTime − deadline (zero when on time).
    public var lateness: Duration { .nanoseconds(Int64(clamping: latenessNanoseconds)) }

    /// wakeTime − deadline, in nanoseconds.
    @inlinable package var latenessNanoseconds: UInt64 { wakeTime >= deadline ? wakeTime - deadline : 0 }
}

/// Runs a body at a fixed rate on absolute deadlines (start + k·period), so timing errors never
/// accumulate. A tick that overruns makes the loop skip to the next deadline still ahead, keeping
/// the phase and counting the skipped ones, instead of firing a burst of late catch-up ticks.
///
/// Lateness is kept in a preallocated histogram; `statistics` can be read from any thread while
/// the loop runs. Nothing is allocated per tick.
package final class FixedRateScheduler: Sendable {
    /// Ticks per second.
    package let rateHz: Double
    /// The clock deadlines are taken from and slept on.
    package let clock: MonotonicClock
    /// The period in nanoseconds (fractional: deadlines are rounded individually, not accumulated).
    package let periodNanoseconds: Double

    private struct State {
        var lateness = LatencyHistogram()
        var ticks: UInt64 = 0
        var missed: UInt64 = 0
        var overruns: UInt64 = 0
    }

    private let stopRequested = Atomic<Bool>(false)
    private let state = Mutex(State())

    /// `rateHz` must be positive and finite (check user input before).
    package init(rateHz: Double, clock: MonotonicClock) {
        precondition(rateHz > 0 && rateHz.isFinite, "rateHz must be positive")
        self.rateHz = rateHz
        self.clock = clock
        periodNanoseconds = Nanoseconds.period(hz: rateHz)
    }

    /// Runs `tick` at each deadline until `stop()` is called or `shouldStop` returns true (checked
    /// before each tick). The first deadline is now. Rethrows what `tick` throws, ending the loop.
    package func run(shouldStop: () -> Bool = { false }, tick: (TickContext) throws -> Void) rethrows {
        let start = clock.nowNanoseconds()
        var k: UInt64 = 0
        var index: UInt64 = 0
        var previousWake: UInt64?
        var missedBefore: UInt64 = 0
        while !stopRequested.load(ordering: .acquiring), !shouldStop() {
            let deadline = self.deadline(k, start: start)
            clock.sleep(untilNanoseconds: deadline)
            if stopRequested.load(ordering: .acquiring) { break }
            let wake = clock.nowNanoseconds()
            let dt = previousWake.map { Nanoseconds.seconds(from: $0, to: wake) } ?? Nanoseconds.seconds(periodNanoseconds)
            let context = TickContext(index: index, deadline: deadline, wakeTime: wake, dt: dt, missedTicks: missedBefore)
            state.withLock {
                $0.lateness.record(context.latenessNanoseconds)
                $0.ticks += 1
            }
            try tick(context)
            previousWake = wake
            index += 1

            let now = clock.nowNanoseconds()
            var next = k + 1
            if self.deadline(next, start: start) < now {
                // Overran: the first deadline not yet passed, on the original grid.
                next = Swift.max(next, UInt64((Double(now - start) / periodNanoseconds).rounded(.down)))
                while self.deadline(next, start: start) < now { next += 1 }
                let missed = next - k - 1
                state.withLock {
                    $0.missed += missed
                    $0.overruns += 1
                }
                missedBefore = missed
            } else {
                missedBefore = 0
            }
            k = next
        }
    }

    /// Asks the loop to end; it returns before running another tick. Callable from any thread.
    package func stop() {
        stopRequested.store(true, ordering: .releasing)
    }

    /// A snapshot of the loop's counters and lateness so far.
    package var statistics: LoopStatistics {
        state.withLock {
            LoopStatistics(ticks: $0.ticks, missedTicks: $0.missed, overruns: $0.overruns, lateness: $0.lateness)
        }
    }

    @inline(__always) private func deadline(_ k: UInt64, start: UInt64) -> UInt64 {
        start &+ UInt64((Double(k) * periodNanoseconds).rounded())
    }
}

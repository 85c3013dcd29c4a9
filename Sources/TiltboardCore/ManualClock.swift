import Foundation
import Synchronization

/// A clock that moves only when told to: `sleep(until:)` jumps straight to the deadline, and so
/// does a timed wait on its condition.
///
/// Makes every time-driven component (scheduler, simulator, haptics) deterministic in tests.
public final class ManualClock: MonotonicClock {
    private let now: Atomic<UInt64>

    /// A clock standing at `startNanoseconds` until advanced.
    public init(startNanoseconds: UInt64 = 0) {
        now = Atomic(startNanoseconds)
    }

    /// The clock's current time in nanoseconds.
    public func nowNanoseconds() -> UInt64 { now.load(ordering: .acquiring) }

    public func sleep(untilNanoseconds deadline: UInt64) {
        // Never moves backwards.
        var current = now.load(ordering: .acquiring)
        while current < deadline {
            let (exchanged, original) = now.compareExchange(expected: current, desired: deadline,
                                                            ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Moves time forward by `nanoseconds`.
    package func advance(byNanoseconds nanoseconds: UInt64) {
        now.add(nanoseconds, ordering: .acquiringAndReleasing)
    }

    /// Moves time forward by `duration` (rounded to the nanosecond; a negative one does nothing).
    public func advance(by duration: Duration) {
        advance(bySeconds: duration.inSeconds)
    }

    /// Moves time forward by `seconds`.
    package func advance(bySeconds seconds: Double) {
        advance(byNanoseconds: Nanoseconds.span(seconds: seconds, rounded: .toNearestOrAwayFromZero))
    }

    /// Sets the time (only forward).
    package func set(nanoseconds: UInt64) { sleep(untilNanoseconds: nanoseconds) }

    /// A condition whose timed wait moves the clock to its deadline and returns, as `sleep` does:
    /// nothing else moves a manual clock, so a wait for its time to pass would never end.
    public func makeCondition() -> ClockCondition { Condition(clock: self) }

    private final class Condition: ClockCondition, @unchecked Sendable {
        // @unchecked: NSCondition is thread-safe; `clock` is immutable.
        private let condition = NSCondition()
        private let clock: ManualClock

        init(clock: ManualClock) { self.clock = clock }

        func lock() { condition.lock() }
        func unlock() { condition.unlock() }
        func signal() { condition.signal() }
        func broadcast() { condition.broadcast() }

        /// Untimed: until a signal. Timed: the deadline is reached at once, the lock kept.
        func wait(untilNanoseconds deadline: UInt64?) {
            guard let deadline else { return condition.wait() }
            clock.sleep(untilNanoseconds: deadline)
        }
    }
}

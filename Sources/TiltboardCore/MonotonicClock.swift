/// A monotonic time source that can also block until an absolute deadline.
///
/// Time is in nanoseconds from an arbitrary fixed origin. The Linux implementation uses
/// `CLOCK_MONOTONIC` and `clock_nanosleep(TIMER_ABSTIME)`; tests use `ManualClock`, and simulated
/// boards can run on `VirtualClock` (TiltboardSimulator).
///
/// Every timed wait of a component that owns a thread goes through its clock — `sleep` or a
/// condition from `makeCondition()` — so a virtual clock knows when all its threads are waiting.
public protocol MonotonicClock: AnyObject, Sendable {
    /// Now, in nanoseconds since the clock's fixed origin; never goes back.
    func nowNanoseconds() -> UInt64
    /// Blocks the calling thread until `deadline`; returns at once if it has passed.
    func sleep(untilNanoseconds deadline: UInt64)
    /// A lock with a condition whose timed waits run to deadlines on this clock.
    func makeCondition() -> ClockCondition
    /// Runs `body` with the calling thread taking part in the clock's time: a virtual clock moves
    /// on only while every taking-part thread waits on it. Real clocks just run `body`.
    func takingPart<R>(_ body: () throws -> R) rethrows -> R
}

extension MonotonicClock {
    /// Now, in seconds.
    @inlinable public func nowSeconds() -> Double { Nanoseconds.seconds(nowNanoseconds()) }

    public func makeCondition() -> ClockCondition { RelativeTimeCondition(clock: self) }

    public func takingPart<R>(_ body: () throws -> R) rethrows -> R { try body() }
}

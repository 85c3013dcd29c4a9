/// A monotonic time source that can also block until an absolute deadline.
///
/// Time is in nanoseconds from an arbitrary fixed origin. The Linux implementation uses
/// `CLOCK_MONOTONIC` and `clock_nanosleep(TIMER_ABSTIME)`; tests use `ManualClock`.
public protocol MonotonicClock: AnyObject, Sendable {
    func nowNanoseconds() -> UInt64
    /// Blocks the calling thread until `deadline`; returns at once if it has passed.
    func sleep(untilNanoseconds deadline: UInt64)
}

extension MonotonicClock {
    /// Now, in seconds.
    @inlinable public func nowSeconds() -> Double { Double(nowNanoseconds()) / 1e9 }
}

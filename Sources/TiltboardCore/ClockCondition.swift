import Foundation

/// A lock and a condition variable whose timed waits end at a deadline on a `MonotonicClock`.
///
/// Used like a condition variable: take the lock, check the state, `wait`, check again.
public protocol ClockCondition: AnyObject, Sendable {
    /// Takes the condition's lock.
    func lock()
    /// Releases the condition's lock.
    func unlock()
    /// With the lock held: releases it until `signal`/`broadcast`, until `deadline` (clock
    /// nanoseconds; nil waits without one) or spuriously, and takes it again.
    func wait(untilNanoseconds deadline: UInt64?)
    /// With the lock held: wakes one waiter.
    func signal()
    /// With the lock held: wakes every waiter.
    func broadcast()
}

/// The condition of a clock that runs in real time: a timed wait lasts the clock's time left
/// until the deadline, measured when the wait starts.
package final class RelativeTimeCondition: ClockCondition, @unchecked Sendable {
    // @unchecked: NSCondition is thread-safe; `clock` is immutable.
    private let condition = NSCondition()
    private let clock: MonotonicClock

    package init(clock: MonotonicClock) { self.clock = clock }

    package func lock() { condition.lock() }
    package func unlock() { condition.unlock() }
    package func signal() { condition.signal() }
    package func broadcast() { condition.broadcast() }

    package func wait(untilNanoseconds deadline: UInt64?) {
        guard let deadline else { return condition.wait() }
        let now = clock.nowNanoseconds()
        guard deadline > now else { return }
        _ = condition.wait(until: Date(timeIntervalSinceNow: Nanoseconds.seconds(from: now, to: deadline)))
    }
}

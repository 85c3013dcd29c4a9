import TiltboardCore

/// How a wait on a `GPIOInputLine` ended.
public enum EdgeWait: Sendable, Equatable {
    /// A rising edge was queued; it has been consumed.
    case edge
    /// The `WakeStop` was requested.
    case stopped
    /// The deadline passed first.
    case deadline
}

/// A stop request that wakes a thread blocked in `GPIOInputLine.waitForEdge(until:on:stop:)` at
/// once, with no periodic look at a flag. Once requested it stays requested: make a new one for
/// each run. A line makes the kind it can wait on (`GPIOInputLine.makeWakeStop()`).
public protocol WakeStop: AnyObject, Sendable {
    /// True once `request()` has been called.
    var isRequested: Bool { get }
    /// Wakes the waiting thread, and every later wait returns `.stopped` at once. Callable from
    /// any thread, a signal-watching one included, any number of times.
    func request()
}

/// A stop for waits that sleep on a `MonotonicClock` (the simulated pins): the request wakes a
/// sleep on the clock's own condition, so on a `VirtualClock` it ends at the instant of the
/// request, with no time passing.
public final class ClockWakeStop: WakeStop, @unchecked Sendable {
    // @unchecked: `requested` is guarded by `condition`.
    /// The clock the sleeps run on.
    public let clock: MonotonicClock
    private let condition: ClockCondition
    private var requested = false

    /// A stop whose waits sleep on `clock`.
    public init(clock: MonotonicClock) {
        self.clock = clock
        condition = clock.makeCondition()
    }

    public var isRequested: Bool {
        condition.lock(); defer { condition.unlock() }
        return requested
    }

    public func request() {
        condition.lock()
        requested = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps until `deadline` on the clock or a request, whichever comes first: true when
    /// requested.
    public func sleep(untilNanoseconds deadline: UInt64) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while !requested && clock.nowNanoseconds() < deadline {
            condition.wait(untilNanoseconds: deadline)
        }
        return requested
    }
}

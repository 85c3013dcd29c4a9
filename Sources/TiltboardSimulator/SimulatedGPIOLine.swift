import Synchronization
import TiltboardCore
import TiltboardDrivers

/// A GPIO output line that records every level change with its time on `clock`.
///
/// Safe to drive from any thread (the haptic engine owns a thread of its own).
public final class SimulatedGPIOLine: GPIOOutputLine {
    public let name: String
    /// Timestamps the recorded changes.
    public let clock: MonotonicClock

    private struct State {
        var active = false
        var released = false
        var changes: [(t: Double, active: Bool)] = []
        var onChange: (@Sendable (Double, Bool) -> Void)?
    }
    private let state = Mutex(State())
    /// Held from a change through its `onChange` call, so a caller that finds the line already at
    /// its level returns only once that change was reported (a process that ends right after
    /// switching the motor off never leaves a log that says on).
    private let reporting = Mutex(())

    /// An inactive, requested line.
    public init(name: String = "simulated motor", clock: MonotonicClock) {
        self.name = name
        self.clock = clock
    }

    /// Every level change so far, oldest first; `t` in seconds on `clock`.
    public var changes: [(t: Double, active: Bool)] { state.withLock { $0.changes } }

    /// The level last driven.
    public var isActive: Bool { state.withLock { $0.active } }

    /// True once `release()` has been called.
    public var isReleased: Bool { state.withLock { $0.released } }

    /// Called after each level change with (time, active), outside the line's lock.
    public var onChange: (@Sendable (Double, Bool) -> Void)? {
        get { state.withLock { $0.onChange } }
        set { state.withLock { $0.onChange = newValue } }
    }

    /// How long the line has been active in total, counting an ongoing pulse up to now.
    public var activeTime: Duration { .rounded(seconds: activeSeconds) }

    /// Seconds the line has been active in total, counting an ongoing pulse up to now.
    package var activeSeconds: Double {
        let now = clock.nowSeconds()
        return state.withLock { s in
            var total = 0.0
            var since: Double?
            for change in s.changes {
                if change.active { since = change.t } else if let start = since { total += change.t - start; since = nil }
            }
            if let start = since { total += now - start }
            return total
        }
    }

    /// Records the change at the clock's time, unless the line was released.
    public func set(active: Bool) throws {
        try reporting.withLock { _ in try change(active: active) }
    }

    private func change(active: Bool) throws {
        let t = clock.nowSeconds()
        let notify: (@Sendable (Double, Bool) -> Void)? = try state.withLock { s in
            guard !s.released else {
                throw GPIOError(.simulatedReleased(line: name, waiting: false))
            }
            guard s.active != active else { return nil }
            s.active = active
            s.changes.append((t: t, active: active))
            return s.onChange
        }
        notify?(t, active)
    }

    public func release() {
        reporting.withLock { _ in releaseReporting() }
    }

    private func releaseReporting() {
        let t = clock.nowSeconds()
        let notify: (@Sendable (Double, Bool) -> Void)? = state.withLock { s in
            guard !s.released else { return nil }
            s.released = true
            guard s.active else { return nil }
            s.active = false
            s.changes.append((t: t, active: false))
            return s.onChange
        }
        notify?(t, false)
    }
}

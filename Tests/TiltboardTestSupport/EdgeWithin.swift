import TiltboardCore
import TiltboardDrivers

extension GPIOInputLine {
    /// True when a rising edge is queued or comes within `timeout` on `clock` (consumed), through
    /// the same wait the loop uses, `waitForEdge(until:on:stop:)`, with a stop nobody requests.
    /// With `.zero` a simulated pin still takes an edge already queued, while a kernel line's
    /// wait ends on the passed deadline first (`discardQueuedEdges()` takes that edge).
    public func waitForEdge(within timeout: Duration, on clock: MonotonicClock) throws -> Bool {
        try waitForEdge(until: clock.nowNanoseconds() &+ Nanoseconds.span(timeout), on: clock, stop: makeWakeStop()) == .edge
    }
}

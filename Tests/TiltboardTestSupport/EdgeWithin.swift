import TiltboardCore
import TiltboardDrivers

extension GPIOInputLine {
    /// True when a rising edge is queued or comes within `timeout` on `clock` (consumed), through
    /// the same wait the loop uses, `waitForEdge(until:on:stop:)`, with a stop nobody requests.
    /// `.zero` only takes an edge already queued.
    public func waitForEdge(within timeout: Duration, on clock: MonotonicClock) throws -> Bool {
        try waitForEdge(until: clock.nowNanoseconds() &+ Nanoseconds.span(timeout), on: clock, stop: makeWakeStop()) == .edge
    }
}

import TiltboardCore

/// A GPIO line requested as an input with rising-edge events, e.g. the sensor's INT pin.
///
/// Implemented by libgpiod (`TiltboardLinux`) and by the simulated chips' interrupt pins.
public protocol GPIOInputLine: AnyObject, Sendable {
    /// Names the line in messages: `pinctrl-bcm2711 line 4 (GPIO4)`.
    var name: String { get }
    /// A stop this line's `waitForEdge(until:on:stop:)` wakes on at once (an eventfd for a
    /// kernel line, a condition on the clock for a simulated one).
    func makeWakeStop() throws -> WakeStop
    /// Blocks until a rising edge (consumed: `.edge`), a request of `stop` (`.stopped`) or
    /// `deadline` on `clock` (`.deadline`; nil: none), whichever comes first, and wakes for
    /// nothing else. `stop` is one made by this line's `makeWakeStop()`. Edges that arrived
    /// since the previous wait are queued, not lost.
    func waitForEdge(until deadline: UInt64?, on clock: MonotonicClock, stop: WakeStop) throws -> EdgeWait
    /// Consumes every edge queued so far without waiting; returns how many there were.
    @discardableResult
    func discardQueuedEdges() throws -> Int
    /// Gives the line back. Safe to call more than once.
    func release()
}

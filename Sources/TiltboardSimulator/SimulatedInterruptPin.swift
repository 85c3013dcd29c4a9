import Synchronization
import TiltboardCore
import TiltboardDrivers

/// A simulated chip that drives an interrupt pin and can bring its state up to the clock's now.
package protocol SimulatedInterruptSource: AnyObject {
    /// Replays the chip's sample ticks up to now, so its pin shows what a free-running part would.
    func serviceInterruptPin()
    /// Clock time of the chip's first sample tick after `now`; nil while it takes no samples.
    func nextSampleNanoseconds(after now: UInt64) -> UInt64?
}

/// A simulated chip's INT pin as a GPIO input: its physical level, and the rising edges queued
/// since the last wait, as the kernel queues them for a real line.
///
/// The chip computes samples lazily, so `waitForEdge` steps the clock from one sample tick of
/// the chip to the next (sleeping on the chip's clock: instant on a `ManualClock`, real time on
/// the system clock) and lets the chip catch up at each, up to the timeout. Wake-up latency is
/// therefore exact to the sample tick, and a manual clock never hangs. Because waiting drives
/// the chip, call it from the thread that uses the chip's bus.
package final class SimulatedInterruptPin: GPIOInputLine, @unchecked Sendable {
    package let name: String
    /// The clock the wait sleeps on (the chip's).
    package let clock: MonotonicClock
    /// The chip driving the pin (weak: the chip owns its pin).
    weak var source: SimulatedInterruptSource?

    private struct State {
        var high = false
        var queuedEdges = 0
        var risingEdges = 0
        var released = false
    }
    private let state = Mutex(State())

    /// How far the wait steps while the chip takes no samples (asleep, in standby).
    static let idleStepNanoseconds: UInt64 = 10_000_000

    /// A low pin named `name`, timed on `clock`.
    package init(name: String, clock: MonotonicClock) {
        self.name = name
        self.clock = clock
    }

    /// The pin's physical level as of the chip's last update.
    package var isHigh: Bool { state.withLock { $0.high } }

    /// Rising edges since the pin was created.
    package var risingEdges: Int { state.withLock { $0.risingEdges } }

    /// True once `release()` has been called.
    package var isReleased: Bool { state.withLock { $0.released } }

    /// Sets the level; low → high queues an edge. Called by the chip.
    package func drive(high: Bool) {
        state.withLock { s in
            if high && !s.high { s.queuedEdges += 1; s.risingEdges += 1 }
            s.high = high
        }
    }

    /// A short pulse (the MPU-6050's unlatched 50 µs pulse): an edge, the level unchanged.
    package func pulse() {
        state.withLock { s in s.queuedEdges += 1; s.risingEdges += 1 }
    }

    /// A stop that wakes a sleep on the pin's clock (its condition) at once.
    package func makeWakeStop() -> WakeStop { ClockWakeStop(clock: clock) }

    /// Steps the clock from sample tick to sample tick (see the type's note), sleeping on `stop`
    /// (a `ClockWakeStop` on the pin's clock), so a request ends the wait at its own instant.
    /// `clock` is the pin's: a simulated pin runs on its chip's clock.
    package func waitForEdge(until deadline: UInt64?, on _: MonotonicClock, stop: WakeStop) throws -> EdgeWait {
        if isReleased {
            throw GPIOError(.simulatedReleased(line: name, waiting: true))
        }
        let sleeper = (stop as? ClockWakeStop).flatMap { $0.clock === clock ? $0 : nil }
        while true {
            if stop.isRequested { return .stopped }
            source?.serviceInterruptPin()
            if takeEdge() { return .edge }
            let now = clock.nowNanoseconds()
            if let deadline, now >= deadline { return .deadline }
            let next = source?.nextSampleNanoseconds(after: now) ?? now &+ Self.idleStepNanoseconds
            let until = Swift.min(deadline ?? .max, Swift.max(next, now &+ 1))
            if let sleeper {
                if sleeper.sleep(untilNanoseconds: until) { return .stopped }
            } else {
                clock.sleep(untilNanoseconds: until)
            }
        }
    }

    /// Brings the chip up to now and drops every edge queued so far.
    @discardableResult
    package func discardQueuedEdges() throws -> Int {
        if isReleased {
            throw GPIOError(.simulatedReleased(line: name, waiting: true))
        }
        source?.serviceInterruptPin()
        return state.withLock { s in
            defer { s.queuedEdges = 0 }
            return s.queuedEdges
        }
    }

    package func release() {
        state.withLock { $0.released = true }
    }

    private func takeEdge() -> Bool {
        state.withLock { s in
            guard s.queuedEdges > 0 else { return false }
            s.queuedEdges -= 1
            return true
        }
    }
}

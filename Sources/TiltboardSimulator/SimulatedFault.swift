import TiltboardCore

/// A failure the simulated bus plays at a set time: what a loose jumper wire or a brown-out does
/// to a real board, so the loop's recovery can be watched without hardware.
package struct SimulatedFault: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        /// Every transaction goes unacknowledged for `seconds` (EREMOTEIO, the "Remote I/O error"
        /// a Pi's adapter reports for a NACK); the chip keeps its state.
        case nack
        /// Every transaction fails with an I/O error (EIO) for `seconds`; the chip keeps its state.
        case eio
        /// At `at` the chip returns to its power-on state (a brown-out); no bus error.
        case reset
        /// Nothing answers at the chip's address for `seconds` (ENXIO); the chip comes back in
        /// its power-on state.
        case unplug
    }

    /// Seconds after the plan started (the board opened).
    package var at: Double
    package var kind: Kind
    /// How long the bus fails (not used by `reset`).
    package var seconds: Double

    package init(at: Double, kind: Kind, seconds: Double = 0) {
        self.at = at; self.kind = kind; self.seconds = seconds
    }
}

/// Faults in clock nanoseconds, checked on every transaction without allocating.
struct FaultPlan {
    let clock: MonotonicClock
    let address: UInt8
    /// Start and end of each fault, clock nanoseconds.
    private let windows: [(start: UInt64, end: UInt64, kind: SimulatedFault.Kind)]
    /// When the chip powers on afresh (`reset` and `unplug`), sorted; `resetsDone` are past.
    private let resets: [UInt64]
    private var resetsDone = 0

    init(faults: [SimulatedFault], address: UInt8, clock: MonotonicClock) {
        self.clock = clock
        self.address = address
        let origin = clock.nowNanoseconds()
        // Bounded so the conversion cannot trap; board files allow far less (a day).
        func ns(_ s: Double) -> UInt64 { origin &+ Nanoseconds.span(seconds: Swift.min(s, 1e9), rounded: .toNearestOrAwayFromZero) }
        windows = faults.filter { $0.kind != .reset }.map { (ns($0.at), ns($0.at + $0.seconds), $0.kind) }
        resets = faults.filter { $0.kind == .reset || $0.kind == .unplug }.map { ns($0.at) }.sorted()
    }

    /// How many power-on resets fell due by `now` since the last call.
    mutating func resetsDue(now: UInt64) -> Int {
        let before = resetsDone
        while resetsDone < resets.count, resets[resetsDone] <= now { resetsDone += 1 }
        return resetsDone - before
    }

    /// The fault failing transactions at `now`, if any.
    func failing(now: UInt64) -> SimulatedFault.Kind? {
        for w in windows where w.start <= now && now < w.end { return w.kind }
        return nil
    }
}

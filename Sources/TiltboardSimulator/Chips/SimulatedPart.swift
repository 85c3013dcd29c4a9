import TiltboardCore
import TiltboardDrivers

/// What every simulated part shares, whatever its register map: the clock it samples on, the
/// motion it feels, its imperfections, its INT pin, and the lazy sample-tick bookkeeping (each
/// bus transaction first replays the ticks since the previous one). A chip subclasses it and
/// overrides `resetRegisters`, `catchUp`, `updateInterruptPin` and `samplePeriodNs`.
package class SimulatedPart: SimulatedInterruptSource {
    /// The clock the part samples on.
    package let clock: MonotonicClock
    /// What the part feels; may be replaced at any time.
    package var motion: MotionSource
    /// Clock time at which the motion starts (its t = 0): when the chip was created, so a
    /// script plays from the start whatever the clock's origin, and resets don't restart it.
    package var motionStartNanoseconds: UInt64
    /// How far the part is from ideal; may be replaced at any time.
    package var imperfections: SensorImperfections
    /// The INT pin, for a board whose `interrupt` section wires it to a GPIO input.
    package let interruptPin: SimulatedInterruptPin
    /// Sample ticks taken since power-on (ticks skipped in a long catch-up included).
    package private(set) var samplesTaken: UInt64 = 0

    /// Clock time of sample tick 0 (starting to sample, or the last rate change).
    private(set) var originNs: UInt64 = 0
    /// Ticks replayed since `originNs`.
    private var ticksDone: UInt64 = 0

    /// Longest stretch of ticks an event detector replays in one catch-up.
    static let detectorReplayLimit: UInt64 = 10_000

    /// A powered-on part at its reset values, its pin named `pinName`.
    init(clock: MonotonicClock, motion: MotionSource, imperfections: SensorImperfections, pinName: String) {
        self.clock = clock
        self.motion = motion
        motionStartNanoseconds = clock.nowNanoseconds()
        self.imperfections = imperfections
        interruptPin = SimulatedInterruptPin(name: pinName, clock: clock)
        resetRegisters()
        interruptPin.source = self
    }

    // MARK: What a chip provides

    /// The sample period now, in ns; nil while the part takes no samples.
    var samplePeriodNs: UInt64? { nil }
    /// Power-on state of the register file (call `restartTicks` or `stopTicks` as it needs).
    func resetRegisters() {}
    /// Replays the ticks due since the last transaction (see `takeDueTicks`).
    func catchUp() {}
    /// Drives `interruptPin` from the register state.
    func updateInterruptPin() {}

    // MARK: Shared behaviour

    package func powerOnReset() {
        resetRegisters()
        updateInterruptPin()
    }

    package func serviceInterruptPin() {
        catchUp()
        updateInterruptPin()
    }

    package func nextSampleNanoseconds(after now: UInt64) -> UInt64? {
        guard let period = samplePeriodNs else { return nil }
        guard now >= originNs else { return originNs }
        return originNs &+ ((now - originNs) / period + 1) &* period
    }

    /// Seconds into the motion at clock time `ns`.
    @inline(__always) func motionSeconds(_ ns: UInt64) -> Double {
        ns > motionStartNanoseconds ? Nanoseconds.seconds(from: motionStartNanoseconds, to: ns) : 0
    }

    /// Counts ticks from now (the part starts sampling).
    func restartTicks() {
        originNs = clock.nowNanoseconds()
        ticksDone = 0
    }

    /// Forgets the ticks done (a reset); the origin is set again when sampling starts.
    func clearTicks() { ticksDone = 0 }

    /// Counts ticks from the last one taken at `oldPeriodNs`, so a new period applies from now on.
    func reanchorTicks(oldPeriodNs: UInt64) {
        originNs &+= ticksDone &* oldPeriodNs
        ticksDone = 0
    }

    /// The ticks that fell due since the last call, counted into `samplesTaken` and marked
    /// done; nil while not sampling or when none are due.
    func takeDueTicks() -> DueTicks? {
        guard let period = samplePeriodNs else { return nil }
        let now = clock.nowNanoseconds()
        guard now > originNs else { return nil }
        let due = (now - originNs) / period
        guard due > ticksDone else { return nil }
        let ticks = DueTicks(originNs: originNs, periodNs: period, first: ticksDone + 1, last: due)
        samplesTaken &+= ticks.count
        ticksDone = due
        return ticks
    }
}

/// Sample ticks `first…last` (counted from `originNs`, `periodNs` apart) due in one catch-up.
struct DueTicks {
    let originNs: UInt64
    let periodNs: UInt64
    let first: UInt64
    let last: UInt64

    var count: UInt64 { last - first + 1 }

    /// Clock time of tick `k`.
    func time(_ k: UInt64) -> UInt64 { originNs &+ k &* periodNs }

    /// The first tick of the newest `limit` ticks (`first` when there are no more than that).
    func firstOfNewest(_ limit: UInt64) -> UInt64 { count > limit ? last - limit + 1 : first }
}

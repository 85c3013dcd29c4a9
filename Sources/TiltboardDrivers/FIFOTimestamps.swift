import TiltboardCore

/// Times for the samples a FIFO drain reads: strictly increasing, and close to when the chip
/// took each one. One instance per driver; allocates nothing.
///
/// A FIFO holds what the chip collected up to the moment its count is read, so a batch ends
/// there, not at the caller's time `t` for the start of the drain: a thread held up in between
/// (preempted, or waiting on the count's bus transfer) reads more frames than `t` allows, and
/// stamping them back from `t` puts the first ones before the previous batch's last. So a batch
/// of `n` frames ends at the count read (`t` plus what the drain's clock counted since it began)
/// and frame `i` is stamped `end − (n−1−i)·period`.
///
/// A whole-frame count still leaves a batch's first stamp anywhere from just after the previous
/// batch's last to two periods later (each batch's newest frame is up to a period older than the
/// count read), and a delay before the drain began is not seen at all; so no stamp comes less than
/// `minimumSpacing` periods after the one before. Stamps are not counted on at the nominal period
/// instead: the chip's rate differs from nominal, and a FIFO that drops its oldest frames when it
/// fills would leave counted times behind, both needing a re-synchronisation that jumps anyway.
struct FIFOTimestamps {
    /// The least gap between consecutive stamps, in output periods.
    static let minimumSpacing = 0.5

    private var drainT = 0.0
    private var drainStart: UInt64 = 0
    private var previousDrainT: Double?
    private var last: Double?

    /// Call as a drain begins, before the count is read: `t` is the caller's time for now on
    /// `clock`. A `t` earlier than the previous drain's starts afresh (a caller's new run keeps
    /// times of its own).
    mutating func beginDrain(at t: Double, clock: MonotonicClock) {
        if let previousDrainT, t < previousDrainT { last = nil }
        previousDrainT = t
        drainT = t
        drainStart = clock.nowNanoseconds()
    }

    /// The caller's time for now: call right after reading a count.
    func countRead(clock: MonotonicClock) -> Double {
        drainT + Nanoseconds.seconds(from: drainStart, to: clock.nowNanoseconds())
    }

    /// The time of frame `i` (oldest 0) of the `count` frames whose newest was taken at `end`.
    /// Call once for each frame, in order.
    mutating func stamp(_ i: Int, of count: Int, endingAt end: Double, period: Double) -> Double {
        var time = end - Double(count - 1 - i) * period
        if let last { time = Swift.max(time, last + Self.minimumSpacing * period) }
        last = time
        return time
    }
}

/// Plays `HapticEffect`s as a pure function of time: which level the motor line should have at
/// `t`, and when that next changes. It reads no clock, so it runs the same in tests and on a Pi.
///
/// It plays what it is given, however long: the motor's on-time cap sits in the motor output
/// (`HapticEngine`), which every effect goes through.
package struct HapticPlayer: Sendable {
    /// Software PWM carrier frequency for strengths below 1, in hertz.
    package var carrierHz: Double

    /// Times closer than this count as equal, so a wake-up at a computed change time (rounded
    /// to clock ticks) sees the change and never spins on it.
    @usableFromInline static let epsilon = 1e-6

    private var effect: HapticEffect?
    private var startT = 0.0
    private var cycle = 0.0
    private var stopT = 0.0

    /// True from `play` until `cancel`, or until `advance(to:)` reaches the effect's end.
    package private(set) var isPlaying = false
    /// When the current effect ends by itself or by cancellation (nil: never).
    package var endTime: Double? {
        effect == nil || stopT == .infinity ? nil : stopT
    }

    /// An idle player with the given PWM carrier.
    package init(carrierHz: Double = 200) {
        self.carrierHz = carrierHz
    }

    /// Starts `effect` at `t`, replacing whatever was playing. An invalid effect (see
    /// `HapticEffect.validate()`) just stops playback.
    package mutating func play(_ effect: HapticEffect, at t: Double) {
        guard effect.isValid else {
            cancel(at: t)
            return
        }
        self.effect = effect
        startT = t
        cycle = 0
        for i in 0..<effect.segmentCount { cycle += effect.segmentSeconds(i) }
        stopT = t + (effect.plays.map { Double($0) * cycle } ?? .infinity)
        isPlaying = true
    }

    /// Stops at `t`: the line is off from then on.
    package mutating func cancel(at t: Double) {
        guard effect != nil else { return }
        stopT = Swift.min(stopT, t)
        advance(to: t)
    }

    /// Lets the player notice that its effect has ended by `t` (clears `isPlaying`).
    package mutating func advance(to t: Double) {
        guard effect != nil, t + Self.epsilon >= stopT else { return }
        effect = nil
        isPlaying = false
    }

    /// Whether the effect is still running at `t`.
    package func isPlaying(at t: Double) -> Bool {
        effect != nil && t + Self.epsilon < stopT
    }

    /// The line level the effect asks for at `t` (true = motor on).
    package func level(at t: Double) -> Bool {
        guard let effect, t + Self.epsilon < stopT else { return false }
        let r = t - startT + Self.epsilon
        guard r >= 0 else { return false }
        let seg = segment(effect, at: r)
        guard seg.on else { return false }
        guard let (period, duty) = pwm(effect) else { return true }
        return phase(r - seg.start, period) < duty
    }

    /// The first time after `t` at which the level may change; nil when nothing is playing or
    /// the level never changes again (a continuous effect repeated until cancelled).
    /// At the returned time the effect may also simply end.
    package func nextChange(after t: Double) -> Double? {
        guard let effect, t + Self.epsilon < stopT else { return nil }
        let r = t - startT + Self.epsilon
        if r < 0 { return startT }
        let seg = segment(effect, at: r)
        var next: Double
        if seg.on, let (period, duty) = pwm(effect) {
            let q = phase(r - seg.start, period)
            let edge = q < duty ? r - q + duty : r - q + period
            next = Swift.min(edge, seg.end)
        } else {
            next = envelopeChange(effect, from: seg)
        }
        next = Swift.min(next + startT, stopT)
        return next.isFinite ? next : nil
    }

    // MARK: - Envelope

    private struct Segment {
        var index: Int
        var on: Bool
        /// Relative to the effect start, in seconds.
        var start: Double
        var end: Double
    }

    private func phase(_ x: Double, _ period: Double) -> Double {
        let q = x - (x / period).rounded(.down) * period
        return q < 0 ? 0 : q
    }

    private func pwm(_ effect: HapticEffect) -> (period: Double, duty: Double)? {
        let s = effect.strength
        guard s < 1, carrierHz > 0 else { return nil }
        let period = 1 / carrierHz
        return (period, s * period)
    }

    /// The segment containing relative time `r` (≥ 0); zero-length segments are never returned.
    private func segment(_ effect: HapticEffect, at r: Double) -> Segment {
        let k = (r / cycle).rounded(.down)
        var start = k * cycle
        let n = effect.segmentCount
        for i in 0..<n {
            let d = effect.segmentSeconds(i)
            if d > 0, r < start + d { return Segment(index: i, on: i % 2 == 0, start: start, end: start + d) }
            start += d
        }
        // Rounding put r at the very end of the cycle: the next cycle's first real segment.
        var i = 0
        while effect.segmentSeconds(i) == 0 { i += 1 }
        return Segment(index: i, on: i % 2 == 0, start: start, end: start + effect.segmentSeconds(i))
    }

    /// Where the envelope next switches away from `seg`'s level (relative time), looking through
    /// merged segments; at most two passes of the cycle, after which the level never changes.
    private func envelopeChange(_ effect: HapticEffect, from seg: Segment) -> Double {
        let n = effect.segmentCount
        var i = seg.index, end = seg.end
        for _ in 0..<(2 * n + 1) {
            i = (i + 1) % n
            let d = effect.segmentSeconds(i)
            if d > 0, (i % 2 == 0) != seg.on { return end }
            end += d
        }
        return .infinity
    }
}

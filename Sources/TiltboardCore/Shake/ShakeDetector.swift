/// Detects shakes — a repeated back-and-forth — from accelerometer samples, the same way whatever
/// the chip.
///
/// Works on linear acceleration (measured acceleration minus gravity), so tilting the board does
/// not look like motion. It splits the signal into *half-cycles*: bursts of at least
/// `thresholdG` that last while the acceleration keeps pointing the burst's way (at least half the
/// threshold along it). A shake starts on the half-cycle that completes `minReversals` reversals in
/// a row — each half-cycle opposite to the one before, within 45° of the first one's axis, begun
/// 60 ms to 1 s after the previous one — provided the acceleration along that axis stayed above half
/// the threshold for `minFraction` of the time since the first began. A half-cycle pointing down
/// counts only beyond free fall (`freeFallG`). The rules and the recordings they were chosen on are
/// in `ShakeDetectorSettings`.
///
/// Prior art: Square's seismic `ShakeDetector` (github.com/square/seismic, Apache 2.0) fires when
/// at least 3/4 of the last 0.5 s of samples exceed 13 m/s² of total acceleration; it ignores
/// direction, so it needs a long, hard shake and still cannot tell a brisk single move from a shake.
///
/// Feed every sample in time order; `update` does no heap allocation.
public struct ShakeDetector: Sendable {
    /// The rules in force.
    public private(set) var settings: ShakeDetectorSettings

    /// True between a `.started` and the following `.ended` event.
    public private(set) var isShaking = false
    /// Peak linear acceleration, in g, of the current shake, or of the last one once it ended.
    public private(set) var lastPeakG = 0.0
    /// The detector's own gravity estimate in g (nil before the first sample, or while the
    /// caller supplies gravity).
    public private(set) var gravityEstimate: Vector3?
    /// Magnitude, in g, of the linear acceleration of the last sample: what each half-cycle's
    /// start is compared with `settings.thresholdG` (0 before the first sample).
    public private(set) var lastLinearG = 0.0

    private var lastT: Double?
    /// Since when | |a| − 1 g | has stayed under the gate.
    private var calmSince: Double?
    /// Since when the board has been at rest with the own estimate caught up (within `restG`).
    private var restSince: Double?
    /// The own gravity estimate has been right at least once: until then (started mid-motion, say
    /// mid-stride) it may be off by a fraction of a g, and which way is down is not known.
    private var gravityKnown = false
    /// How close, in g, the sample must be to the own estimate for the board to count as at rest.
    private static let restG = 0.05
    private var cooldownUntil = -Double.infinity

    // The half-cycle in progress.
    private var inHalfCycle = false
    private var halfCycleImpulse = Vector3.zero
    /// Unit direction of the current (or, between half-cycles, the last) half-cycle.
    private var halfCycleDirection = Vector3.zero

    // The run of alternating half-cycles collected so far.
    private var chainCount = 0
    private var chainStart = 0.0
    private var chainAxis = Vector3.zero
    private var chainPeak = 0.0
    private var lastHalfCycleStart = 0.0
    private var chainSamples = 0
    private var chainSwingSamples = 0

    // The shake in progress.
    private var shakeStart = 0.0
    private var lastLoudT = 0.0

    /// A detector that has seen no samples yet.
    public init(settings: ShakeDetectorSettings = .standard) {
        self.settings = settings
    }

    /// Feeds one sample: `t` in seconds, `accel` in g including gravity, and optionally the
    /// gravity reaction in g from a better estimator (e.g. gyro-aided fusion) — without it the
    /// detector keeps its own low-pass estimate. Returns an event when a shake starts or ends.
    public mutating func update(t: Double, accel: Vector3, gravity: Vector3? = nil) -> ShakeEvent? {
        // A sample stamped before the previous one moves no filter and sets no clock back.
        let dt = lastT.map { Swift.max(0, t - $0) } ?? 0
        lastT = Swift.max(lastT ?? t, t)

        let linear: Vector3
        let up: Vector3
        if let gravity {
            linear = accel - gravity
            up = gravity
        } else {
            let estimate = gravityEstimate ?? accel
            linear = accel - estimate
            up = estimate
            gravityEstimate = nextGravity(estimate, accel: accel, t: t, dt: dt)
        }
        let magnitude = linear.length
        lastLinearG = magnitude

        if isShaking {
            return continueShake(t: t, magnitude: magnitude)
        }
        if t < cooldownUntil || (gravity == nil && !gravityKnown) {
            inHalfCycle = false
            chainCount = 0
            return nil
        }
        let release = settings.thresholdG / 2
        if chainCount > 0 {
            chainSamples += 1
            if Swift.abs(linear.dot(chainAxis)) >= release { chainSwingSamples += 1 }
        }
        if inHalfCycle {
            if linear.dot(halfCycleDirection) >= release {
                halfCycleImpulse = halfCycleImpulse + linear * dt
                let length = halfCycleImpulse.length
                if length > 0 { halfCycleDirection = halfCycleImpulse * (1 / length) }
                if chainCount == 1 { chainAxis = halfCycleDirection }
                chainPeak = Swift.max(chainPeak, magnitude)
                return nil
            }
            inHalfCycle = false
        }
        if chainCount > 0, (t - lastHalfCycleStart) * 1000 > settings.maxHalfCycleMs {
            chainCount = 0
        }
        let needed = chainCount == 0 ? settings.thresholdG
                                     : Swift.max(settings.thresholdG, settings.minPeakRatio * chainPeak)
        guard magnitude >= needed, magnitude > 0 else { return nil }
        // Pointing (within 45° of) straight down: only counts beyond free fall. A body walking,
        // taking stairs or jumping — or a dropped board — falls no faster than gravity; a hand
        // shaking the board pushes it down faster.
        let upLength = up.length
        if upLength > 0 {
            let down = -linear.dot(up) / upLength
            if down >= 0.7 * magnitude, down < settings.freeFallG { return nil }
        }
        return halfCycleBegins(t: t, linear: linear, magnitude: magnitude)
    }

    /// Continues after a pause in sampling: the next sample does not move the gravity estimate
    /// (no step over the gap), the calm spell before the pause no longer counts, and half-cycles
    /// before the pause do not join ones after it.
    public mutating func resumeAfterGap() {
        lastT = nil
        calmSince = nil
        restSince = nil
        inHalfCycle = false
        chainCount = 0
    }

    /// Uses `settings` from the next sample on (a player chose another sensitivity). The gravity
    /// estimate and a shake in progress are kept; half-cycles collected under the old rules are
    /// dropped, so no shake is made of half old and half new ones.
    public mutating func use(_ settings: ShakeDetectorSettings) {
        self.settings = settings
        inHalfCycle = false
        chainCount = 0
    }

    /// Forgets everything, including the gravity estimate.
    public mutating func reset() {
        self = ShakeDetector(settings: settings)
    }

    private mutating func nextGravity(_ estimate: Vector3, accel: Vector3, t: Double, dt: Double) -> Vector3 {
        let deviation = Swift.abs(accel.length - 1)
        if deviation < settings.gravityGateG {
            if calmSince == nil { calmSince = t }
        } else {
            calmSince = nil
        }
        let settled = calmSince.map { (t - $0) * 1000 >= settings.gravitySettleMs } ?? false
        if deviation < settings.gravityGateG, (accel - estimate).length < Self.restG {
            if restSince == nil { restSince = t }
        } else {
            restSince = nil
        }
        if let restSince, (t - restSince) * 1000 >= settings.gravitySettleMs { gravityKnown = true }
        // Frozen during a half-cycle or a shake, to keep the shake out of it — unless at rest again.
        // Between half-cycles it may move (gated by | |a| − 1 g |): started mid-stride, a frozen
        // estimate would keep an offset that makes every footstep look like a swing.
        let moving = inHalfCycle || isShaking
        guard !moving || settled, dt > 0 else { return estimate }
        let weight = Swift.max(0, 1 - deviation / settings.gravityGateG)
        guard weight > 0 else { return estimate }
        let alpha = weight * dt / (settings.gravityTimeConstant + dt)
        return estimate + (accel - estimate) * alpha
    }

    /// A sample reaches the threshold outside a half-cycle: a new half-cycle begins.
    private mutating func halfCycleBegins(t: Double, linear: Vector3, magnitude: Double) -> ShakeEvent? {
        let direction = linear * (1 / magnitude)
        if chainCount > 0 {
            // Odd-numbered half-cycles point along the axis, even-numbered ones against it.
            let sign: Double = chainCount % 2 == 0 ? 1 : -1
            let reverses = direction.dot(halfCycleDirection) <= -0.5
                && sign * direction.dot(chainAxis) >= settings.minAxisCosine
            if !reverses || (t - lastHalfCycleStart) * 1000 < settings.minHalfCycleMs {
                chainCount = 0
            }
        }
        inHalfCycle = true
        halfCycleImpulse = .zero
        halfCycleDirection = direction
        lastHalfCycleStart = t
        if chainCount == 0 {
            chainStart = t
            chainAxis = direction
            chainPeak = magnitude
            chainSamples = 1
            chainSwingSamples = 1
        } else {
            chainPeak = Swift.max(chainPeak, magnitude)
        }
        chainCount += 1
        guard chainCount > settings.minReversals else { return nil }
        if Double(chainSwingSamples) >= settings.minFraction * Double(chainSamples) {
            return start(t: t)
        }
        // Too much of the run was quiet between spikes (footsteps): start over from this one.
        chainCount = 1
        chainStart = t
        chainAxis = direction
        chainPeak = magnitude
        chainSamples = 1
        chainSwingSamples = 1
        return nil
    }

    private mutating func start(t: Double) -> ShakeEvent {
        isShaking = true
        shakeStart = chainStart
        lastLoudT = t
        lastPeakG = chainPeak
        inHalfCycle = false
        chainCount = 0
        return ShakeEvent(phase: .started, t: t, peakG: lastPeakG, startT: chainStart)
    }

    private mutating func continueShake(t: Double, magnitude: Double) -> ShakeEvent? {
        lastPeakG = Swift.max(lastPeakG, magnitude)
        if magnitude >= settings.releaseG {
            lastLoudT = t
            return nil
        }
        guard (t - lastLoudT) * 1000 >= settings.endQuietMs else { return nil }
        isShaking = false
        cooldownUntil = t + settings.cooldownMs / 1000
        return ShakeEvent(phase: .ended, t: t, peakG: lastPeakG, startT: shakeStart)
    }
}

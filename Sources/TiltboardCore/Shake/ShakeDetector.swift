/// Detects shakes — a repeated back-and-forth — from accelerometer samples, the same way whatever
/// the chip.
///
/// Works on the acceleration with gravity and slow turns taken out by a high-pass
/// (`ShakeDetectorSettings.highPassMs`): a player who lifts and turns the board before shaking it
/// moves gravity by up to 90°, which a gravity estimate frozen during the motion would count as a
/// push. Where an estimator supplies gravity (a gyro), it is taken out first, turns and all. It splits that signal into *half-cycles*: bursts of at least `thresholdG` that last while
/// the acceleration keeps pointing the burst's way (`holdRatio` of the threshold along it). A burst
/// joins the run when, once its direction has formed, it points back the way the previous one came
/// and along the run's axis (within 45°), 60 ms to 1 s after it began. The run becomes a shake on
/// its `minReversals` + 1st half-cycle when that one came quickly (`quickHalfCycleMs`) and strong
/// (`quickPeakRatio`), else on the next — provided the hand kept accelerating along the axis (`minFraction`), and the motion
/// swung along a line (`maxSidewaysRatio`) rather than turning (`maxTurning`). A half-cycle pointing
/// down counts only beyond free fall (`freeFallG`). The rules and the recordings they were chosen
/// on are in `ShakeDetectorSettings`.
///
/// Prior art: Square's seismic `ShakeDetector` (github.com/square/seismic, Apache 2.0) fires when
/// at least 3/4 of the last 0.5 s of samples exceed 13 m/s² of total acceleration; it ignores
/// direction, so it needs a long, hard shake and still cannot tell a brisk single move from a shake.
///
/// Feed every sample in time order; `update` does no heap allocation, and tells `onNote`
/// (when set) why a run of half-cycles did or did not become a shake.
public struct ShakeDetector: Sendable {
    /// The rules in force.
    public private(set) var settings: ShakeDetectorSettings

    /// True between a `.started` and the following `.ended` event.
    public private(set) var isShaking = false
    /// Peak acceleration, in g, of the current shake, or of the last one once it ended.
    package private(set) var lastPeakG = 0.0
    /// Which way is up, in g: the gravity supplied with the last sample, or the detector's own
    /// low-pass estimate (nil before the first sample).
    package private(set) var gravityEstimate: Vector3?
    /// Magnitude, in g, of the high-passed acceleration of the last sample: what each half-cycle's
    /// start is compared with `settings.thresholdG` (0 before the first sample).
    package private(set) var lastLinearG = 0.0
    /// Called with each decision about a half-cycle or a run of them, for explaining a recording.
    /// Nil (the default) costs one comparison per decision and nothing per sample.
    package var onNote: (@Sendable (ShakeNote) -> Void)?

    private var lastT: Double?
    /// Low-pass of the acceleration: what the high-pass takes away.
    private var slow = Vector3.zero
    /// The detector's own gravity estimate (a slower low-pass).
    private var ownGravity = Vector3.zero
    private var previousLinear = Vector3.zero
    private var cooldownUntil = -Double.infinity

    // The burst in progress.
    private var inHalfCycle = false
    /// The burst has not yet been judged: it may join the run or start a new one.
    private var pending = false
    private var halfCycleStart = 0.0
    private var halfCycleImpulse = Vector3.zero
    /// Unit direction of the burst's impulse so far.
    private var halfCycleDirection = Vector3.zero
    private var halfCyclePeak = 0.0
    /// The burst joined the run as a fast shake's last half-cycle, but is not yet strong enough.
    private var waitingForStrength = false
    /// The strongest half-cycle of the run before the one in progress.
    private var earlierPeak = 0.0

    // The run of alternating half-cycles collected so far.
    private var count = 0
    private var runStart = 0.0
    /// Unit axis: the first half-cycle's direction, then the sum of the finished half-cycles'
    /// impulses, each turned to point the first one's way.
    private var axis = Vector3.zero
    private var axisSum = Vector3.zero
    /// Direction of the last half-cycle that joined the run.
    private var lastDirection = Vector3.zero
    private var lastStart = 0.0
    private var runPeak = 0.0
    private var samples = 0
    private var busySamples = 0
    /// Second moments of the acceleration since the run began (xx, yy, zz, xy, xz, yz).
    private var moments = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    /// Sum of a × Δa, and of |a|·|Δa|: how much of the change turned the acceleration.
    private var turn = Vector3.zero
    private var turnNorm = 0.0

    // The shake in progress.
    private var shakeStart = 0.0
    private var lastLoudT = 0.0

    /// A detector that has seen no samples yet.
    public init(settings: ShakeDetectorSettings = .standard) {
        self.settings = settings
    }

    /// Feeds one sample: `t` in seconds, `accel` in g including gravity, and optionally the
    /// gravity reaction in g from a better estimator (e.g. gyro-aided fusion), which then tells
    /// which way is down — without it the detector keeps its own low-pass estimate. Returns an
    /// event when a shake starts or ends.
    public mutating func update(t: Double, accel: Vector3, gravity: Vector3? = nil) -> ShakeEvent? {
        // With gravity supplied, what is left is the push of the hand, however the board turns;
        // the high-pass then only takes out the estimator's slow errors.
        let signal = gravity.map { accel - $0 } ?? accel
        // A sample stamped before the previous one moves no filter and sets no clock back.
        let dt: Double
        if let lastT {
            dt = Swift.max(0, t - lastT)
        } else {
            dt = 0
            slow = signal
            ownGravity = accel
        }
        lastT = Swift.max(lastT ?? t, t)
        slow = slow + (signal - slow) * (dt / (settings.highPassMs / 1000 + dt))
        ownGravity = ownGravity + (accel - ownGravity) * (dt / (settings.gravityMs / 1000 + dt))
        let up = gravity ?? ownGravity
        gravityEstimate = up

        let linear = signal - slow
        let magnitude = linear.length
        let change = linear - previousLinear
        previousLinear = linear
        lastLinearG = magnitude

        if isShaking {
            return continueShake(t: t, magnitude: magnitude)
        }
        if t < cooldownUntil {
            inHalfCycle = false
            pending = false
            waitingForStrength = false
            count = 0
            return nil
        }
        let half = settings.thresholdG / 2
        if count > 0 {
            samples += 1
            if Swift.abs(linear.dot(axis)) >= half { busySamples += 1 }
            moments.0 += linear.x * linear.x; moments.1 += linear.y * linear.y; moments.2 += linear.z * linear.z
            moments.3 += linear.x * linear.y; moments.4 += linear.x * linear.z; moments.5 += linear.y * linear.z
            turn = turn + linear.cross(change)
            turnNorm += magnitude * change.length
        }
        if inHalfCycle {
            if linear.dot(halfCycleDirection) >= settings.holdRatio * settings.thresholdG {
                halfCycleImpulse = halfCycleImpulse + linear * dt
                let length = halfCycleImpulse.length
                if length > 0 { halfCycleDirection = halfCycleImpulse * (1 / length) }
                halfCyclePeak = Swift.max(halfCyclePeak, magnitude)
                if pending { return judge(t: t) }
                runPeak = Swift.max(runPeak, magnitude)
                lastDirection = halfCycleDirection
                if count == 1 { axis = halfCycleDirection }
                if waitingForStrength, halfCyclePeak >= settings.quickPeakRatio * earlierPeak {
                    waitingForStrength = false
                    return decide(t: t)
                }
                return nil
            }
            inHalfCycle = false
            if waitingForStrength {
                waitingForStrength = false
                note(.held(halfCycles: count, t: t, reason: .weak(peakG: halfCyclePeak)))
            }
            if pending {
                // Its direction never pointed back along the run: it starts a run of its own.
                note(.runEnded(halfCycles: count, t: t, reason: .notReversed(cosine: halfCycleDirection.dot(lastDirection))))
                beginRun()
            } else if (t - halfCycleStart) * 1000 < settings.minStrokeMs {
                note(.runEnded(halfCycles: count, t: t, reason: .knock(ms: (t - halfCycleStart) * 1000)))
                count = 0
            } else {
                // Finished: its impulse, turned to point the first half-cycle's way, refines the axis.
                axisSum = axisSum + halfCycleImpulse * (count % 2 == 1 ? 1 : -1)
                let length = axisSum.length
                if length > 0 { axis = axisSum * (1 / length) }
            }
        }
        if count > 0, (t - lastStart) * 1000 > settings.maxHalfCycleMs {
            note(.runEnded(halfCycles: count, t: t, reason: .tooLate(gapMs: (t - lastStart) * 1000)))
            count = 0
        }
        let needed = count == 0 ? settings.thresholdG : Swift.max(settings.thresholdG, settings.minPeakRatio * runPeak)
        guard magnitude >= needed, magnitude > 0 else { return nil }
        // Pointing (within 45° of) straight down: only counts beyond free fall. A body walking,
        // taking stairs or jumping — or a dropped board — falls no faster than gravity; a hand
        // shaking the board pushes it down faster. The downward acceleration is measured against
        // the gravity estimate's own length, so a part's zero-g offset along it cancels.
        let upLength = up.length
        if upLength > 0, -linear.dot(up) / upLength >= 0.7 * magnitude {
            let downG = ownGravity.length - accel.dot(up) / upLength
            if downG < settings.freeFallG {
                note(.freeFall(t: t, downG: downG))
                return nil
            }
        }
        inHalfCycle = true
        halfCycleStart = t
        halfCycleDirection = linear * (1 / magnitude)
        halfCycleImpulse = linear * Swift.max(dt, 1e-3)
        halfCyclePeak = magnitude
        if count > 0 {
            let gapMs = (t - lastStart) * 1000
            if gapMs >= settings.minHalfCycleMs {
                pending = true
                return judge(t: t)
            }
            note(.runEnded(halfCycles: count, t: t, reason: .tooSoon(gapMs: gapMs)))
        }
        beginRun()
        return nil
    }

    /// Continues after a pause in sampling: the filters restart from the next sample (no step over
    /// the gap), and half-cycles before the pause do not join ones after it.
    public mutating func resumeAfterGap() {
        lastT = nil
        previousLinear = .zero
        inHalfCycle = false
        pending = false
        waitingForStrength = false
        count = 0
    }

    /// Uses `settings` from the next sample on (a player chose another sensitivity). The filters
    /// and a shake in progress are kept; half-cycles collected under the old rules are dropped, so
    /// no shake is made of half old and half new ones.
    public mutating func use(_ settings: ShakeDetectorSettings) {
        self.settings = settings
        inHalfCycle = false
        pending = false
        waitingForStrength = false
        count = 0
    }

    /// Forgets everything, including the filters.
    public mutating func reset() {
        let onNote = onNote
        self = ShakeDetector(settings: settings)
        self.onNote = onNote
    }

    private func note(_ note: @autoclosure () -> ShakeNote) {
        onNote?(note())
    }

    /// The burst in progress becomes the first half-cycle of a new run.
    private mutating func beginRun() {
        pending = false
        waitingForStrength = false
        count = 1
        runStart = halfCycleStart
        axis = halfCycleDirection
        axisSum = .zero
        lastDirection = halfCycleDirection
        lastStart = halfCycleStart
        runPeak = halfCyclePeak
        samples = 1
        busySamples = 1
        let d = halfCycleDirection * halfCyclePeak
        moments = (d.x * d.x, d.y * d.y, d.z * d.z, d.x * d.y, d.x * d.z, d.y * d.z)
        turn = .zero
        turnNorm = 0
        note(.halfCycle(number: 1, t: halfCycleStart, peakG: halfCyclePeak, direction: halfCycleDirection,
                        gapMs: nil, gravity: gravityEstimate ?? .zero))
    }

    /// A pending burst, as its direction forms: does it point back along the run?
    private mutating func judge(t: Double) -> ShakeEvent? {
        // Odd-numbered half-cycles point along the axis, even-numbered ones against it.
        let sign: Double = count % 2 == 0 ? 1 : -1
        guard halfCycleDirection.dot(lastDirection) <= -0.5,
              sign * halfCycleDirection.dot(axis) >= settings.minAxisCosine else { return nil }
        let gapMs = (halfCycleStart - lastStart) * 1000
        pending = false
        count += 1
        earlierPeak = runPeak
        runPeak = Swift.max(runPeak, halfCyclePeak)
        lastStart = halfCycleStart
        lastDirection = halfCycleDirection
        note(.halfCycle(number: count, t: halfCycleStart, peakG: halfCyclePeak, direction: halfCycleDirection,
                        gapMs: gapMs, gravity: gravityEstimate ?? .zero))

        let quick = count == settings.minReversals + 1 && gapMs <= settings.quickHalfCycleMs
        guard quick || count >= settings.minReversals + 2 else {
            if count == settings.minReversals + 1 { note(.held(halfCycles: count, t: t, reason: .slow(gapMs: gapMs))) }
            return nil
        }
        if quick, halfCyclePeak < settings.quickPeakRatio * earlierPeak {
            waitingForStrength = true
            return nil
        }
        return decide(t: t)
    }

    /// A run long enough for a shake: is it one?
    private mutating func decide(t: Double) -> ShakeEvent? {
        let along = alongAxis
        let sideways = along > 0 ? Swift.max(0, moments.0 + moments.1 + moments.2 - along) / along : .infinity
        guard sideways <= settings.maxSidewaysRatio else {
            note(.held(halfCycles: count, t: t, reason: .sideways(ratio: sideways)))
            return nil
        }
        let turning = turnNorm > 0 ? turn.length / turnNorm : 0
        guard turning <= settings.maxTurning else {
            note(.held(halfCycles: count, t: t, reason: .turning(share: turning)))
            return nil
        }
        let busy = Double(busySamples) / Double(samples)
        guard busy >= settings.minFraction else {
            // Too much of the run was quiet between spikes (footsteps): start over from this one.
            note(.runEnded(halfCycles: count, t: t, reason: .quiet(busy: busy)))
            beginRun()
            return nil
        }
        note(.taken(halfCycles: count, t: t, sideways: sideways, turning: turning, busy: busy))
        return start(t: t)
    }

    /// The second moment of the acceleration along the axis: axisᵀ·M·axis.
    private var alongAxis: Double {
        let a = axis
        return a.x * a.x * moments.0 + a.y * a.y * moments.1 + a.z * a.z * moments.2
            + 2 * (a.x * a.y * moments.3 + a.x * a.z * moments.4 + a.y * a.z * moments.5)
    }

    private mutating func start(t: Double) -> ShakeEvent {
        isShaking = true
        waitingForStrength = false
        shakeStart = runStart
        lastLoudT = t
        lastPeakG = runPeak
        inHalfCycle = false
        count = 0
        return ShakeEvent(phase: .started, t: t, peakG: lastPeakG, startT: runStart)
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

/// Why `ShakeDetector` did what it did with a burst of acceleration: what `shake --explain` prints.
package enum ShakeNote: Sendable, Equatable {
    /// A half-cycle joined the run (number 1 begins one): when it began, its strongest sample, its
    /// direction in the board frame, how long after the previous one it began, and which way was
    /// up (g) at the time.
    case halfCycle(number: Int, t: Double, peakG: Double, direction: Vector3, gapMs: Double?, gravity: Vector3)
    /// A run of half-cycles ended without a shake.
    case runEnded(halfCycles: Int, t: Double, reason: RunEnd)
    /// A run has as many half-cycles as a shake needs but is not taken (yet).
    case held(halfCycles: Int, t: Double, reason: Hold)
    /// A burst pointing down that fell no faster than free fall: not a stroke.
    case freeFall(t: Double, downG: Double)
    /// The run became a shake, with the figures it was taken on.
    case taken(halfCycles: Int, t: Double, sideways: Double, turning: Double, busy: Double)

    /// What ended a run.
    package enum RunEnd: Sendable, Equatable {
        /// The next burst, once its direction formed, did not point back along the run (the cosine
        /// between it and the last half-cycle); it begins a run of its own.
        case notReversed(cosine: Double)
        /// The next burst began sooner than `minHalfCycleMs` after the last: ringing, not a hand.
        case tooSoon(gapMs: Double)
        /// No burst followed within `maxHalfCycleMs`.
        case tooLate(gapMs: Double)
        /// A half-cycle lasted less than `minStrokeMs`: a knock, not a stroke.
        case knock(ms: Double)
        /// The hand accelerated along the axis for less than `minFraction` of the run.
        case quiet(busy: Double)
    }

    /// Why a long enough run is not a shake yet.
    package enum Hold: Sendable, Equatable {
        /// Its last half-cycle came later than `quickHalfCycleMs`: a slow shake needs one more.
        case slow(gapMs: Double)
        /// Its last half-cycle came quickly but ended weaker than `quickPeakRatio` of the
        /// strongest before it (a rebound): one more is needed.
        case weak(peakG: Double)
        /// Too much of the motion went across the axis (`maxSidewaysRatio`).
        case sideways(ratio: Double)
        /// The acceleration turned round instead of reversing (`maxTurning`).
        case turning(share: Double)
    }
}

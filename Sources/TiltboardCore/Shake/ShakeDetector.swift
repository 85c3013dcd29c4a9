/// Detects shakes from accelerometer samples, the same way whatever the chip.
///
/// Works on linear acceleration (measured acceleration minus gravity), so tilting the board does
/// not look like motion. The rules are in `ShakeDetectorSettings`. Feed every sample in time
/// order; `update` does no heap allocation.
public struct ShakeDetector: Sendable {
    /// The rules in force.
    public let settings: ShakeDetectorSettings

    /// True between a `.started` and the following `.ended` event.
    public private(set) var isShaking = false
    /// Peak linear acceleration, in g, of the current shake, or of the last one once it ended.
    public private(set) var lastPeakG = 0.0
    /// The detector's own gravity estimate in g (nil before the first sample, or while the
    /// caller supplies gravity).
    public private(set) var gravityEstimate: Vector3?

    private var lastT: Double?
    /// Since when | |a| − 1 g | has stayed under the gate.
    private var calmSince: Double?
    private var cooldownUntil = -Double.infinity

    // The run of active samples in progress.
    private var inLobe = false
    private var lobeCounted = false
    private var lobeStart = 0.0
    private var lobeSamples = 0
    private var lobePeak = 0.0
    private var lobeDirection = Vector3.zero

    // Reversing lobes collected so far.
    private var chainActive = false
    private var chainStart = 0.0
    private var chainReversals = 0
    private var chainDirection = Vector3.zero
    private var chainSamples = 0
    private var chainActiveSamples = 0
    private var chainPeak = 0.0

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
        if let gravity {
            linear = accel - gravity
        } else {
            let estimate = gravityEstimate ?? accel
            linear = accel - estimate
            gravityEstimate = nextGravity(estimate, accel: accel, t: t, dt: dt)
        }
        let magnitude = linear.length

        if isShaking {
            return continueShake(t: t, magnitude: magnitude)
        }
        if t < cooldownUntil {
            inLobe = false
            chainActive = false
            return nil
        }
        if magnitude >= settings.thresholdG {
            return activeSample(t: t, linear: linear, magnitude: magnitude)
        }
        inLobe = false
        if chainActive {
            chainSamples += 1
            if (t - chainStart) * 1000 > settings.windowMs { chainActive = false }
        }
        return nil
    }

    /// Continues after a pause in sampling: the next sample does not move the gravity estimate
    /// (no step over the gap) and the calm spell before the pause no longer counts.
    public mutating func resumeAfterGap() {
        lastT = nil
        calmSince = nil
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
        // Frozen while motion is under way, to keep the shake out of it — unless at rest again.
        guard (!inLobe && !isShaking) || settled, dt > 0 else { return estimate }
        let weight = Swift.max(0, 1 - deviation / settings.gravityGateG)
        guard weight > 0 else { return estimate }
        let alpha = weight * dt / (settings.gravityTimeConstant + dt)
        return estimate + (accel - estimate) * alpha
    }

    private mutating func activeSample(t: Double, linear: Vector3, magnitude: Double) -> ShakeEvent? {
        if !inLobe {
            inLobe = true
            lobeCounted = false
            lobeStart = t
            lobeSamples = 0
            lobePeak = 0
        }
        lobeSamples += 1
        if magnitude > lobePeak {
            lobePeak = magnitude
            lobeDirection = linear
        }
        if chainActive {
            chainSamples += 1
            chainActiveSamples += 1
            chainPeak = Swift.max(chainPeak, magnitude)
        }
        let lobeMs = (t - lobeStart) * 1000

        if lobeMs >= settings.minDurationMs {
            return start(t: t, startT: chainActive ? chainStart : lobeStart)
        }
        guard !lobeCounted, lobeMs >= settings.minLobeMs else { return nil }
        lobeCounted = true
        let withinWindow = chainActive && (t - chainStart) * 1000 <= settings.windowMs
        if withinWindow {
            if lobeDirection.dot(chainDirection) < 0 { chainReversals += 1 }
            chainDirection = lobeDirection
        } else {
            chainActive = true
            chainStart = lobeStart
            chainReversals = 0
            chainDirection = lobeDirection
            chainSamples = lobeSamples
            chainActiveSamples = lobeSamples
            chainPeak = lobePeak
        }
        let fraction = Double(chainActiveSamples) / Double(Swift.max(chainSamples, 1))
        if chainReversals >= settings.minReversals, fraction >= settings.minFraction {
            return start(t: t, startT: chainStart)
        }
        return nil
    }

    private mutating func start(t: Double, startT: Double) -> ShakeEvent {
        isShaking = true
        shakeStart = startT
        lastLoudT = t
        lastPeakG = Swift.max(lobePeak, chainActive ? chainPeak : 0)
        inLobe = false
        chainActive = false
        return ShakeEvent(phase: .started, t: t, peakG: lastPeakG, startT: startT)
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

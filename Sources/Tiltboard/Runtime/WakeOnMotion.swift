import TiltboardCore

/// When the loop stops sampling and sleeps on the sensor's interrupt pin, and how it wakes.
package struct WakeOnMotionSettings: Sendable, Equatable {
    /// Stillness this long (no shake, acceleration within `stillBandG` of its average) puts the loop to sleep.
    package var idleSeconds: Double
    /// How far a sample may stray from the average acceleration and still count as still, in g.
    package var stillBandG: Double
    /// The chip's motion threshold while asleep, in g (quantised to 32 mg on the MPU-6050,
    /// 20.2 mg on the MPU-6500 family and ICM-20689, 62.5 mg on the ADXL345; see
    /// `MotionInterruptRegisters.thresholdStepG`).
    package var thresholdG: Double

    package init(idleSeconds: Double = 2, stillBandG: Double = 0.05, thresholdG: Double = 0.1) {
        self.idleSeconds = idleSeconds; self.stillBandG = stillBandG; self.thresholdG = thresholdG
    }
}

/// What the loop did while waking on motion.
package struct WakeStatistics: Sendable, Equatable {
    /// Times the loop went to sleep on the interrupt pin.
    package var sleeps: UInt64 = 0
    /// Times motion on the pin woke it.
    package var wakeups: UInt64 = 0
    /// Seconds spent asleep in total (an ongoing sleep counts once it ends).
    package var idleSeconds: Double = 0

    package init() {}

    /// Loop ticks not run while asleep, at `rateHz`.
    package func ticksSkipped(rateHz: Double) -> UInt64 { UInt64((idleSeconds * rateHz).rounded()) }
}

/// A change of the loop's sleep state, reported on the loop thread (never per sample).
public enum WakeEvent: Sendable, Equatable {
    /// Asleep from `t` (seconds since the loop started).
    case sleeping(t: Double)
    /// Awake at `t` after `asleep`.
    case woke(t: Double, asleep: Duration)
}

/// Tells when the board has been still long enough to sleep: a slow average of the acceleration
/// stands in for gravity (offsets and scale errors included), and every sample must stay within
/// a band of it. Plain arithmetic per sample, nothing allocated.
struct IdleTracker {
    var settings: WakeOnMotionSettings
    /// Time constant of the average, seconds.
    static let averageSeconds = 0.5
    private var average: Vector3?
    private var lastT: Double?
    private var stillSince: Double?

    init(settings: WakeOnMotionSettings) { self.settings = settings }

    /// Folds in one board-frame sample; true once the board has been still for `idleSeconds`.
    @inline(__always)
    mutating func update(t: Double, accel: Vector3, shaking: Bool) -> Bool {
        let mean = average ?? accel
        let dt = lastT.map { Swift.max(0, t - $0) } ?? 0
        lastT = t
        average = mean + (accel - mean) * (dt / (Self.averageSeconds + dt))
        let still = !shaking && (accel - mean).length <= settings.stillBandG
        if !still {
            stillSince = nil
            return false
        }
        let since = stillSince ?? t
        stillSince = since
        return t - since >= settings.idleSeconds
    }

    /// After waking: stillness is counted afresh; the average is kept (same pose as before).
    mutating func restart() {
        lastT = nil
        stillSince = nil
    }
}

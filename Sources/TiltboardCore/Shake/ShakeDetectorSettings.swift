/// Tuning of `ShakeDetector`. All times are in milliseconds of sample time, so the same settings
/// behave alike at any sampling rate.
///
/// A sample is *active* when its linear acceleration (gravity removed) is at least `thresholdG`.
/// A *lobe* is a run of consecutive active samples. A shake starts when either
/// - one lobe lasts `minDurationMs` (a slow 2 Hz shake offers only its first lobe within 150 ms), or
/// - `minReversals` direction reversals between lobes of at least `minLobeMs` each happen within
///   `windowMs`, with at least `minFraction` of the samples since the first lobe active
///   (fast shakes: each lobe is short, but they alternate).
/// Taps and table impacts last ≤ 20 ms, so they never make a qualifying lobe; tilts and walking stay
/// well under the threshold once gravity is removed.
public struct ShakeDetectorSettings: Sendable, Equatable, Codable {
    /// Linear acceleration, in g, that makes a sample active.
    public var thresholdG: Double
    /// A single lobe lasting this long starts a shake.
    public var minDurationMs: Double
    /// Shortest lobe that counts towards a reversal.
    public var minLobeMs: Double
    /// Reversals (consecutive qualifying lobes pointing in opposite directions) that start a shake.
    public var minReversals: Int
    /// The reversing lobes must all fall within this span, first lobe start to now.
    public var windowMs: Double
    /// Share of samples since the first reversing lobe began that must be active (0…1).
    public var minFraction: Double
    /// Linear acceleration, in g, under which the signal counts as quiet for ending a shake.
    public var releaseG: Double
    /// A shake ends after the signal stays under `releaseG` this long.
    public var endQuietMs: Double
    /// No new shake starts until this long after one ended.
    public var cooldownMs: Double
    /// Time constant, in seconds, of the detector's own gravity estimate (used when no gravity is given).
    public var gravityTimeConstant: Double
    /// The own gravity estimate stops updating when | |a| − 1 g | reaches this, so a shake does
    /// not leak into it; it updates proportionally slower on the way there.
    public var gravityGateG: Double
    /// While motion is under way the own estimate is frozen, unless |a| has stayed within
    /// `gravityGateG` of 1 g this long: then the board is at rest in a new pose (e.g. flipped
    /// quickly) and the estimate must follow, or the detector would never see the motion end.
    public var gravitySettleMs: Double

    public init(thresholdG: Double = 0.8, minDurationMs: Double = 45, minLobeMs: Double = 25,
                minReversals: Int = 1, windowMs: Double = 250, minFraction: Double = 0.5,
                releaseG: Double = 0.5, endQuietMs: Double = 250, cooldownMs: Double = 500,
                gravityTimeConstant: Double = 0.25, gravityGateG: Double = 0.15, gravitySettleMs: Double = 200) {
        self.thresholdG = thresholdG; self.minDurationMs = minDurationMs; self.minLobeMs = minLobeMs
        self.minReversals = minReversals; self.windowMs = windowMs; self.minFraction = minFraction
        self.releaseG = releaseG; self.endQuietMs = endQuietMs; self.cooldownMs = cooldownMs
        self.gravityTimeConstant = gravityTimeConstant; self.gravityGateG = gravityGateG
        self.gravitySettleMs = gravitySettleMs
    }

    /// The defaults: fire within 150 ms on a 2–6 Hz shake of ≥ 1.5 g, ignore taps, tilts,
    /// putting the board down and walking.
    public static let standard = ShakeDetectorSettings()
}

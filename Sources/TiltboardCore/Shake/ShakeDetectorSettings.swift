/// Tuning of `ShakeDetector`. All times are in milliseconds of sample time, so the same settings
/// behave alike at any sampling rate.
///
/// A shake is a repeated back-and-forth: at least `minReversals` + 1 *half-cycles* in a row, each a
/// burst of linear acceleration (gravity removed) of at least `thresholdG` pointing the opposite way
/// to the one before, all along one axis. A single brisk move — accelerate, then brake: two opposite
/// half-cycles — is not a shake, nor is a push, a pick-up or a circle (its acceleration turns
/// instead of reversing). Walking and stairs make short heel-strike spikes at the waist rather
/// than a sustained swing, which `minFraction` rejects.
///
/// Chosen on recorded motion: BROAD (Laidig et al., *Data* 6(7):72, 2021, CC BY 4.0) fast
/// translation — back-and-forth by hand at 1–2 Hz and 1–4 g — and UCI HAPT (Reyes-Ortiz et al.,
/// *Neurocomputing* 171, 2016, CC BY 4.0) walking, stairs and posture changes of a waist-worn phone,
/// where these defaults make no shake at 50 or 100 Hz — nor with the footsteps made 50 % harder
/// (free fall still bounding the downward part); without the free-fall rule a threshold of 0.7 g
/// made 5 an hour going downstairs, and 15 % harder footsteps as many at 0.8 g.
public struct ShakeDetectorSettings: Sendable, Equatable, Codable {
    /// Linear acceleration, in g, that every half-cycle must reach.
    public var thresholdG: Double
    /// Direction reversals between consecutive half-cycles that make a shake: 2 means three
    /// half-cycles (there, back, there again). 1 would count a single brisk move.
    public var minReversals: Int
    /// Share (0…1) of the samples since the first half-cycle began whose acceleration along the
    /// shake's axis is at least half of `thresholdG`. A swing keeps the hand accelerating most of the
    /// time (a sine is above half its peak two thirds of the time); footsteps are brief spikes.
    public var minFraction: Double
    /// No new shake starts until this long after one ended.
    public var cooldownMs: Double

    /// Each half-cycle must begin at least this long after the previous one (a 6 Hz shake's are 83 ms
    /// apart): faster reversals are ringing after a knock, not a hand.
    public var minHalfCycleMs: Double
    /// …and at most this long after it (hand-held back-and-forth on BROAD reaches 750 ms at 0.7 Hz).
    public var maxHalfCycleMs: Double
    /// Every half-cycle must point within acos(`minAxisCosine`) of the first one's axis (0.7: 45°).
    public var minAxisCosine: Double
    /// Each half-cycle after the first must also reach this share of the strongest one so far,
    /// so the small rebound after a hard single move does not count as a third half-cycle.
    public var minPeakRatio: Double
    /// A half-cycle pointing within 45° of straight down counts only once its downward part
    /// exceeds this, in g. A body walking, taking stairs or jumping, or a dropped board, falls no
    /// faster than gravity (1 g of linear acceleration downwards at most); a hand shaking the board
    /// pushes it down faster. This is what keeps footsteps out: every other half-cycle of a vertical
    /// chain points down. The price: a vertical shake must exceed free fall on its down strokes
    /// (about 1.1 g of amplitude); horizontal and tilted ones count from `thresholdG`.
    public var freeFallG: Double
    /// Linear acceleration, in g, under which the signal counts as quiet for ending a shake.
    public var releaseG: Double
    /// A shake ends after the signal stays under `releaseG` this long.
    public var endQuietMs: Double
    /// Time constant, in seconds, of the detector's own gravity estimate (used when no gravity is
    /// given). That estimate starts from the first sample; no shake is looked for until the board
    /// has been at rest for `gravitySettleMs` once with the estimate caught up (within 0.05 g).
    public var gravityTimeConstant: Double
    /// The own gravity estimate stops updating when | |a| − 1 g | reaches this, so a shake does
    /// not leak into it; it updates proportionally slower on the way there.
    public var gravityGateG: Double
    /// While motion is under way the own estimate is frozen, unless |a| has stayed within
    /// `gravityGateG` of 1 g this long: then the board is at rest in a new pose (e.g. flipped
    /// quickly) and the estimate must follow, or the detector would never see the motion end.
    public var gravitySettleMs: Double

    public init(thresholdG: Double = 0.8, minReversals: Int = 2, minFraction: Double = 0.6, cooldownMs: Double = 500,
                minHalfCycleMs: Double = 60, maxHalfCycleMs: Double = 1000, minAxisCosine: Double = 0.7,
                minPeakRatio: Double = 0.4, freeFallG: Double = 1.05, releaseG: Double = 0.5, endQuietMs: Double = 500,
                gravityTimeConstant: Double = 0.25, gravityGateG: Double = 0.15, gravitySettleMs: Double = 200) {
        self.thresholdG = thresholdG; self.minReversals = minReversals; self.minFraction = minFraction
        self.cooldownMs = cooldownMs; self.minHalfCycleMs = minHalfCycleMs; self.maxHalfCycleMs = maxHalfCycleMs
        self.minAxisCosine = minAxisCosine; self.minPeakRatio = minPeakRatio; self.freeFallG = freeFallG
        self.releaseG = releaseG; self.endQuietMs = endQuietMs
        self.gravityTimeConstant = gravityTimeConstant; self.gravityGateG = gravityGateG
        self.gravitySettleMs = gravitySettleMs
    }

    /// The defaults: a 2–6 Hz back-and-forth of 1 g or more (1.1 g if vertical) starts a shake on
    /// its third half-cycle (about 0.27 s after it starts at 4 Hz, 0.33–0.39 s at 3 Hz); single
    /// moves, taps, tilts, putting the board down, walking and stairs do not.
    public static let standard = ShakeDetectorSettings()
}

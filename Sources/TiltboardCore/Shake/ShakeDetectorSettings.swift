/// Tuning of `ShakeDetector`. Every span is in milliseconds of sample time, so the same settings
/// behave alike at any sampling rate.
///
/// A shake is a repeated back-and-forth: *half-cycles* in a row, each a burst of acceleration of at
/// least `thresholdG` pointing back the way the one before came, all along one axis. A fast shake
/// is taken on its `minReversals` + 1st half-cycle (three, by default) when that one follows the
/// previous within `quickHalfCycleMs`; a slower one waits for one more. A single brisk move —
/// accelerate, brake, often a small rebound — is not a shake, nor is a push, a pick-up or a circle
/// (its acceleration turns instead of reversing). Walking and stairs make short heel-strike spikes
/// rather than a sustained swing, which `minFraction` and the free-fall rule reject.
///
/// Chosen on recorded motion:
/// - UCR "AllGestureWiimote" (Dau et al., "The UCR Time Series Archive", IEEE/CAA J. Autom. Sinica
///   6(6), 2019; recordings by Guna, Humar and Pogačnik, TSP 2012): 1,000 hand gestures by ten
///   people — shakes at 2.5–4.5 Hz with 2–4 g peaks, often after lifting and turning the controller
///   up to 90°; single moves that accelerate, brake and rebound (three lobes are common, four
///   occur); circles; pushes that end in a sharp stop.
/// - BROAD (Laidig et al., *Data* 6(7):72, 2021, CC BY 4.0) fast translation: back-and-forth by
///   hand at 1–2 Hz and 1–4 g, which must still count.
/// - UCI HAPT (Reyes-Ortiz et al., *Neurocomputing* 171, 2016, CC BY 4.0): walking, stairs and
///   posture changes of a waist-worn phone, where these defaults make no shake at 50 or 100 Hz,
///   for an ideal part and for parts with the ADXL345's largest zero-g offsets.
public struct ShakeDetectorSettings: Sendable, Equatable, Codable {
    /// Acceleration, in g, that every half-cycle must reach (gravity and slow turns removed).
    public var thresholdG: Double
    /// Direction reversals that make a fast shake: 2 means three half-cycles (there, back, there
    /// again), each following the one before within `quickHalfCycleMs`; a slower shake needs one
    /// reversal more. 1 would count a single brisk move.
    public var minReversals: Int
    /// Share (0…1) of the samples since the first half-cycle began whose acceleration along the
    /// shake's axis is at least half of `thresholdG`. A swing keeps the hand accelerating most of the
    /// time (a sine is above half its peak two thirds of the time); footsteps are brief spikes.
    public var minFraction: Double
    /// No new shake starts until this long after one ended.
    package var cooldownMs: Double
    /// No new shake starts until this long after one ended.
    public var cooldown: Duration {
        get { .rounded(milliseconds: cooldownMs) }
        set { cooldownMs = newValue.inMilliseconds }
    }

    /// Each half-cycle must begin at least this long after the previous one (a 6 Hz shake's are 83 ms
    /// apart): faster reversals are ringing after a knock, not a hand.
    package var minHalfCycleMs: Double
    /// The shortest time from one half-cycle's start to the next's (`minHalfCycleMs`).
    public var minHalfCycle: Duration {
        get { .rounded(milliseconds: minHalfCycleMs) }
        set { minHalfCycleMs = newValue.inMilliseconds }
    }
    /// …and at most this long after it (hand-held back-and-forth on BROAD reaches 750 ms at 0.7 Hz).
    package var maxHalfCycleMs: Double
    /// The longest time from one half-cycle's start to the next's (`maxHalfCycleMs`).
    public var maxHalfCycle: Duration {
        get { .rounded(milliseconds: maxHalfCycleMs) }
        set { maxHalfCycleMs = newValue.inMilliseconds }
    }
    /// A half-cycle that lasts less than this is a knock, not a stroke, and ends the run: a tap's
    /// spike is 15–33 ms wide at half height on BROAD's tapping trial, a stroke of a 6 Hz shake
    /// lasts over 60 ms above the hold level.
    package var minStrokeMs: Double
    /// A half-cycle shorter than this is a knock and ends the run (`minStrokeMs`).
    public var minStroke: Duration {
        get { .rounded(milliseconds: minStrokeMs) }
        set { minStrokeMs = newValue.inMilliseconds }
    }
    /// A shake is taken on its `minReversals` + 1st half-cycle when that one began at most this
    /// long after the previous one (a shake faster than 2.5 Hz); otherwise on the next. On the
    /// Wiimote gestures the third lobe of a single move, circle or push follows the second 190–410 ms
    /// later (p10–p90, median 260 ms), the third half-cycle of a shake 120–280 ms later (median 180 ms).
    package var quickHalfCycleMs: Double
    /// The gap under which a shake is taken on its `minReversals` + 1st half-cycle (`quickHalfCycleMs`).
    public var quickHalfCycle: Duration {
        get { .rounded(milliseconds: quickHalfCycleMs) }
        set { quickHalfCycleMs = newValue.inMilliseconds }
    }
    /// …and once that half-cycle has reached this share of the strongest one before it: the
    /// rebound after a push's sharp stop is weaker (0.31 × the stop, median, on the Wiimote
    /// recordings' pushes that rebound), while a shake keeps its strength.
    public var quickPeakRatio: Double
    /// A half-cycle lasts while the acceleration along it stays at least this share of `thresholdG`,
    /// so a brief dip inside one stroke does not split it in two (which would look like a burst
    /// that fails to reverse, and end the run).
    public var holdRatio: Double
    /// Every half-cycle must point within acos(`minAxisCosine`) of the shake's axis (0.7: 45°).
    public var minAxisCosine: Double
    /// Each half-cycle after the first must also start at this share of the strongest one so far,
    /// so the small rebound after a hard single move does not count as another half-cycle.
    public var minPeakRatio: Double
    /// Largest ratio of the acceleration's energy across the shake's axis to its energy along it,
    /// since the first half-cycle began. A shake swings along a line; a circle or a figure does not.
    public var maxSidewaysRatio: Double
    /// Largest share (0…1) of the acceleration's change that turns it one way round rather than
    /// lengthening or shortening it, since the first half-cycle began: 0 for a straight swing, 1 for
    /// an acceleration turning at constant length, as in a circle drawn in the air.
    public var maxTurning: Double
    /// A half-cycle pointing within 45° of straight down counts only once its downward part
    /// exceeds this, in g. A body walking, taking stairs or jumping, or a dropped board, falls no
    /// faster than gravity (1 g of linear acceleration downwards at most); a hand shaking the board
    /// pushes it down faster. This is what keeps footsteps out: every other half-cycle of a vertical
    /// chain points down. The price: a vertical shake must exceed free fall on its down strokes
    /// (about 1.1 g of amplitude); horizontal and tilted ones count from `thresholdG`.
    public var freeFallG: Double
    /// Acceleration, in g, under which the signal counts as quiet for ending a shake.
    public var releaseG: Double
    /// A shake ends after the signal stays under `releaseG` this long.
    package var endQuietMs: Double
    /// A shake ends after the signal stays under `releaseG` this long.
    public var endQuiet: Duration {
        get { .rounded(milliseconds: endQuietMs) }
        set { endQuietMs = newValue.inMilliseconds }
    }
    /// Time constant of the high-pass that takes gravity — and the slow turns of a board being
    /// lifted or tilted — out of the acceleration the half-cycles are found in. 200 ms passes a
    /// 2 Hz swing at 93 % and turns a 90° turn in half a second into at most 0.6 g.
    package var highPassMs: Double
    /// Time constant of the high-pass that takes gravity and slow turns out (`highPassMs`).
    public var highPass: Duration {
        get { .rounded(milliseconds: highPassMs) }
        set { highPassMs = newValue.inMilliseconds }
    }
    /// Time constant of the detector's own gravity estimate (where no estimator supplies one),
    /// which tells which way is down for the free-fall rule.
    package var gravityMs: Double
    /// Time constant of the detector's own gravity estimate (`gravityMs`).
    public var gravityTimeConstant: Duration {
        get { .rounded(milliseconds: gravityMs) }
        set { gravityMs = newValue.inMilliseconds }
    }

    /// Settings with the detector's defaults for what is not given.
    public init(thresholdG: Double = 0.8, minReversals: Int = 2, minFraction: Double = 0.6, cooldown: Duration = .milliseconds(500),
                minHalfCycle: Duration = .milliseconds(60), maxHalfCycle: Duration = .milliseconds(1000),
                minStroke: Duration = .milliseconds(30), quickHalfCycle: Duration = .milliseconds(200),
                quickPeakRatio: Double = 0.5, holdRatio: Double = 0.3, minAxisCosine: Double = 0.7, minPeakRatio: Double = 0.4, maxSidewaysRatio: Double = 0.3,
                maxTurning: Double = 0.55, freeFallG: Double = 1.05, releaseG: Double = 0.5, endQuiet: Duration = .milliseconds(500),
                highPass: Duration = .milliseconds(200), gravityTimeConstant: Duration = .milliseconds(500)) {
        self.thresholdG = thresholdG; self.minReversals = minReversals; self.minFraction = minFraction
        self.cooldownMs = cooldown.inMilliseconds; self.minHalfCycleMs = minHalfCycle.inMilliseconds
        self.maxHalfCycleMs = maxHalfCycle.inMilliseconds
        self.minStrokeMs = minStroke.inMilliseconds; self.quickHalfCycleMs = quickHalfCycle.inMilliseconds; self.quickPeakRatio = quickPeakRatio; self.holdRatio = holdRatio; self.minAxisCosine = minAxisCosine; self.minPeakRatio = minPeakRatio
        self.maxSidewaysRatio = maxSidewaysRatio; self.maxTurning = maxTurning; self.freeFallG = freeFallG
        self.releaseG = releaseG; self.endQuietMs = endQuiet.inMilliseconds; self.highPassMs = highPass.inMilliseconds
        self.gravityMs = gravityTimeConstant.inMilliseconds
    }

    /// The defaults: a back-and-forth of 0.8 g or more (1.1 g if vertical) starts a shake on its
    /// third half-cycle when faster than 2.5 Hz (about 0.3 s after it starts at 3–4 Hz), on its
    /// fourth when slower; single moves, circles, pushes, taps, tilts, putting the board down,
    /// walking and stairs do not.
    public static let standard = ShakeDetectorSettings()
}

import TiltboardCore
/// How long the motor may run before it must rest: the board file's `motor.maxOnMs` and
/// `motor.minRestMs`.
///
/// These are a safety policy, not a part's rating: coin ERM motors are sold for intermittent
/// duty, and the cap is what keeps a stuck request (a shake that never ends, a game re-sending
/// rumble, a script) from heating the motor or draining a battery.
public struct MotorCapSettings: Sendable, Equatable {
    /// Most on-time a stretch may hold, in seconds; PWM counts by its duty (50 % strength, half).
    package var maxOnSeconds: Double
    /// Off-time that ends a stretch, in seconds; shorter gaps do not reset the count.
    package var minRestSeconds: Double

    /// Most on-time a stretch may hold; PWM counts by its duty (50 % strength, half).
    public var maxOn: Duration {
        get { .rounded(seconds: maxOnSeconds) }
        set { maxOnSeconds = newValue.inSeconds }
    }
    /// Off-time that ends a stretch; shorter gaps do not reset the count.
    public var minRest: Duration {
        get { .rounded(seconds: minRestSeconds) }
        set { minRestSeconds = newValue.inSeconds }
    }

    /// The allowed range of both values, in seconds: below 50 ms no effect could play, above a
    /// minute the cap would no longer protect anything.
    package static let allowedSeconds = 0.05...60.0

    /// 2 s on, 0.5 s rest: the board file's defaults. Both within 50 ms…60 s.
    public init(maxOn: Duration = .seconds(2), minRest: Duration = .milliseconds(500)) {
        self.init(maxOnSeconds: maxOn.inSeconds, minRestSeconds: minRest.inSeconds)
    }

    /// The cap from spans in seconds (the board file's units).
    package init(maxOnSeconds: Double, minRestSeconds: Double = 0.5) {
        self.maxOnSeconds = maxOnSeconds
        self.minRestSeconds = minRestSeconds
    }
}

/// The cap's bookkeeping, in clock nanoseconds: the on-time of the current stretch, and the rest
/// it imposes once the stretch is full.
///
/// A stretch is the on-time between rests: it ends only when the line has been off for
/// `minRestSeconds`. When a stretch holds `maxOnSeconds` and the motor is (still) asked to run,
/// the cap trips: the line goes (or stays) off until the rest is over, whatever is asked
/// meanwhile; then a new stretch starts.
struct MotorCap: Sendable {
    let maxOn: UInt64
    let minRest: UInt64
    /// On-time of the stretch before `onSince`.
    private var stretchOn: UInt64 = 0
    /// When the line went on; nil while it is off.
    private var onSince: UInt64?
    /// When the line last went off; nil before it was ever on.
    private var offSince: UInt64?
    /// The end of the rest a trip imposed.
    private var restUntil: UInt64?
    /// How many times the cap has overruled a request for the motor.
    private(set) var trips = 0

    /// Pattern and PWM edges are rounded to the nanosecond: a stretch this close to full is full,
    /// so a rounding error never buys a nanosecond-long pulse.
    static let tolerance: UInt64 = 1_000

    init(_ settings: MotorCapSettings) {
        maxOn = Nanoseconds.span(seconds: settings.maxOnSeconds, rounded: .toNearestOrAwayFromZero)
        minRest = Nanoseconds.span(seconds: settings.minRestSeconds, rounded: .toNearestOrAwayFromZero)
    }

    /// Whether the line may be on at `now` when `wanted` asks for it; trips the cap when the
    /// stretch is full and the motor is still wanted.
    mutating func admit(_ wanted: Bool, at now: UInt64) -> Bool {
        if let until = restUntil {
            if now < until { return false }
            restUntil = nil
        }
        guard wanted else { return false }
        guard stretchOnTime(at: now) + Self.tolerance >= maxOn else { return true }
        trips += 1
        // The rest runs from the moment the line goes (or went) off.
        restUntil = (onSince != nil ? now : offSince ?? now) &+ minRest
        return false
    }

    /// Records a level the line has taken.
    mutating func lineSet(_ on: Bool, at now: UInt64) {
        if on {
            guard onSince == nil else { return }
            if !inStretch(at: now) { stretchOn = 0 }
            onSince = now
        } else if let since = onSince {
            stretchOn &+= now &- since
            onSince = nil
            offSince = now
        }
    }

    /// When the cap next acts by itself: the moment the running stretch fills up, or the end of
    /// a rest; nil when it has nothing to do.
    var nextChange: UInt64? {
        if let since = onSince { return since &+ (maxOn > stretchOn ? maxOn - stretchOn : 0) }
        return restUntil
    }

    /// The stretch's on-time so far, counting a running pulse up to `now`.
    private func stretchOnTime(at now: UInt64) -> UInt64 {
        if let since = onSince { return stretchOn &+ (now &- since) }
        return inStretch(at: now) ? stretchOn : 0
    }

    /// False once the line has been off for a full rest (or was never on).
    private func inStretch(at now: UInt64) -> Bool {
        guard let off = offSince else { return false }
        return now &- off < minRest
    }
}

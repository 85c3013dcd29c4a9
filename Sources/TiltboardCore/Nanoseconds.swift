/// The one place where clock time and seconds meet.
///
/// An instant is `UInt64` nanoseconds on a `MonotonicClock` (from an arbitrary fixed origin); a
/// span between two instants is `UInt64` nanoseconds, or Swift's `Duration` at an API edge.
/// Seconds as `Double` are for people (options, printed figures, settings) and for physics
/// (sample times, an estimator's dt): every conversion between the two goes through here.
public enum Nanoseconds {
    /// Nanoseconds in one second.
    public static let perSecond: UInt64 = 1_000_000_000

    /// Seconds in a span of `ns` nanoseconds.
    @inlinable public static func seconds(_ ns: UInt64) -> Double { Double(ns) / 1e9 }

    /// Seconds from instant `start` to instant `end` (wrapping, like all clock arithmetic here).
    @inlinable public static func seconds(from start: UInt64, to end: UInt64) -> Double { Double(end &- start) / 1e9 }

    /// Nanoseconds in `seconds`, rounded by `rule` (toward zero unless told); negative and NaN give 0.
    @inlinable public static func span(seconds: Double, rounded rule: FloatingPointRoundingRule = .towardZero) -> UInt64 {
        let ns = (seconds * 1e9).rounded(rule)
        guard ns > 0 else { return 0 }
        return ns < 18_446_744_073_709_551_615.0 ? UInt64(ns) : .max
    }

    /// Seconds in a span of `ns` nanoseconds, not rounded to whole nanoseconds.
    @inlinable public static func seconds(_ ns: Double) -> Double { ns / 1e9 }

    /// `count` periods of `hz`, in nanoseconds (not rounded).
    @inlinable public static func periods(_ count: Double, hz: Double) -> Double { count * 1e9 / hz }

    /// The period of `hz`, in nanoseconds (not rounded).
    @inlinable public static func period(hz: Double) -> Double { 1e9 / hz }

    /// The rate, in Hz, of a period of `ns` nanoseconds.
    @inlinable public static func rateHz(period ns: UInt64) -> Double { 1e9 / Double(ns) }

    /// Nanoseconds in `duration`; negative gives 0.
    @inlinable public static func span(_ duration: Duration) -> UInt64 {
        let (s, atto) = duration.components
        guard s >= 0 else { return 0 }
        let whole = UInt64(s).multipliedReportingOverflow(by: perSecond)
        guard !whole.overflow else { return .max }
        return whole.partialValue &+ UInt64(Swift.max(0, atto) / 1_000_000_000)
    }

    /// Seconds in `duration` (whole nanoseconds; negative gives 0).
    @inlinable public static func seconds(_ duration: Duration) -> Double { seconds(span(duration)) }

    /// `ns` nanoseconds as a `Duration`.
    @inlinable public static func duration(_ ns: UInt64) -> Duration { .nanoseconds(Int64(clamping: ns)) }

    /// `seconds` as a `Duration` of whole nanoseconds (truncated; negative and NaN give zero).
    @inlinable public static func duration(seconds: Double) -> Duration { duration(span(seconds: seconds)) }

    /// Whole seconds and the nanoseconds left over (a `timespec`'s two fields).
    @inlinable public static func split(_ ns: UInt64) -> (seconds: UInt64, nanoseconds: UInt64) {
        (ns / perSecond, ns % perSecond)
    }
}

/// A log-linear histogram of nanosecond durations: 32 linear buckets per power of two, so any
/// value is kept to within about 3 %; values under 32 ns are exact.
///
/// The storage is allocated once in `init`; `record` never allocates, as long as the histogram
/// is not copied while recording (keep it in one place, e.g. behind a `Mutex`).
package struct LatencyHistogram: Sendable {
    @usableFromInline static let subBits = 5
    @usableFromInline static let sub = 1 << subBits
    /// 32 exact buckets, then 32 per octave from 2⁵ to 2⁶³.
    @usableFromInline static let bucketCount = sub + (64 - subBits) * sub

    @usableFromInline var buckets: [UInt64]
    /// Number of values recorded.
    package private(set) var count: UInt64 = 0
    /// Largest value recorded (0 when empty).
    package private(set) var max: UInt64 = 0
    /// Smallest value recorded (0 when empty).
    package private(set) var min: UInt64 = 0
    /// Sum of all values, saturating.
    package private(set) var sum: UInt64 = 0

    /// An empty histogram, its storage allocated now.
    package init() {
        buckets = [UInt64](repeating: 0, count: Self.bucketCount)
    }

    @inlinable static func index(of value: UInt64) -> Int {
        if value < UInt64(sub) { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount
        let shift = exponent - subBits
        let mantissa = Int(value >> UInt64(shift)) - sub
        return sub + shift * sub + mantissa
    }

    /// Largest value that falls in bucket `index`.
    static func upperBound(of index: Int) -> UInt64 {
        if index < sub { return UInt64(index) }
        let shift = (index - sub) / sub
        let mantissa = UInt64((index - sub) % sub + sub)
        let width = UInt64(1) << UInt64(shift)
        return (mantissa << UInt64(shift)) &+ (width - 1)
    }

    /// Adds one value.
    package mutating func record(_ value: UInt64) {
        buckets[Self.index(of: value)] &+= 1
        if count == 0 || value < min { min = value }
        if value > max { max = value }
        let (s, overflow) = sum.addingReportingOverflow(value)
        sum = overflow ? .max : s
        count += 1
    }

    /// The value under which a share `p` (0…1) of the recorded values fall, rounded up to its
    /// bucket's upper edge and clamped to the recorded range; 0 when empty.
    package func percentile(_ p: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, UInt64((p * Double(count)).rounded(.up)))
        // Indexing, not iterators: a live snapshot taken every tick must not allocate either.
        return buckets.withUnsafeBufferPointer { b in
            var seen: UInt64 = 0
            var i = 0
            while i < b.count {
                seen += b[i]
                if seen >= rank { return Swift.min(Swift.max(Self.upperBound(of: i), min), max) }
                i += 1
            }
            return max
        }
    }

    /// Mean value, 0 when empty.
    package var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }

    /// Forgets every value, keeping the storage.
    package mutating func reset() {
        buckets.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        count = 0; max = 0; min = 0; sum = 0
    }
}

/// A snapshot of a fixed-rate loop's health: ticks run, deadlines missed, and how late the
/// loop woke up (wake time − deadline).
public struct LoopStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Ticks run.
    public var ticks: UInt64
    /// Deadlines skipped because a tick overran.
    public var missedTicks: UInt64
    /// Ticks whose work ran past one or more following deadlines.
    public var overruns: UInt64
    /// Wake-up lateness at the median, in nanoseconds.
    package var latenessP50Nanoseconds: UInt64
    /// Wake-up lateness at the 99th percentile, in nanoseconds.
    package var latenessP99Nanoseconds: UInt64
    /// The largest wake-up lateness, in nanoseconds.
    package var latenessMaxNanoseconds: UInt64
    /// The mean wake-up lateness, in nanoseconds.
    package var latenessMeanNanoseconds: Double

    /// How late the loop woke for its deadlines: the median.
    public var latenessP50: Duration { .nanoseconds(Int64(clamping: latenessP50Nanoseconds)) }
    /// How late the loop woke for its deadlines: the 99th percentile.
    public var latenessP99: Duration { .nanoseconds(Int64(clamping: latenessP99Nanoseconds)) }
    /// How late the loop woke for its deadlines: the largest.
    public var latenessMax: Duration { .nanoseconds(Int64(clamping: latenessMaxNanoseconds)) }
    /// How late the loop woke for its deadlines: the mean.
    public var latenessMean: Duration { .rounded(seconds: latenessMeanNanoseconds / 1e9) }

    /// Statistics from their figures (all zero by default).
    package init(ticks: UInt64 = 0, missedTicks: UInt64 = 0, overruns: UInt64 = 0, latenessP50Nanoseconds: UInt64 = 0,
                 latenessP99Nanoseconds: UInt64 = 0, latenessMaxNanoseconds: UInt64 = 0, latenessMeanNanoseconds: Double = 0) {
        self.ticks = ticks; self.missedTicks = missedTicks; self.overruns = overruns
        self.latenessP50Nanoseconds = latenessP50Nanoseconds; self.latenessP99Nanoseconds = latenessP99Nanoseconds
        self.latenessMaxNanoseconds = latenessMaxNanoseconds; self.latenessMeanNanoseconds = latenessMeanNanoseconds
    }

    /// The statistics of `histogram` plus the loop's counters.
    package init(ticks: UInt64, missedTicks: UInt64, overruns: UInt64, lateness histogram: LatencyHistogram) {
        self.init(ticks: ticks, missedTicks: missedTicks, overruns: overruns,
                  latenessP50Nanoseconds: histogram.percentile(0.5), latenessP99Nanoseconds: histogram.percentile(0.99),
                  latenessMaxNanoseconds: histogram.max, latenessMeanNanoseconds: histogram.mean)
    }

    /// One line, e.g. `ticks 1000, missed 0, lateness p50 45 µs p99 120 µs max 300 µs`.
    public var description: String {
        let missed = overruns > 0 ? "missed \(missedTicks) (\(overruns) overruns)" : "missed \(missedTicks)"
        return "ticks \(ticks), \(missed), lateness p50 \(Self.micros(latenessP50Nanoseconds))"
            + " p99 \(Self.micros(latenessP99Nanoseconds)) max \(Self.micros(latenessMaxNanoseconds))"
    }

    /// `4.5 µs` under 10 µs, whole microseconds above.
    static func micros(_ ns: UInt64) -> String {
        if ns < 10_000 {
            let tenths = (ns + 50) / 100
            return "\(tenths / 10).\(tenths % 10) µs"
        }
        return "\((ns + 500) / 1000) µs"
    }
}

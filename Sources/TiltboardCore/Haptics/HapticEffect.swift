/// A vibration pattern for the motor line, described as data.
///
/// Build effects once (presets, `parse(name:)`, `pattern(_:repeat:strength:)`) and replay them;
/// playing a prebuilt effect copies no pattern storage.
public enum HapticEffect: Sendable, Equatable {
    /// One burst lasting the given span at `strength` (0 < strength ≤ 1; below 1 is software PWM):
    /// `.pulse(.milliseconds(150))`.
    case pulse(Duration, strength: Double = 1)
    /// An on/off sequence, possibly repeated.
    case waveform(HapticWaveform)

    /// A pulse of `ms` milliseconds (rounded to the nanosecond): the form the parser, the gamepad's
    /// rumble and the tests use.
    package static func pulse(ms: Double, strength: Double = 1) -> HapticEffect {
        .pulse(.rounded(milliseconds: ms), strength: strength)
    }

    /// 10 ms: the lightest perceptible confirmation.
    public static let tick = HapticEffect.pulse(.milliseconds(10))
    /// 20 ms: a button press.
    public static let click = HapticEffect.pulse(.milliseconds(20))
    /// 20 ms on, 60 ms off, 20 ms on.
    public static let doubleClick = HapticEffect.waveform(HapticWaveform(timingsMs: [20, 60, 20]))
    /// 400 ms: an unmissable notice.
    public static let buzz = HapticEffect.pulse(.milliseconds(400))
    /// 200 ms on, 200 ms off, five times.
    public static let alarm = HapticEffect.waveform(HapticWaveform(timingsMs: [200, 200], repeatCount: 5))

    /// Preset names accepted by `parse(name:)`, in the order they are listed to users.
    package static let presetNames = ["tick", "click", "double-click", "buzz", "alarm"]

    /// The preset called `name`, or nil.
    package static func preset(named name: String) -> HapticEffect? {
        switch name {
        case "tick": return .tick
        case "click": return .click
        case "double-click": return .doubleClick
        case "buzz": return .buzz
        case "alarm": return .alarm
        default: return nil
        }
    }

    /// Longest single segment accepted from text; longer on-times are cut by the on-time limit anyway.
    package static let maxSegmentMs = 60_000.0

    /// Parses a preset name (`tick`, `click`, `double-click`, `buzz`, `alarm`) or `pulse:MS`.
    package static func parse(name: String) throws -> HapticEffect {
        let text = trimmed(Substring(name))
        if let preset = preset(named: String(text)) { return preset }
        if text.hasPrefix("pulse:") {
            let ms = try parseMilliseconds(text.dropFirst("pulse:".count), what: .pulseLength, allowZero: false)
            return .pulse(ms: ms)
        }
        throw HapticEffectError(.unknownName(String(name.prefix(80))))
    }

    /// Parses `"on,off,on,…"` in milliseconds, starting with an on-time. `repeat` is how many times
    /// the sequence plays (nil: until cancelled); `strength` is 0 < s ≤ 1.
    package static func pattern(_ text: String, repeat count: Int? = 1, strength: Double = 1) throws -> HapticEffect {
        var timings: [Double] = []
        for (i, field) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let what: HapticEffectError.Field = i % 2 == 0 ? .onTime(i / 2 + 1) : .offTime(i / 2 + 1)
            // Only the first on-time must be positive: a zero elsewhere is a legitimate way to merge.
            timings.append(try parseMilliseconds(field, what: what, allowZero: i > 0))
        }
        let waveform = HapticWaveform(timingsMs: timings, repeatCount: count, strength: strength)
        try waveform.validate()
        return .waveform(waveform)
    }

    /// Checks durations and strength; throws a message saying what to change.
    public func validate() throws {
        switch self {
        case let .pulse(length, strength):
            let ms = length.inMilliseconds
            guard length > .zero else { throw HapticEffectError(.badPulseLength(ms)) }
            try HapticWaveform.validate(strength: strength)
        case let .waveform(w):
            try w.validate()
        }
    }

    /// The effect as a waveform.
    public var waveform: HapticWaveform {
        switch self {
        case let .pulse(length, strength): return HapticWaveform(timingsMs: [length.inMilliseconds], repeatCount: 1, strength: strength)
        case let .waveform(w): return w
        }
    }

    // Allocation-free views used by the player on every step.
    @usableFromInline var segmentCount: Int {
        switch self {
        case .pulse: return 1
        case let .waveform(w): return w.timingsMs.count
        }
    }
    /// Segment `i` in seconds; even indices are on-times.
    @usableFromInline func segmentSeconds(_ i: Int) -> Double {
        switch self {
        case let .pulse(length, _): return length.inSeconds
        case let .waveform(w): return w.timingsMs[i] / 1000
        }
    }
    @usableFromInline var plays: Int? {
        switch self {
        case .pulse: return 1
        case let .waveform(w): return w.repeatCount
        }
    }
    @usableFromInline var strength: Double {
        switch self {
        case let .pulse(_, s): return s
        case let .waveform(w): return w.strength
        }
    }
    /// True when `validate()` would not throw; checked without building messages.
    package var isValid: Bool {
        switch self {
        case let .pulse(length, strength):
            return length > .zero && strength.isFinite && strength > 0 && strength <= 1
        case let .waveform(w):
            // Plain indexing: this runs on every `play`, which must not allocate.
            var total = 0.0, anyOn = false
            var i = 0
            while i < w.timingsMs.count {
                let ms = w.timingsMs[i]
                guard ms.isFinite, ms >= 0 else { return false }
                total += ms
                if i % 2 == 0, ms > 0 { anyOn = true }
                i += 1
            }
            if let r = w.repeatCount, r < 1 { return false }
            return anyOn && total > 0 && w.strength.isFinite && w.strength > 0 && w.strength <= 1
        }
    }

    static func trimmed(_ s: Substring) -> Substring {
        var s = s
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }

    static func parseMilliseconds(_ field: Substring, what: HapticEffectError.Field, allowZero: Bool) throws -> Double {
        let text = trimmed(field)
        guard let value = Double(text), value.isFinite else {
            throw HapticEffectError(.notANumber(what, text: String(text.prefix(80))))
        }
        guard value > 0 || (allowZero && value == 0) else {
            throw HapticEffectError(.notPositive(what, text: String(text), zeroAllowed: allowZero))
        }
        guard value <= maxSegmentMs else {
            throw HapticEffectError(.tooLong(what, text: String(text), limit: .milliseconds(Int(maxSegmentMs))))
        }
        return value
    }
}

/// An on/off sequence: `timings` alternates on and off durations, starting with on; a trailing
/// on-time runs into the next repetition's first on-time.
public struct HapticWaveform: Sendable, Equatable {
    /// Milliseconds: on, off, on, …
    package var timingsMs: [Double]
    /// The on and off durations: on, off, on, … (kept to the nanosecond).
    public var timings: [Duration] {
        get { timingsMs.map { .rounded(milliseconds: $0) } }
        set { timingsMs = newValue.map(\.inMilliseconds) }
    }
    /// How many times the sequence plays: 1 plays it once; nil repeats until cancelled.
    public var repeatCount: Int?
    /// 0 < strength ≤ 1; below 1 the on-times are chopped at the PWM carrier with this duty.
    public var strength: Double

    /// A waveform of alternating on and off `timings` (on first), repeated `repeatCount` times
    /// (nil: until cancelled), at `strength` 0…1: `HapticWaveform(timings: [.milliseconds(20), .milliseconds(60), .milliseconds(20)])`.
    public init(timings: [Duration], repeatCount: Int? = 1, strength: Double = 1) {
        self.init(timingsMs: timings.map(\.inMilliseconds), repeatCount: repeatCount, strength: strength)
    }

    /// A waveform of alternating on and off segments in milliseconds.
    package init(timingsMs: [Double], repeatCount: Int? = 1, strength: Double = 1) {
        self.timingsMs = timingsMs; self.repeatCount = repeatCount; self.strength = strength
    }

    /// How long one pass of the sequence lasts.
    public var cycle: Duration { .rounded(milliseconds: cycleMs) }

    /// Total length of one pass of the sequence, in milliseconds.
    package var cycleMs: Double { timingsMs.reduce(0, +) }

    /// Checks durations, count and strength; throws a message saying what to change.
    public func validate() throws {
        guard !timingsMs.isEmpty else { throw HapticEffectError(.noTimings) }
        for (i, ms) in timingsMs.enumerated() where !(ms.isFinite && ms >= 0) {
            throw HapticEffectError(.badTiming(number: i + 1, given: ms))
        }
        guard cycleMs > 0, timingsMs.enumerated().contains(where: { $0.offset % 2 == 0 && $0.element > 0 }) else {
            throw HapticEffectError(.noOnTime)
        }
        if let repeatCount, repeatCount < 1 {
            throw HapticEffectError(.badRepeatCount(repeatCount))
        }
        try Self.validate(strength: strength)
    }

    static func validate(strength: Double) throws {
        guard strength.isFinite, strength > 0, strength <= 1 else {
            throw HapticEffectError(.badStrength(strength))
        }
    }
}

/// A malformed haptic effect: which problem, with the text or number that has it.
public struct HapticEffectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which number of an effect's text a problem is about.
    public enum Field: Sendable, Equatable {
        /// The length in `pulse:MS`.
        case pulseLength
        /// The n-th on-time of a pattern (1 is the first).
        case onTime(Int)
        /// The n-th off-time of a pattern (1 is the first).
        case offTime(Int)
    }

    /// What is wrong with the effect.
    public enum Problem: Sendable, Equatable {
        /// A name that is neither a preset nor `pulse:MS` (as given, at most 80 characters).
        case unknownName(String)
        /// A field that is not a number (its text, at most 80 characters).
        case notANumber(Field, text: String)
        /// A field below its least: more than 0, or 0 or more when `zeroAllowed`.
        case notPositive(Field, text: String, zeroAllowed: Bool)
        /// A field longer than `limit`.
        case tooLong(Field, text: String, limit: Duration)
        /// A pulse whose length, in milliseconds, is not a positive number.
        case badPulseLength(Double)
        /// A pattern without any timing.
        case noTimings
        /// The `number`-th timing (1 is the first) is not 0 or more milliseconds: `given`, the
        /// number it holds (negative or not a number, so no span of time).
        case badTiming(number: Int, given: Double)
        /// A pattern whose on-times are all 0.
        case noOnTime
        /// A repeat count below 1.
        case badRepeatCount(Int)
        /// A strength outside 0 < strength ≤ 1.
        case badStrength(Double)
    }

    /// What is wrong.
    public var problem: Problem
    /// An error for `problem`.
    public init(_ problem: Problem) { self.problem = problem }
    /// The problem and its fields, for a log: `HapticEffectError(noOnTime)`. A program words it for people.
    public var description: String { "HapticEffectError(\(problem))" }
}

import Foundation
import TiltboardCore

/// The player's shake sensitivity, stored in the profile's optional `shake` section: a named
/// level and, for experts, the detector's own keys (the same ones, with the same bounds, as a board
/// file's `shake` section). Over the board file's values: the level sets the threshold, and a key
/// given here wins over both.
public struct ProfileShake: Codable, Sendable, Equatable {
    /// `gentle`, `normal` or `firm` (`ShakeSensitivity`); kept as text so that a wrong name is
    /// reported as the profile's problem, with the names allowed.
    public var level: String?
    /// Linear acceleration in g a stroke must exceed; nil keeps the level's or the board's value.
    public var thresholdG: Double?
    /// Direction reversals a shake needs; nil keeps the board's value.
    public var minReversals: Int?
    /// The fraction of strokes that must be strong; nil keeps the board's value.
    public var minFraction: Double?
    /// Milliseconds after a shake before the next may start (the profile's `shake.cooldownMs`);
    /// nil keeps the board's value.
    package var cooldownMs: Double?

    /// How long after a shake before the next may start; nil keeps the board's value.
    public var cooldown: Duration? {
        get { cooldownMs.map { .rounded(milliseconds: $0) } }
        set { cooldownMs = newValue?.inMilliseconds }
    }

    /// Shake settings saved in a profile; nil fields leave the board's settings as they are.
    public init(level: ShakeSensitivity? = nil, thresholdG: Double? = nil, minReversals: Int? = nil,
                minFraction: Double? = nil, cooldown: Duration? = nil) {
        self.init(level: level, thresholdG: thresholdG, minReversals: minReversals, minFraction: minFraction,
                  cooldownMs: cooldown?.inMilliseconds)
    }

    /// Shake settings with the cooldown in milliseconds (the profile file's unit).
    package init(level: ShakeSensitivity? = nil, thresholdG: Double? = nil, minReversals: Int? = nil,
                 minFraction: Double? = nil, cooldownMs: Double?) {
        self.level = level?.rawValue; self.thresholdG = thresholdG; self.minReversals = minReversals
        self.minFraction = minFraction; self.cooldownMs = cooldownMs
    }

    /// The keys a profile's `shake` section may hold.
    package static let keys: Set<String> = ["level", "thresholdG", "minReversals", "minFraction", "cooldownMs"]

    /// The named level, when one is set and valid.
    public var sensitivity: ShakeSensitivity? { level.flatMap(ShakeSensitivity.init(rawValue:)) }

    /// True when nothing is set: the board file's values apply.
    public var isEmpty: Bool {
        level == nil && thresholdG == nil && minReversals == nil && minFraction == nil && cooldownMs == nil
    }

    /// `base` (the board file's settings) with this section over it.
    public func settings(over base: ShakeDetectorSettings) -> ShakeDetectorSettings {
        var s = base
        if let level = sensitivity { s.thresholdG = level.thresholdG }
        if let v = thresholdG { s.thresholdG = v }
        if let v = minReversals { s.minReversals = v }
        if let v = minFraction { s.minFraction = v }
        if let v = cooldownMs { s.cooldownMs = v }
        return s
    }

    /// The first thing wrong (a `shake.…` key and its value), or nil.
    package var problem: ProfileValueProblem? {
        if let level, ShakeSensitivity(rawValue: level) == nil {
            return .shakeLevel(level, levels: ShakeSensitivity.allCases.map(\.rawValue))
        }
        if let v = thresholdG, !(v.isFinite && v > 0 && v <= 16) { return .shakeThresholdG(v) }
        if let v = minReversals, !(1...20).contains(v) { return .shakeMinReversals(v) }
        if let v = minFraction, !(v.isFinite && (0...1).contains(v)) { return .shakeMinFraction(v) }
        if let v = cooldownMs, !(v.isFinite && (0...60_000).contains(v)) { return .shakeCooldownMs(v) }
        return nil
    }

    /// How `settings` reads for a player: `normal (0.8 g)`, or `custom (1.0 g)` when the
    /// threshold is not one of the levels'.
    package static func describe(_ settings: ShakeDetectorSettings) -> String {
        let name = ShakeSensitivity(thresholdG: settings.thresholdG)?.rawValue ?? "custom"
        return "\(name) (\(gText(settings.thresholdG)) g)"
    }

    /// `0.8`, `1.2`, `1.25`: at most two decimals, at least one.
    package static func gText(_ g: Double) -> String {
        var text = String(format: "%.2f", g)
        if text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

/// How hard a shake must be, by name: what a player chooses instead of a threshold in g.
///
/// Each level sets only `ShakeDetectorSettings.thresholdG`; the other rules (three alternating
/// half-cycles, `minFraction`, the free-fall rule for downward strokes) stay as they are, and
/// they, not the threshold, are what keep walking and stairs out. `gentle` still makes no shake on
/// the simulator's walking and stairs scripts (checked by the false-positive tests).
public enum ShakeSensitivity: String, CaseIterable, Sendable, Codable {
    /// 0.6 g: a small, quick wiggle is enough.
    case gentle
    /// 0.8 g: the detector's default.
    case normal
    /// 1.2 g: only a deliberate, vigorous shake counts.
    case firm

    /// The threshold this level sets, in g.
    public var thresholdG: Double {
        switch self {
        case .gentle: return 0.6
        case .normal: return ShakeDetectorSettings.standard.thresholdG
        case .firm: return 1.2
        }
    }

    /// The level whose threshold is `thresholdG`, if any.
    public init?(thresholdG: Double) {
        guard let match = Self.allCases.first(where: { $0.thresholdG == thresholdG }) else { return nil }
        self = match
    }

    /// The names, for messages: "gentle, normal, firm".
    package static var namesList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

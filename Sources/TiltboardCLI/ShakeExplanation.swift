import TiltboardCore

/// The words of `shake --explain`: one line per `ShakeNote`.
enum ShakeExplanation {
    static func line(_ note: ShakeNote) -> String {
        switch note {
        case let .halfCycle(number, t, peakG, direction, gapMs, gravity):
            let gap = gapMs.map { ", \(Int($0.rounded())) ms after the last" } ?? ", starting a run"
            return "explain: \(seconds(t)) half-cycle \(number): \(g(peakG)) toward \(vector(direction))\(gap); gravity \(vector(gravity))"
        case let .runEnded(halfCycles, t, reason):
            return "explain: \(seconds(t)) run of \(halfCycles) half-cycle\(halfCycles == 1 ? "" : "s") ended: \(words(reason))"
        case let .held(halfCycles, t, reason):
            return "explain: \(seconds(t)) \(halfCycles) half-cycles, not yet a shake: \(words(reason))"
        case let .freeFall(t, downG):
            return "explain: \(seconds(t)) burst pointing down at \(g(downG)), no faster than free fall: not a stroke"
        case let .taken(halfCycles, t, sideways, turning, busy):
            return "explain: \(seconds(t)) shake taken on half-cycle \(halfCycles): sideways \(decimal(sideways, 2)), "
                + "turning \(decimal(turning, 2)), swinging \(Int((busy * 100).rounded())) % of the time"
        }
    }

    private static func words(_ reason: ShakeNote.RunEnd) -> String {
        switch reason {
        case let .notReversed(cosine):
            return "the next burst did not point back along it (cosine \(decimal(cosine, 2))); it starts a new run"
        case let .tooSoon(gapMs):
            return "the next burst came \(Int(gapMs.rounded())) ms after the last, too soon for a hand (ringing); it starts a new run"
        case let .tooLate(gapMs):
            return "nothing followed within \(Int(gapMs.rounded())) ms"
        case let .knock(ms):
            return "its last burst lasted \(Int(ms.rounded())) ms, a knock rather than a stroke"
        case let .quiet(busy):
            return "the hand swung only \(Int((busy * 100).rounded())) % of the time (footsteps?); starting over from the last half-cycle"
        }
    }

    private static func words(_ reason: ShakeNote.Hold) -> String {
        switch reason {
        case let .slow(gapMs):
            return "the last came \(Int(gapMs.rounded())) ms after the one before, a slow swing: one more half-cycle needed"
        case let .weak(peakG):
            return "the last reached only \(g(peakG)), a rebound rather than a stroke: one more half-cycle needed"
        case let .sideways(ratio):
            return "\(decimal(ratio, 2)) of the motion went across its axis: it does not swing along a line"
        case let .turning(share):
            return "the acceleration turned round (\(decimal(share, 2))) instead of reversing: a circle?"
        }
    }

    private static func seconds(_ t: Double) -> String { "\(decimal(t, 3)) s" }
    private static func g(_ value: Double) -> String { "\(decimal(value, 2)) g" }
    private static func vector(_ v: Vector3) -> String { "(\(decimal(v.x, 2)), \(decimal(v.y, 2)), \(decimal(v.z, 2)))" }
}

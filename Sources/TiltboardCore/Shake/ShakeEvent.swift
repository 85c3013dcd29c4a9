/// A change in shaking reported by `ShakeDetector`.
public struct ShakeEvent: Sendable, Equatable {
    /// Whether the shake began or finished.
    public enum Phase: Sendable, Equatable {
        /// A shake began (`started`) or ended (`ended`).
        case started, ended
    }
    /// Which change this is.
    public var phase: Phase
    /// Sample time, in seconds, at which the change was decided.
    public var t: Double
    /// Largest linear acceleration, in g, seen so far in this shake (the whole shake for `.ended`).
    public var peakG: Double
    /// Sample time, in seconds, of the first active sample of the shake.
    public var startT: Double

    /// An event from its fields.
    @inlinable public init(phase: Phase, t: Double, peakG: Double, startT: Double) {
        self.phase = phase; self.t = t; self.peakG = peakG; self.startT = startT
    }
}

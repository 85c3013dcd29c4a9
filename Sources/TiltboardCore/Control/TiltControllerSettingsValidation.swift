/// A controller setting outside its meaningful range: the setting, the value and the range it
/// must be in. It carries no sentence: the program that shows it words it.
public struct TiltControllerSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The range a setting must be in.
    public enum Allowed: Sendable, Equatable {
        /// Above 0, at most 1.
        case aboveZeroUpToOne
        /// 0 to 1.
        case zeroToOne
        /// 0 or more.
        case nonNegative
        /// Above 0.
        case positive
        /// Above 0, or no value at all.
        case positiveOrOmitted
        /// Above 0; 1 is linear (the response exponent).
        case positiveExponent
        /// Degrees from 0 up to, not including, 90.
        case degreesBelow90
    }

    /// The setting's name as written in profile files.
    public var setting: String
    /// The offending value.
    public var value: Double
    /// The range it must be in.
    public var allowed: Allowed

    /// Creates the error for one setting.
    public init(setting: String, value: Double, allowed: Allowed) {
        self.setting = setting; self.value = value; self.allowed = allowed
    }

    /// The setting, value and range, for a log; a program words it for people.
    public var description: String {
        "TiltControllerSettingsError(\(setting) = \(value), allowed: \(allowed))"
    }
}

extension TiltControllerSettings {
    /// Throws for the first setting that would make the controller misbehave (division by zero,
    /// growing without bound, a negative dead zone), so profiles are checked once at load time.
    public func validate() throws {
        func require(_ ok: Bool, _ name: String, _ value: Double, _ allowed: TiltControllerSettingsError.Allowed) throws {
            if !ok || !value.isFinite {
                throw TiltControllerSettingsError(setting: name, value: value, allowed: allowed)
            }
        }
        switch model {
        case let .damped(deceleration, sensitivity, maxVelocity):
            try require(deceleration > 0 && deceleration <= 1, "deceleration", deceleration, .aboveZeroUpToOne)
            try require(sensitivity >= 0, "sensitivity", sensitivity, .nonNegative)
            try require(maxVelocity > 0, "maxVelocity", maxVelocity, .positive)
        case let .integrating(gain, maxSpeed):
            try require(gain >= 0, "gain", gain, .nonNegative)
            if let maxSpeed { try require(maxSpeed > 0, "maxSpeed", maxSpeed, .positiveOrOmitted) }
        }
        if case let .bounce(restitution) = boundary {
            try require(restitution >= 0 && restitution <= 1, "restitution", restitution, .zeroToOne)
        }
        try require(deadZoneDeg >= 0 && deadZoneDeg < 90, "deadZoneDeg", deadZoneDeg, .degreesBelow90)
        try require(responseExponent > 0, "responseExponent", responseExponent, .positiveExponent)
        try require(pixelsPerUnit > 0, "pixelsPerUnit", pixelsPerUnit, .positive)
    }
}

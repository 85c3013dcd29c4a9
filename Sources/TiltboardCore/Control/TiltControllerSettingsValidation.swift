/// A controller setting outside its meaningful range.
public struct TiltControllerSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting's name as written in profile files.
    public var setting: String
    /// The offending value.
    public var value: Double
    /// The accepted range, in words.
    public var expected: String

    /// Creates the error for one setting.
    public init(setting: String, value: Double, expected: String) {
        self.setting = setting; self.value = value; self.expected = expected
    }

    public var description: String {
        "controller setting \(setting) = \(value) is out of range; use \(expected)"
    }
}

extension TiltControllerSettings {
    /// Throws for the first setting that would make the controller misbehave (division by zero,
    /// growing without bound, a negative dead zone), so profiles are checked once at load time.
    public func validate() throws {
        func require(_ ok: Bool, _ name: String, _ value: Double, _ expected: String) throws {
            if !ok || !value.isFinite {
                throw TiltControllerSettingsError(setting: name, value: value, expected: expected)
            }
        }
        switch model {
        case let .damped(deceleration, sensitivity, maxVelocity):
            try require(deceleration > 0 && deceleration <= 1, "deceleration", deceleration, "a value in (0, 1]")
            try require(sensitivity >= 0, "sensitivity", sensitivity, "a value ≥ 0")
            try require(maxVelocity > 0, "maxVelocity", maxVelocity, "a value > 0")
        case let .integrating(gain, maxSpeed):
            try require(gain >= 0, "gain", gain, "a value ≥ 0")
            if let maxSpeed { try require(maxSpeed > 0, "maxSpeed", maxSpeed, "a value > 0, or leave it out") }
        }
        if case let .bounce(restitution) = boundary {
            try require(restitution >= 0 && restitution <= 1, "restitution", restitution, "a value in 0…1")
        }
        try require(deadZoneDeg >= 0 && deadZoneDeg < 90, "deadZoneDeg", deadZoneDeg, "degrees in 0…90 (exclusive)")
        try require(responseExponent > 0, "responseExponent", responseExponent, "a value > 0 (1 is linear)")
        try require(pixelsPerUnit > 0, "pixelsPerUnit", pixelsPerUnit, "a value > 0")
    }
}

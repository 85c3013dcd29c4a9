#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tilt to a gamepad's left stick, as every gamepad reports it: `x` > 0 right, `y` < 0 forward
/// ("up"), each in `-maxValue…maxValue`.
///
/// Each axis takes its own angle (roll for `x`, pitch for `y`, from the neutral pose): nothing
/// inside the dead zone, full deflection at `fullScaleDeg`, and in between
/// `((angle − deadZone) / (fullScale − deadZone)) ^ responseExponent`.
package struct GamepadAxes: Sendable, Equatable {
    /// The stick's range each side of centre: the full `int16` range without its lone extra negative.
    package static let maxValue: Int32 = 32767

    /// Tilt ignored around the neutral pose, degrees.
    package var deadZoneDeg: Double
    /// 1 is linear; larger gives finer control near neutral.
    package var responseExponent: Double
    /// Tilt giving full deflection, degrees.
    package var fullScaleDeg: Double

    package init(deadZoneDeg: Double = 0, responseExponent: Double = 1, fullScaleDeg: Double = 25) {
        self.deadZoneDeg = deadZoneDeg; self.responseExponent = responseExponent; self.fullScaleDeg = fullScaleDeg
    }

    /// `ABS_X` and `ABS_Y` for a tilt from the neutral pose.
    package func values(_ tilt: TiltAngles) -> (x: Int32, y: Int32) {
        (axis(tilt.rollDeg), -axis(tilt.pitchDeg))
    }

    private func axis(_ angle: Double) -> Int32 {
        let size = Swift.abs(angle)
        guard size > deadZoneDeg, size.isFinite else { return 0 }
        let shaped = pow(Swift.min(1, (size - deadZoneDeg) / (fullScaleDeg - deadZoneDeg)), responseExponent)
        let value = Int32((shaped * Double(Self.maxValue)).rounded())
        return angle < 0 ? -value : value
    }

    /// A setting out of its range.
    package enum Problem: Sendable, Equatable {
        /// `fullScaleDeg` is not above 0 and at most 90.
        case fullScale(Double)
        /// `deadZoneDeg` is not at least 0 and below `fullScaleDeg`.
        case deadZone(Double, fullScaleDeg: Double)
        /// `responseExponent` is not above 0 and at most 10.
        case response(Double)
    }

    /// What is wrong with the settings, or nil.
    package var problem: Problem? {
        guard fullScaleDeg > 0, fullScaleDeg <= 90 else { return .fullScale(fullScaleDeg) }
        guard deadZoneDeg >= 0, deadZoneDeg < fullScaleDeg else { return .deadZone(deadZoneDeg, fullScaleDeg: fullScaleDeg) }
        guard responseExponent > 0, responseExponent <= 10 else { return .response(responseExponent) }
        return nil
    }
}

/// A shake as a button: pressed while the shake lasts, and at least `minPressSeconds` so a game
/// polling at its frame rate cannot miss it.
package struct ShakeButton: Sendable, Equatable {
    package var minPressSeconds: Double
    private var pressedAt: Double?

    package init(minPressSeconds: Double = 0.1) { self.minPressSeconds = minPressSeconds }

    /// Whether the button is down at `t` with the detector reporting `shaking`.
    package mutating func update(t: Double, shaking: Bool) -> Bool {
        if shaking {
            if pressedAt == nil { pressedAt = t }
            return true
        }
        guard let start = pressedAt else { return false }
        if t - start < minPressSeconds { return true }
        pressedAt = nil
        return false
    }
}

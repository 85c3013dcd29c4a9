#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pitch and roll of the board, the one angle convention used across the package.
///
/// Board frame: +x to the right, +y forward (away from the player), +z out of the face.
/// A board lying flat, face up, measures gravity's reaction as (0, 0, +1) g.
/// - `pitchDeg` > 0: tilted forward (front edge, +y, down). Range −180…180.
/// - `rollDeg` > 0: tilted right (right edge, +x, down). Range −90…90.
///
/// The gravity reaction for a pose is `(−sin r, −sin p·cos r, cos p·cos r)`; `init(gravity:)`
/// inverts it. All six faces are reachable: face down is pitch 180°, right edge down is roll 90°.
public struct TiltAngles: Hashable, Sendable, Codable {
    /// Pitch in degrees, positive tilted forward (front edge, +y, down); −180…180.
    public var pitchDeg: Double
    /// Roll in degrees, positive tilted right (right edge, +x, down); −90…90.
    public var rollDeg: Double

    /// Angles from pitch and roll in degrees.
    @inlinable public init(pitchDeg: Double, rollDeg: Double) {
        self.pitchDeg = pitchDeg; self.rollDeg = rollDeg
    }

    /// The angles of a measured gravity reaction (any length).
    public init(gravity g: Vector3) {
        pitchDeg = degrees(atan2(-g.y, g.z))
        rollDeg = degrees(atan2(-g.x, (g.y * g.y + g.z * g.z).squareRoot()))
    }

    /// The unit gravity reaction the board measures in this pose.
    public var gravity: Vector3 {
        let p = radians(pitchDeg), r = radians(rollDeg)
        return Vector3(-sin(r), -sin(p) * cos(r), cos(p) * cos(r))
    }
}

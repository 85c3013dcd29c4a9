import TiltboardCore

/// What a sensor physically experiences at one instant, in the sensor frame.
public struct PhysicalState: Sendable, Equatable {
    /// Specific force in g: gravity's reaction plus linear acceleration. Flat, face up: (0, 0, 1).
    public var accelG: Vector3
    /// Body-frame angular velocity in °/s, right-handed; the gravity reaction g_b obeys
    /// d(g_b)/dt = −ω × g_b.
    public var gyroDps: Vector3
    /// Die temperature in °C.
    public var tempC: Double

    /// A state from its acceleration in g, rotation rate in °/s and temperature in °C.
    @inlinable public init(accelG: Vector3, gyroDps: Vector3 = .zero, tempC: Double = 25) {
        self.accelG = accelG; self.gyroDps = gyroDps; self.tempC = tempC
    }

    /// At rest, flat and face up.
    public static let flat = PhysicalState(accelG: .unitZ)
}

/// Drives a simulated chip: the physical state as a function of time.
public protocol MotionSource: Sendable {
    /// The state at `t` seconds on the chip's clock.
    func state(at t: Double) -> PhysicalState
    /// How long the motion lasts (the final state holds afterwards); nil when it never ends.
    var duration: Duration? { get }
}

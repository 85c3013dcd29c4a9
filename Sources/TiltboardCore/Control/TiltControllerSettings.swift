/// How board tilt moves a marker in the −1…1 square, in rate-independent units.
///
/// Area units: the playing area spans −1…1 on each axis; `pixelsPerUnit` (default 160, i.e. a
/// 320-px-wide area) converts the `damped` model's pixel figures. Tilt is in g: the horizontal
/// part of the neutral-rotated unit gravity vector (sin of the tilt angle).
public struct TiltControllerSettings: Sendable, Equatable, Codable {
    /// The motion model.
    public enum Model: Sendable, Equatable, Codable {
        /// Per 60 Hz frame `v ← v·deceleration + tilt·sensitivity`, |v| ≤ maxVelocity, in pixels per
        /// frame with tilt in g; applied as its exact continuous-time equivalent at any rate.
        case damped(deceleration: Double = 0.4, sensitivity: Double = 6, maxVelocity: Double = 10)
        /// A rolling ball: dv/dt = tilt·gain (area units/s² per g), speed per axis ≤ maxSpeed
        /// (area units/s, nil for none); position integrated exactly for constant tilt over a step.
        case integrating(gain: Double = 4, maxSpeed: Double? = 3)
    }

    /// What happens at the edge of the −1…1 area, per axis.
    public enum Boundary: Sendable, Equatable, Codable {
        /// The marker stops at the edge; only that axis's velocity is zeroed.
        case edgeStop
        /// The marker reflects, keeping `restitution` (0…1) of its speed on that axis.
        case bounce(restitution: Double = 0.5)
    }

    /// The motion model; default `.damped()`.
    public var model: Model
    /// Edge behaviour; default `.edgeStop`.
    public var boundary: Boundary
    /// Radial dead zone around neutral, in degrees of tilt; tilt beyond it is rescaled so full
    /// tilt still gives full response.
    public var deadZoneDeg: Double
    /// Response curve: tilt magnitude (after the dead zone, 0…1 g) is raised to this power;
    /// 1 is linear, larger values give finer control near neutral.
    public var responseExponent: Double
    /// Pixels per area unit for the `damped` model's pixel figures.
    public var pixelsPerUnit: Double

    /// The frame rate the `damped` model's per-frame figures refer to.
    package static let referenceFrameRate = 60.0

    /// Settings with the seed programs' defaults.
    public init(model: Model = .damped(), boundary: Boundary = .edgeStop, deadZoneDeg: Double = 0,
                responseExponent: Double = 1, pixelsPerUnit: Double = 160) {
        self.model = model; self.boundary = boundary; self.deadZoneDeg = deadZoneDeg
        self.responseExponent = responseExponent; self.pixelsPerUnit = pixelsPerUnit
    }

    private enum CodingKeys: String, CodingKey {
        case model, boundary, deadZoneDeg, responseExponent, pixelsPerUnit
    }

    // Every key is optional in profile files; missing ones take the defaults.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TiltControllerSettings()
        model = try c.decodeIfPresent(Model.self, forKey: .model) ?? d.model
        boundary = try c.decodeIfPresent(Boundary.self, forKey: .boundary) ?? d.boundary
        deadZoneDeg = try c.decodeIfPresent(Double.self, forKey: .deadZoneDeg) ?? d.deadZoneDeg
        responseExponent = try c.decodeIfPresent(Double.self, forKey: .responseExponent) ?? d.responseExponent
        pixelsPerUnit = try c.decodeIfPresent(Double.self, forKey: .pixelsPerUnit) ?? d.pixelsPerUnit
    }
}

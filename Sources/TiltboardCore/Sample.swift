/// One reading of a motion sensor, converted to physical units.
///
/// `t` is seconds on the monotonic clock that drove the read. `gyro` and `tempC` are nil for
/// chips without those sensors (ADXL345).
public struct Sample: Hashable, Sendable {
    /// When the sample was taken, in seconds on the loop's clock.
    public var t: Double
    /// Acceleration in g (includes gravity), sensor or board frame depending on the stage.
    public var accel: Vector3
    /// Rotation rate in °/s.
    public var gyro: Vector3?
    /// Die temperature in °C.
    public var tempC: Double?

    /// A sample from its readings.
    @inlinable public init(t: Double, accel: Vector3, gyro: Vector3? = nil, tempC: Double? = nil) {
        self.t = t; self.accel = accel; self.gyro = gyro; self.tempC = tempC
    }
}

/// Per-axis accelerometer correction and gyro bias, as fitted by `SixFaceCalibrator`.
///
/// Model: `raw = scale ⊙ true + offset` per axis, optionally followed by a cross-axis matrix
/// that removes misalignment between the sensing axes. Units are g and °/s.
public struct SensorCalibration: Sendable, Equatable, Codable {
    /// Zero-g output per axis, in g.
    public var offsetG: Vector3
    /// Sensitivity per axis relative to nominal (1 = data-sheet sensitivity).
    public var scale: Vector3
    /// Applied after offset and scale; nil when the fit was diagonal only.
    public var crossAxis: Matrix3?
    /// Mean gyro output while still, in °/s; nil for chips without a gyro or when not measured.
    public var gyroBiasDps: Vector3?

    /// Creates a calibration from its parts.
    @inlinable public init(offsetG: Vector3, scale: Vector3, crossAxis: Matrix3? = nil, gyroBiasDps: Vector3? = nil) {
        self.offsetG = offsetG; self.scale = scale; self.crossAxis = crossAxis; self.gyroBiasDps = gyroBiasDps
    }

    /// No correction at all.
    public static let identity = SensorCalibration(offsetG: .zero, scale: .one)

    /// Corrected acceleration in g: `(raw − offset) / scale`, then the cross-axis matrix if any.
    @inlinable public func apply(accel raw: Vector3) -> Vector3 {
        let c = Vector3((raw.x - offsetG.x) / scale.x, (raw.y - offsetG.y) / scale.y, (raw.z - offsetG.z) / scale.z)
        if let m = crossAxis { return m * c }
        return c
    }

    /// The raw acceleration `apply(accel:)` maps onto `corrected`: `offset + scale ⊙ crossAxis⁻¹ × corrected`.
    /// The correction is affine, so the mean of corrected samples maps back onto the mean of the raw ones.
    public func unapply(accel corrected: Vector3) -> Vector3 {
        let c = crossAxis.flatMap(\.inverse).map { $0 * corrected } ?? corrected
        return Vector3(c.x * scale.x + offsetG.x, c.y * scale.y + offsetG.y, c.z * scale.z + offsetG.z)
    }

    /// Gyro rate with the still-board bias removed, in °/s.
    @inlinable public func apply(gyro: Vector3) -> Vector3 {
        if let b = gyroBiasDps { return gyro - b }
        return gyro
    }

    /// The sample with acceleration and (when present) rotation rate corrected.
    @inlinable public func apply(_ s: Sample) -> Sample {
        var out = s
        out.accel = apply(accel: s.accel)
        if let g = s.gyro { out.gyro = apply(gyro: g) }
        return out
    }
}

/// A unit quaternion representing a rotation; `w` is the scalar part.
public struct Quaternion: Hashable, Sendable, Codable {
    /// The scalar part.
    public var w: Double
    /// The vector part's x.
    public var x: Double
    /// The vector part's y.
    public var y: Double
    /// The vector part's z.
    public var z: Double

    /// A quaternion from its four components (not normalized).
    @inlinable public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w; self.x = x; self.y = y; self.z = z
    }

    /// No rotation.
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// The rotation of `angle` radians about `axis` (need not be unit length).
    public init(axis: Vector3, angle: Double) {
        let n = axis.normalized
        let h = angle / 2
        let s = Foundation_sin(h)
        self.init(w: Foundation_cos(h), x: n.x * s, y: n.y * s, z: n.z * s)
    }

    /// The shortest-arc rotation taking direction `from` onto direction `to`.
    public init(from: Vector3, to: Vector3) {
        let a = from.normalized, b = to.normalized
        let d = a.dot(b)
        if d < -0.999999 {
            // Opposite directions: rotate 180° about any axis perpendicular to `a`.
            var axis = Vector3(1, 0, 0).cross(a)
            if axis.lengthSquared < 1e-12 { axis = Vector3(0, 1, 0).cross(a) }
            self.init(axis: axis, angle: Double.pi)
            return
        }
        let c = a.cross(b)
        self = Quaternion(w: 1 + d, x: c.x, y: c.y, z: c.z).normalized
    }

    /// The quaternion's length (1 for a rotation).
    @inlinable public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }
    /// The quaternion scaled to length 1.
    @inlinable public var normalized: Quaternion {
        let n = norm
        return n > 0 ? Quaternion(w: w / n, x: x / n, y: y / n, z: z / n) : .identity
    }
    /// The conjugate: the inverse rotation of a unit quaternion.
    @inlinable public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// The rotation angle in radians, 0…π.
    public var angle: Double { 2 * Foundation_atan2((x * x + y * y + z * z).squareRoot(), Swift.abs(w)) }

    /// Hamilton product: `a * b` applies `b` first, then `a`.
    @inlinable public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// Rotates `v` by this quaternion.
    @inlinable public func rotate(_ v: Vector3) -> Vector3 {
        let u = Vector3(x, y, z)
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// The equivalent rotation matrix.
    public var matrix: Matrix3 {
        Matrix3(rows: Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }
}

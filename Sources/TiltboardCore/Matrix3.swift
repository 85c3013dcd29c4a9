/// A 3×3 matrix stored by rows; used for mount matrices and cross-axis calibration.
public struct Matrix3: Hashable, Sendable, Codable {
    /// The first row.
    public var r0: Vector3
    /// The second row.
    public var r1: Vector3
    /// The third row.
    public var r2: Vector3

    /// A matrix from its three rows.
    @inlinable public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        self.r0 = r0; self.r1 = r1; self.r2 = r2
    }

    /// The identity matrix.
    public static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    /// A diagonal matrix.
    @inlinable public init(diagonal d: Vector3) {
        self.init(rows: Vector3(d.x, 0, 0), Vector3(0, d.y, 0), Vector3(0, 0, d.z))
    }

    /// The three columns.
    @inlinable public var columns: (Vector3, Vector3, Vector3) {
        (Vector3(r0.x, r1.x, r2.x), Vector3(r0.y, r1.y, r2.y), Vector3(r0.z, r1.z, r2.z))
    }
    /// The transposed matrix (the inverse of a rotation).
    @inlinable public var transposed: Matrix3 {
        let c = columns
        return Matrix3(rows: c.0, c.1, c.2)
    }
    /// The determinant.
    @inlinable public var determinant: Double { r0.dot(r1.cross(r2)) }

    /// The inverse, or nil when the matrix is singular.
    public var inverse: Matrix3? {
        let det = determinant
        guard Swift.abs(det) > 1e-12 else { return nil }
        let c0 = r1.cross(r2), c1 = r2.cross(r0), c2 = r0.cross(r1)
        // Rows of the adjugate are the columns formed by these cross products.
        return Matrix3(rows: c0, c1, c2).transposed * (1 / det)
    }

    /// The matrix applied to a vector.
    @inlinable public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v))
    }
    /// The matrix product: `b` applied first, then `a`.
    @inlinable public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let c = b.columns
        return Matrix3(rows: Vector3(a.r0.dot(c.0), a.r0.dot(c.1), a.r0.dot(c.2)),
                       Vector3(a.r1.dot(c.0), a.r1.dot(c.1), a.r1.dot(c.2)),
                       Vector3(a.r2.dot(c.0), a.r2.dot(c.1), a.r2.dot(c.2)))
    }
    /// Every element scaled by `s`.
    @inlinable public static func * (m: Matrix3, s: Double) -> Matrix3 {
        Matrix3(rows: m.r0 * s, m.r1 * s, m.r2 * s)
    }

    /// Rows as `[[Double]]`, the form used in board and profile files.
    package var rowArrays: [[Double]] { [[r0.x, r0.y, r0.z], [r1.x, r1.y, r1.z], [r2.x, r2.y, r2.z]] }

    /// Builds a matrix from three rows of three numbers; nil for any other shape.
    package init?(rowArrays a: [[Double]]) {
        guard a.count == 3, a.allSatisfy({ $0.count == 3 }) else { return nil }
        self.init(rows: Vector3(a[0][0], a[0][1], a[0][2]),
                  Vector3(a[1][0], a[1][1], a[1][2]),
                  Vector3(a[2][0], a[2][1], a[2][2]))
    }

    // Encoded as [[a, b, c], [d, e, f], [g, h, i]].
    public init(from decoder: Decoder) throws {
        let rows = try decoder.singleValueContainer().decode([[Double]].self)
        guard let m = Matrix3(rowArrays: rows) else {
            throw DecodedValueProblem.notThreeRowsOfThree.decodingError(at: decoder.codingPath)
        }
        self = m
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rowArrays)
    }
}

/// A 3-vector of `Double`: accelerations in g, rotation rates in °/s, or a direction.
public struct Vector3: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x; self.y = y; self.z = z
    }

    public static let zero = Vector3(0, 0, 0)
    public static let one = Vector3(1, 1, 1)
    /// +Z: gravity as seen by a board lying flat, face up.
    public static let unitZ = Vector3(0, 0, 1)

    @inlinable public subscript(axis: Int) -> Double {
        get { axis == 0 ? x : (axis == 1 ? y : z) }
        set {
            switch axis {
            case 0: x = newValue
            case 1: y = newValue
            default: z = newValue
            }
        }
    }

    @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }
    @inlinable public var lengthSquared: Double { x * x + y * y + z * z }
    /// The unit vector in the same direction, or `.zero` for a zero vector.
    @inlinable public var normalized: Vector3 {
        let l = length
        return l > 0 ? self / l : .zero
    }
    @inlinable public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
    @inlinable public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
    /// Component-wise product.
    @inlinable public func scaled(by o: Vector3) -> Vector3 { Vector3(x * o.x, y * o.y, z * o.z) }
    @inlinable public var maxAbsComponent: Double { Swift.max(Swift.abs(x), Swift.abs(y), Swift.abs(z)) }

    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    @inlinable public static func -= (a: inout Vector3, b: Vector3) { a = a - b }

    public var description: String { "(\(x), \(y), \(z))" }

    // Encoded as a JSON array [x, y, z].
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        x = try c.decode(Double.self); y = try c.decode(Double.self); z = try c.decode(Double.self)
        if !c.isAtEnd {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected exactly 3 numbers")
        }
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x); try c.encode(y); try c.encode(z)
    }
}

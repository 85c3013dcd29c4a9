/// A 3-vector of `Double`: accelerations in g, rotation rates in °/s, or a direction.
public struct Vector3: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The x component.
    public var x: Double
    /// The y component.
    public var y: Double
    /// The z component.
    public var z: Double

    /// A vector from its components.
    @inlinable public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x; self.y = y; self.z = z
    }

    /// The zero vector.
    public static let zero = Vector3(0, 0, 0)
    /// A vector of ones (the identity scale).
    public static let one = Vector3(1, 1, 1)
    /// +Z: gravity as seen by a board lying flat, face up.
    public static let unitZ = Vector3(0, 0, 1)

    /// Component 0 (x), 1 (y) or 2 (z).
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

    /// The Euclidean length.
    @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }
    /// The squared length.
    @inlinable public var lengthSquared: Double { x * x + y * y + z * z }
    /// The unit vector in the same direction, or `.zero` for a zero vector.
    @inlinable public var normalized: Vector3 {
        let l = length
        return l > 0 ? self / l : .zero
    }
    /// The dot product.
    @inlinable public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
    /// The cross product.
    @inlinable public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
    /// Component-wise product.
    @inlinable public func scaled(by o: Vector3) -> Vector3 { Vector3(x * o.x, y * o.y, z * o.z) }
    /// The largest component's magnitude.
    @inlinable public var maxAbsComponent: Double { Swift.max(Swift.abs(x), Swift.abs(y), Swift.abs(z)) }

    /// The sum.
    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    /// The difference.
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    /// The negated vector.
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    /// Every component scaled by `s`.
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    /// Every component scaled by `s`.
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    /// Every component divided by `s`.
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    /// Adds `b` to `a`.
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    /// Subtracts `b` from `a`.
    @inlinable public static func -= (a: inout Vector3, b: Vector3) { a = a - b }

    public var description: String { "(\(x), \(y), \(z))" }

    // Encoded as a JSON array [x, y, z].
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        x = try c.decode(Double.self); y = try c.decode(Double.self); z = try c.decode(Double.self)
        if !c.isAtEnd {
            throw DecodedValueProblem.notThreeNumbers.decodingError(at: c.codingPath + [ElementIndex(c.currentIndex)])
        }
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x); try c.encode(y); try c.encode(z)
    }
}

/// The position in an array that a decoding error points at.
struct ElementIndex: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

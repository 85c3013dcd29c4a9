#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Thin wrappers so the pure targets need no Foundation.
@usableFromInline func Foundation_sin(_ x: Double) -> Double { sin(x) }
@usableFromInline func Foundation_cos(_ x: Double) -> Double { cos(x) }
@usableFromInline func Foundation_atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }

/// Degrees ↔ radians.
@inlinable package func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
@inlinable package func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

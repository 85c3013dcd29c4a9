#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// libm entry points under names that cannot collide with TiltboardCore's helpers.
@inline(__always) func sine(_ x: Double) -> Double { sin(x) }
@inline(__always) func cosine(_ x: Double) -> Double { cos(x) }
@inline(__always) func atan2Safe(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inline(__always) func naturalLog(_ x: Double) -> Double { log(x) }

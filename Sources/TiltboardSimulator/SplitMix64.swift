#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Counter-based random numbers: the value depends only on (seed, index), so re-reading a
/// sample gives the same bytes and a run is reproducible without carrying generator state.
enum SplitMix64 {
    /// The splitmix64 finaliser.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in (0, 1] for the stream `seed` at position `index`.
    @inline(__always)
    static func uniform(seed: UInt64, index: UInt64) -> Double {
        let bits = mix(seed &+ index &* 0x9E37_79B9_7F4A_7C15 &+ 0x632B_E59B_D9B4_E019)
        return (Double(bits >> 11) + 1) * 0x1.0p-53
    }

    /// A standard normal value for (seed, index), by Box–Muller on two derived uniforms.
    @inline(__always)
    static func gaussian(seed: UInt64, index: UInt64) -> Double {
        let u1 = uniform(seed: seed, index: index &* 2)
        let u2 = uniform(seed: seed, index: index &* 2 &+ 1)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// A uniform value in −1…1, used for drawing fixed per-part errors.
    static func symmetric(seed: UInt64, index: UInt64) -> Double {
        2 * uniform(seed: seed, index: index) - 1
    }
}

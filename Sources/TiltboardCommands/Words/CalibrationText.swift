// Fixed-point text for the calibration sentences (no Foundation formatting).
package enum CalibrationText {
    /// `x` rounded to `decimals` places, e.g. `fixed(-0.0234, 3)` → "-0.023".
    package static func fixed(_ x: Double, _ decimals: Int) -> String {
        guard x.isFinite else { return x.isNaN ? "nan" : (x > 0 ? "inf" : "-inf") }
        var factor = 1.0
        for _ in 0..<max(0, decimals) { factor *= 10 }
        let scaled = (Swift.abs(x) * factor).rounded()
        guard scaled < 9e15 else { return String(x) }
        let n = Int64(scaled)
        let whole = n / Int64(factor)
        let frac = n % Int64(factor)
        var s = (x < 0 && n != 0) ? "-" : ""
        s += String(whole)
        if decimals > 0 {
            let digits = String(frac)
            s += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return s
    }

    /// Axis name for messages, 0 → "X".
    package static func axis(_ index: Int) -> String { index == 0 ? "X" : (index == 1 ? "Y" : "Z") }
}

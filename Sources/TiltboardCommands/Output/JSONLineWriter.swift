import Tiltboard
import TiltboardCore

/// Builds one JSON object per line into a reusable byte buffer, without allocating per line.
///
/// The loop formats every tick's output; `String(describing: Double)` would allocate each time,
/// so numbers are written as fixed-point decimals with a chosen number of fraction digits.
package struct JSONLineWriter {
    package private(set) var bytes: [UInt8]
    /// Bit d − 1 set: the object open at depth d already has a member (so the next needs a comma).
    /// A bit set rather than an array: array element writes allocate in unoptimised builds.
    private var hasMember: UInt64 = 0
    private var depth = 0

    package init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its storage.
    package mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        hasMember = 0
        depth = 0
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        push()
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        if depth > 0 { depth -= 1 }
    }

    /// Starts a member whose value is an object; close it with `endObject()`.
    package mutating func beginObject(_ key: StaticString) {
        self.key(key)
        bytes.append(UInt8(ascii: "{"))
        push()
    }

    package mutating func number(_ key: StaticString, _ value: Double, fractionDigits: Int = 4) {
        self.key(key)
        appendNumber(value, fractionDigits: fractionDigits)
    }

    package mutating func integer(_ key: StaticString, _ value: Int) {
        self.key(key)
        appendInteger(value)
    }

    package mutating func bool(_ key: StaticString, _ value: Bool) {
        self.key(key)
        appendStatic(value ? "true" : "false")
    }

    /// `"key":[x,y,z]`.
    package mutating func vector(_ key: StaticString, _ x: Double, _ y: Double, _ z: Double, fractionDigits: Int = 5) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        appendNumber(x, fractionDigits: fractionDigits)
        bytes.append(UInt8(ascii: ","))
        appendNumber(y, fractionDigits: fractionDigits)
        bytes.append(UInt8(ascii: ","))
        appendNumber(z, fractionDigits: fractionDigits)
        bytes.append(UInt8(ascii: "]"))
    }

    /// `"key":"value"` for a value known to need no escaping (an identifier or a number text).
    package mutating func plainString(_ key: StaticString, _ value: String) {
        self.key(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func newline() { bytes.append(UInt8(ascii: "\n")) }

    /// A bare number, for text outside JSON; `padded` keeps trailing zeros (fixed columns).
    package mutating func rawNumber(_ value: Double, fractionDigits: Int, padded: Bool = false) {
        appendNumber(value, fractionDigits: fractionDigits, keepTrailingZeros: padded)
    }

    // MARK: - Pieces

    private mutating func separate() {
        guard depth > 0 else { return }
        let bit: UInt64 = 1 << UInt64(min(depth, 64) - 1)
        if hasMember & bit != 0 { bytes.append(UInt8(ascii: ",")) }
        hasMember |= bit
    }

    private mutating func push() {
        depth += 1
        hasMember &= ~(1 << UInt64(min(depth, 64) - 1))
    }

    private mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendStatic(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func appendStatic(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendInteger(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimumDigits: 1)
    }

    private mutating func appendDigits(_ value: UInt, minimumDigits: Int) {
        // At most 20 decimal digits in a UInt64.
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { buf in
            repeat {
                buf[count] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                count += 1
            } while v > 0 && count < 20
            while count < minimumDigits && count < 20 {
                buf[count] = UInt8(ascii: "0")
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buf[i]) }
        }
    }

    /// Fixed-point decimal with trailing zeros trimmed; non-finite values become `null`. A finite
    /// value too large for fixed point (beyond ±1.8e19 in units of the last digit) is written as
    /// Swift prints it (`1e+20`, `1.7976931348623157e+308`), which is a JSON number too.
    private mutating func appendNumber(_ value: Double, fractionDigits: Int, keepTrailingZeros: Bool = false) {
        guard value.isFinite else {
            appendStatic("null")
            return
        }
        let digits = max(0, min(fractionDigits, 9))
        var scale: Double = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 1.8e19 else {
            // Never on a working sensor; allocating here is fine.
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        var units = UInt(scaled)
        let unitScale = UInt(scale)
        if value < 0 && units > 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(units / unitScale, minimumDigits: 1)
        units %= unitScale
        guard units > 0 || (keepTrailingZeros && digits > 0) else { return }
        var width = digits
        while !keepTrailingZeros && units % 10 == 0 {
            units /= 10
            width -= 1
        }
        bytes.append(UInt8(ascii: "."))
        appendDigits(units, minimumDigits: width)
    }
}

import Tiltboard
import TiltboardCommands

/// `value` with `digits` decimals, right-aligned for columns.
func fixed(_ value: Double, _ digits: Int) -> String {
    let text = decimal(value, digits)
    return String(repeating: " ", count: max(0, digits + 4 - text.count)) + text
}

/// `value` with exactly `digits` decimals, unpadded: for numbers inside sentences.
func decimal(_ value: Double, _ digits: Int) -> String {
    var w = JSONLineWriter(capacity: 32)
    w.rawNumber(value, fractionDigits: digits, padded: true)
    return String(decoding: w.bytes, as: UTF8.self)
}

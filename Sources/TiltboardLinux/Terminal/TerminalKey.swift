/// A key press read from a terminal in raw mode.
package enum TerminalKey: Sendable, Equatable {
    /// A printable or control byte not named below.
    case character(UInt8)
    /// Esc on its own (not the start of an arrow or function key sequence).
    case escape
    /// Ctrl-C, arriving as a byte because raw mode turns signal keys off.
    case interrupt
    /// Ctrl-D, or the terminal went away (end of input).
    case endOfInput
    /// An escape sequence (arrow, function key) the caller has no use for.
    case sequence

    /// Splits what one `read` returned into keys. An Esc followed by `[` or `O` starts a
    /// sequence running to its final byte (0x40–0x7E); a lone Esc is the Esc key.
    package static func decode<Bytes: Collection>(_ bytes: Bytes) -> [TerminalKey] where Bytes.Element == UInt8 {
        let b = Array(bytes)
        var keys: [TerminalKey] = []
        var i = 0
        while i < b.count {
            let byte = b[i]
            switch byte {
            case 0x1B:
                if i + 1 < b.count, b[i + 1] == UInt8(ascii: "[") || b[i + 1] == UInt8(ascii: "O") {
                    // CSI parameters are 0x30–0x3F; the sequence ends at the first byte in 0x40–0x7E.
                    var j = i + 2
                    while j < b.count, !(0x40...0x7E).contains(b[j]) { j += 1 }
                    keys.append(.sequence)
                    i = j + 1
                    continue
                }
                keys.append(.escape)
            case 0x03: keys.append(.interrupt)
            case 0x04: keys.append(.endOfInput)
            default: keys.append(.character(byte))
            }
            i += 1
        }
        return keys
    }
}

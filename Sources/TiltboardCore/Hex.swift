extension FixedWidthInteger where Self: UnsignedInteger {
    /// The value as messages and data sheets write it, zero-padded to the type's width: `0x68`, `0x1d`.
    package var hex: String { hex(uppercase: false) }

    /// The value in hex, zero-padded to the type's width; board files and profiles write `0x1D`.
    package func hex(uppercase: Bool) -> String {
        let digits = String(self, radix: 16, uppercase: uppercase)
        return "0x" + String(repeating: "0", count: Swift.max(0, Self.bitWidth / 4 - digits.count)) + digits
    }
}

/// A byte as board files, profiles and data sheets write it: `0x68`, `0x1D`.
package func hexByte(_ b: UInt8) -> String {
    "0x" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
}

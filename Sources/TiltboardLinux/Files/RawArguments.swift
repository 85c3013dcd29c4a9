#if canImport(Glibc)
import Glibc
#endif

/// The command line as the kernel handed it over: bytes, which need not be UTF-8.
///
/// Swift decodes each argument as UTF-8, replacing what is not with U+FFFD, so a file whose name
/// is not UTF-8 (made on a system with another locale, or by a program that wrote raw bytes)
/// could not be opened from the command line. Every argument that did not decode is kept here by
/// its decoded text (and, for `--option=value`, by its value's), and a path given as that text
/// opens the file the bytes name.
public enum RawArguments {
    /// Decoded text → the bytes it came from, for arguments that were not UTF-8.
    private static let undecodable: [String: [CChar]] = {
        var table: [String: [CChar]] = [:]
        for i in 0..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[i] else { continue }
            let length = strlen(argument)
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: length)
            let text = String(decoding: bytes, as: UTF8.self)
            guard Array(text.utf8) != Array(bytes) else { continue }
            table[text] = Array(UnsafeBufferPointer(start: argument, count: length + 1))
            if text.hasPrefix("--"), let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let value = bytes[(equals + 1)...]
                table[String(decoding: value, as: UTF8.self)] = value.map { CChar(bitPattern: $0) } + [0]
            }
        }
        return table
    }()

    /// Calls `body` with the C path for `path`: the argument's own bytes when `path` is the
    /// decoded text of one that was not UTF-8, else `path` itself.
    public static func withCPath<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        if path.unicodeScalars.contains("\u{FFFD}"), let raw = undecodable[path] {
            return try raw.withUnsafeBufferPointer { try body($0.baseAddress!) }
        }
        return try path.withCString(body)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The command line as the kernel handed it over: bytes, which need not be UTF-8.
///
/// Swift decodes each argument as UTF-8, replacing what is not with U+FFFD, so a file whose name
/// is not UTF-8 (made on a system with another locale, or by a program that wrote raw bytes)
/// could not be opened from the command line. Every argument that did not decode is kept here by
/// its decoded text (and, for an option joined to its value by `=`, by the value's), and a path given as that text
/// opens the file the bytes name.
package enum RawArguments {
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
    /// decoded text of one that was not UTF-8 (or a path made from it, see `rawBytes`), else
    /// `path` itself.
    package static func withCPath<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        if let raw = rawBytes(path) {
            return try raw.withUnsafeBufferPointer { try body($0.baseAddress!) }
        }
        return try path.withCString(body)
    }
}

extension RawArguments {
    /// The C path for `path` when it is made from an argument that was not UTF-8: its folders
    /// (up to a `/`), and a name in one of them that starts with the argument's own (`<path>.bak`,
    /// a temporary file beside it) take the argument's bytes. Nil when `path` holds no replaced
    /// byte or shares no such part with one of those arguments.
    static func rawBytes(_ path: String) -> [CChar]? {
        guard path.unicodeScalars.contains("\u{FFFD}") else { return nil }
        if let raw = undecodable[path] { return raw }
        let slash = UInt8(ascii: "/")
        let parts = path.utf8.split(separator: slash, omittingEmptySubsequences: false).map { Array($0) }
        var best: (count: Int, bytes: [UInt8])?
        for (text, raw) in undecodable {
            // '/' is ASCII, kept as is by the decoding: the components correspond one to one.
            let textParts = text.utf8.split(separator: slash, omittingEmptySubsequences: false).map { Array($0) }
            let rawParts = raw.dropLast().map { UInt8(bitPattern: $0) }.split(separator: slash, omittingEmptySubsequences: false).map { Array($0) }
            guard textParts.count == rawParts.count else { continue }
            var out: [[UInt8]] = []
            var matched = 0
            for (i, part) in parts.enumerated() {
                if matched == i, i < textParts.count, part == textParts[i] {
                    out.append(rawParts[i]); matched += 1
                } else if matched == i, i < textParts.count, part.starts(with: textParts[i]) {
                    out.append(rawParts[i] + part.dropFirst(textParts[i].count)); matched += 1
                } else {
                    out.append(part)
                }
            }
            let replaced = zip(out.prefix(matched), parts.prefix(matched)).contains { $0 != $1 }
            if replaced, matched > (best?.count ?? 0) {
                best = (matched, Array(out.joined(separator: [slash])))
            }
        }
        return best.map { $0.bytes.map { CChar(bitPattern: $0) } + [0] }
    }
}

/// A path as an error line shows it: at most 80 characters (its end, the file's name, kept) and
/// every control character escaped (`\x01`), so a path typed by anyone stays one short line.
package func shownPath(_ path: String, limit: Int = 80) -> String {
    let clipped: String = path.count > limit ? "…" + String(path.suffix(limit - 1)) : path
    return escapingControls(clipped)
}

/// `text` with C0 and C1 control characters and DEL written as `\xNN` (a newline as `\n`).
package func escapingControls(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar == "\n" { out += "\\n" } else if scalar == "\t" { out += "\\t" } else if isControl(scalar) {
            let hex = String(scalar.value, radix: 16)
            out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}

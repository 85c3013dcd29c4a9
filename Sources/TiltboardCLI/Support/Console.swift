#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to standard output and standard error.
///
/// Lines go out whole and at once, so a program reading `--json` output line by line sees each
/// sample as soon as it is taken, and nothing is lost in a buffer when the process is killed.
enum Console {
    static func out(_ text: String) { write(1, text) }
    static func out(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write(1, $0) } }
    static func error(_ text: String) { write(2, text) }

    /// `tiltboard: warning: …` on stderr.
    static func warn(_ text: String) { error("tiltboard: warning: \(text)\n") }
    /// `tiltboard: …` on stderr: progress and notes that are not the command's output.
    static func note(_ text: String) { error("tiltboard: \(text)\n") }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }

    private static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }  // a closed pipe: the reader went away
            p += n
            left -= n
        }
    }
}

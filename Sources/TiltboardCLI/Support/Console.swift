import Synchronization
import Tiltboard
import TiltboardLinux

/// Unbuffered writes to standard output and standard error.
///
/// Lines go out whole and at once, so a program reading `--json` output line by line sees each
/// sample as soon as it is taken, and nothing is lost in a buffer when the process is killed.
/// A failed write stops the command (`OutputFailure`).
enum Console {
    static func out(_ text: String) { write(1, text) }
    static func out(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write(1, $0) } }
    static func out(_ bytes: UnsafeRawBufferPointer) { write(1, bytes) }
    static func error(_ text: String) { write(2, text) }

    /// `tiltboard: warning: …` on stderr.
    static func warn(_ text: String) { error("tiltboard: warning: \(text)\n") }
    /// `tiltboard: …` on stderr: progress and notes that are not the command's output.
    static func note(_ text: String) { error("tiltboard: \(text)\n") }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Set once a write to stdout (bit 0) or stderr (bit 1) failed: nothing more goes there.
    private static let failed = Atomic<UInt8>(0)

    private static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        let bit: UInt8 = fd == 1 ? 1 : 2
        guard failed.load(ordering: .relaxed) & bit == 0 else { return }
        guard let code = OutputFailure.write(fd: fd, bytes) else { return }
        failed.bitwiseOr(bit, ordering: .relaxed)
        // A closed pipe is a normal stop; any other failure is reported at exit (74).
        OutputFailure.report(fd == 1 ? "standard output" : "standard error", errno: code)
    }
}

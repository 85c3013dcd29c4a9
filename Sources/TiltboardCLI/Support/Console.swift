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
    /// `text` on stderr; under systemd each line carries `priority` for the journal.
    static func error(_ text: String, priority: JournalStream.Priority = .info) {
        write(2, toJournal ? JournalStream.prefixed(text, priority) : text)
    }

    /// `tiltboard: error: …` on stderr: why the command failed.
    static func failure(_ message: String) { error("tiltboard: error: \(errorLine(message))\n", priority: .error) }
    /// `tiltboard: warning: …` on stderr.
    static func warn(_ text: String) { error("tiltboard: warning: \(text)\n", priority: .warning) }
    /// `tiltboard: …` on stderr: progress and notes that are not the command's output; `priority`
    /// marks a note the journal should file as a warning (a lost sensor).
    static func note(_ text: String, priority: JournalStream.Priority = .info) {
        error("tiltboard: \(text)\n", priority: priority)
    }

    /// Whether stderr is systemd's journal stream (a service's log), read once.
    private static let toJournal = JournalStream.isConnected(fd: 2)

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
        OutputFailure.report(fd == 1 ? .standardOutput : .standardError, errno: code)
    }
}

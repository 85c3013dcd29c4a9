#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether a file descriptor is systemd's journal stream, and the priority prefix its lines take.
///
/// systemd.exec(5), `$JOURNAL_STREAM`: set to "DEVICE:INODE" of the journal stream when a unit's
/// stdout or stderr is connected to the journal; a program compares it with `fstat()` of the
/// descriptor (the variable is inherited by children whose descriptors may point elsewhere).
/// sd-daemon(3): a line starting `<N>` is logged with syslog priority N (3 error, 4 warning,
/// 6 info) when the unit keeps `SyslogLevelPrefix=yes`, the default.
package enum JournalStream {
    /// Syslog priorities (syslog(3), sd-daemon(3)) of the lines tiltboard writes.
    package enum Priority: Int, Sendable {
        case error = 3
        case warning = 4
        case info = 6

        /// The sd-daemon(3) prefix: `<3>`, `<4>`, `<6>`.
        package var prefix: String { "<\(rawValue)>" }
    }

    /// True when `fd` is the journal stream this process's $JOURNAL_STREAM names.
    package static func isConnected(fd: Int32) -> Bool {
        isConnected(fd: fd, journalStream: getenv("JOURNAL_STREAM").map { String(cString: $0) })
    }

    /// True when `fd` is the journal stream `value` ($JOURNAL_STREAM) names. A missing, malformed
    /// or stale value is false.
    package static func isConnected(fd: Int32, journalStream value: String?) -> Bool {
        guard let value, value.utf8.count <= 64 else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// `text` with each line prefixed by `priority`'s marker; a trailing newline stays last.
    package static func prefixed(_ text: String, _ priority: Priority) -> String {
        var out = ""
        var atLineStart = true
        for character in text {
            if atLineStart { out += priority.prefix }
            out.append(character)
            atLineStart = character == "\n"
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// A terminal's size in character cells.
package struct TerminalSize: Sendable, Equatable, CustomStringConvertible {
    /// Width in character cells.
    package var columns: Int
    /// Height in lines.
    package var rows: Int

    /// A size of `columns`×`rows` cells.
    package init(columns: Int, rows: Int) {
        self.columns = columns; self.rows = rows
    }

    /// `80×24`.
    package var description: String { "\(columns)×\(rows)" }

    /// The window size the kernel holds for the terminal on `fd` (TIOCGWINSZ); nil when `fd` is
    /// not a terminal or the size was never set (0×0, e.g. a bare serial line).
    package static func of(fd: Int32) -> TerminalSize? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
    }

    /// `COLUMNS` and `LINES` from the environment, when both are integers of 1…9999 (the most a
    /// `winsize` field of a real terminal comes near); anything else is ignored, as if unset.
    package static func fromEnvironment() -> TerminalSize? {
        guard let c = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }),
              let r = getenv("LINES").flatMap({ Int(String(cString: $0)) }),
              (1...9999).contains(c), (1...9999).contains(r) else { return nil }
        return TerminalSize(columns: c, rows: r)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The termios flags of a terminal, compared before and after a program used it.
package struct TerminalModes: Sendable, Equatable {
    /// c_iflag, c_oflag, c_cflag and c_lflag as the kernel holds them.
    package var inputFlags: UInt32
    package var outputFlags: UInt32
    package var controlFlags: UInt32
    package var localFlags: UInt32
    /// VMIN and VTIME: how a non-canonical read waits.
    package var minimumBytes: UInt8
    package var timeoutDeciseconds: UInt8

    /// The modes of the terminal on `fd` (tcgetattr).
    package static func of(fd: Int32) throws -> TerminalModes {
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else {
            let e = errno
            throw TerminalError(.noTerminalModes(descriptor: fd), errno: e)
        }
        return TerminalModes(t)
    }

    init(_ t: termios) {
        inputFlags = UInt32(t.c_iflag); outputFlags = UInt32(t.c_oflag)
        controlFlags = UInt32(t.c_cflag); localFlags = UInt32(t.c_lflag)
        var cc = t.c_cc
        (minimumBytes, timeoutDeciseconds) = withUnsafeBytes(of: &cc) { ($0[Int(VMIN)], $0[Int(VTIME)]) }
    }

    /// Line editing on: input arrives a line at a time.
    package var isCanonical: Bool { localFlags & UInt32(ICANON) != 0 }
    /// Typed characters are echoed.
    package var echoes: Bool { localFlags & UInt32(ECHO) != 0 }
    /// Ctrl-C, Ctrl-\ and Ctrl-Z raise signals.
    package var generatesSignals: Bool { localFlags & UInt32(ISIG) != 0 }
}

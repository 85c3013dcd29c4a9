#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A terminal switched to raw mode for a full-screen program, and put back exactly as it was.
///
/// `enter()` saves the termios settings, turns off line editing, echo and signal keys (so
/// Ctrl-C and Ctrl-Z arrive as bytes and can never leave the terminal raw behind a suspended
/// program), hides the cursor and switches to the alternate screen. `restore()` undoes all of
/// it; it is idempotent and callable from any thread, so the normal exit, an error path and a
/// signal handler can all call it. Frames written with `write` after `restore()` are dropped,
/// so a late frame cannot land on the restored screen.
package final class RawTerminal: Sendable {
    /// Where keys are read from (stdin).
    package let input: Int32
    /// Where the screen is drawn (stdout).
    package let output: Int32

    private struct State {
        var saved: termios
        var active = false
        var alternateScreen = false
    }

    private let state: Mutex<State>

    /// Checks that `input` and `output` are terminals and saves `input`'s settings.
    package init(input: Int32 = 0, output: Int32 = 1) throws {
        for fd in [input, output] where isatty(fd) == 0 {
            throw TerminalError(.notATerminal(descriptor: fd), errno: errno)
        }
        var t = termios()
        guard tcgetattr(input, &t) == 0 else {
            let e = errno
            throw TerminalError(.readSettings, errno: e)
        }
        self.input = input
        self.output = output
        state = Mutex(State(saved: t))
    }

    /// True between `enter()` and `restore()`.
    package var isActive: Bool { state.withLock { $0.active } }

    /// Raw mode, hidden cursor, and (optionally) the alternate screen, cleared once.
    package func enter(alternateScreen: Bool = true) throws {
        try state.withLock { s in
            guard !s.active else { return }
            var raw = s.saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
            raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            guard tcsetattr(input, TCSANOW, &raw) == 0 else {
                let e = errno
                throw TerminalError(.rawMode, errno: e)
            }
            s.active = true
            s.alternateScreen = alternateScreen
            writeAll(output, alternateScreen ? "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[H" : "\u{1B}[?25l\u{1B}[2J\u{1B}[H")
        }
    }

    /// The saved settings back, attributes reset, cursor shown, alternate screen left.
    package func restore() {
        state.withLock { s in
            guard s.active else { return }
            s.active = false
            var saved = s.saved
            _ = tcsetattr(input, TCSANOW, &saved)
            writeAll(output, s.alternateScreen ? "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l" : "\u{1B}[0m\u{1B}[?25h\r\n")
        }
    }

    /// Writes `bytes` in one `write` call (more only if the kernel takes part of it) while the
    /// terminal is raw; returns false, writing nothing, once it has been restored.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { s in
            guard s.active else { return false }
            bytes.withUnsafeBytes { writeAll(output, $0) }
            return true
        }
    }

    /// Waits up to `timeoutMilliseconds` for input and returns the keys it carried; empty on
    /// timeout. `.endOfInput` when the terminal hung up.
    package func readKeys(timeoutMilliseconds: Int32) throws -> [TerminalKey] {
        var p = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return [] }
            let e = errno
            throw TerminalError(.waitForKeys, errno: e)
        }
        if ready == 0 { return [] }
        if p.revents & Int16(POLLIN) == 0 { return [.endOfInput] }  // POLLHUP/POLLERR only
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return [] }
            if errno == EIO { return [.endOfInput] }  // the terminal's other side closed
            let e = errno
            throw TerminalError(.readKeys, errno: e)
        }
        if n == 0 { return [.endOfInput] }
        return TerminalKey.decode(buffer[0..<n])
    }

    /// What one wait for a byte on a descriptor gave.
    package enum ByteRead: Equatable, Sendable {
        case byte(UInt8)
        /// Nothing within the timeout, or a signal arrived meanwhile.
        case nothingYet
        /// End of file, or nothing that can be read there.
        case endOfInput
    }

    /// Waits up to `timeoutMilliseconds` for one byte on `fd` (standard input: a prompt's answer).
    package static func readByte(from fd: Int32, timeoutMilliseconds: Int32) -> ByteRead {
        var waiter = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&waiter, 1, timeoutMilliseconds)
        if ready < 0 { return errno == EINTR ? .nothingYet : .endOfInput }
        if ready == 0 { return .nothingYet }
        var byte: UInt8 = 0
        let n = Glibc.read(fd, &byte, 1)
        if n < 0 { return errno == EINTR || errno == EAGAIN ? .nothingYet : .endOfInput }
        return n == 0 ? .endOfInput : .byte(byte)
    }

    /// True when `fd` is a terminal.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The terminal's size: the kernel's window size, else `COLUMNS`/`LINES`.
    package func size() -> TerminalSize? {
        TerminalSize.of(fd: output) ?? TerminalSize.of(fd: input) ?? TerminalSize.fromEnvironment()
    }
}

private func writeAll(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
}

/// All of `bytes`; a terminal that is gone leaves nothing to draw on, so a failure ends it quietly.
private func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
    _ = OutputFailure.write(fd: fd, bytes)
}

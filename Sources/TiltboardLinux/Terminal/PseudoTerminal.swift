#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal pair: a program given `slave` as its terminal is driven and watched
/// through `master` (scripted sessions, tests of full-screen commands).
package final class PseudoTerminal {
    /// The controlling side: what is written here is typed into the program, what the program
    /// draws is read here.
    package let master: Int32
    /// The terminal side the program uses as stdin/stdout/stderr.
    package let slave: Int32
    /// `/dev/pts/N`.
    package let slavePath: String

    /// Opens a new pair through `/dev/ptmx` (what posix_openpt does on Linux; glibc's
    /// declaration of it is hidden from Swift); neither side becomes this process's controlling
    /// terminal.
    package init() throws {
        let m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard m >= 0 else { throw Self.failure(.openPseudoTerminalMaster) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(m, Self.setLock, &unlock) == 0, ioctl(m, Self.getNumber, &number) == 0 else {
            let error = Self.failure(.unlockPseudoTerminal)
            close(m)
            throw error
        }
        let path = "/dev/pts/\(number)"
        let s = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard s >= 0 else {
            let error = Self.failure(.openPseudoTerminal(path: path))
            close(m)
            throw error
        }
        master = m
        slave = s
        slavePath = path
    }

    // <asm-generic/ioctls.h>: TIOCSPTLCK = _IOW('T', 0x31, int) (unlockpt),
    // TIOCGPTN = _IOR('T', 0x30, unsigned int) (ptsname); function-like macros Swift cannot import.
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    deinit {
        close(master)
        close(slave)
    }

    /// Sets the window size the program will see (TIOCSWINSZ).
    package func setSize(_ size: TerminalSize) throws {
        var w = winsize(ws_row: UInt16(size.rows), ws_col: UInt16(size.columns), ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(master, UInt(TIOCSWINSZ), &w) == 0 else { throw Self.failure(.setWindowSize) }
    }

    /// Types `bytes` into the program.
    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in retryingEINTR { write(master, buffer.baseAddress! + offset, bytes.count - offset) } }
            guard n > 0 else { throw Self.failure(.writePseudoTerminal) }
            offset += n
        }
    }

    /// What the program wrote, waiting up to `timeoutMilliseconds`; empty on timeout, nil once
    /// the program's side is closed.
    package func read(timeoutMilliseconds: Int32) -> [UInt8]? {
        var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, timeoutMilliseconds)
        if ready <= 0 { return [] }
        var buffer = [UInt8](repeating: 0, count: 16384)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        if n < 0 { return errno == EINTR || errno == EAGAIN ? [] : nil }
        if n == 0 { return nil }
        return Array(buffer[0..<n])
    }

    private static func failure(_ step: TerminalError.Step) -> TerminalError {
        TerminalError(step, errno: errno)
    }
}

/// A terminal could not be used: not a terminal, or a termios/ioctl call failed. It carries the
/// step and the errno; the program that shows it words it.
package struct TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The step that failed.
    package enum Step: Sendable, Equatable {
        /// `isatty` said the descriptor is no terminal.
        case notATerminal(descriptor: Int32)
        /// `tcgetattr` refused the descriptor: no terminal (the errno says why).
        case noTerminalModes(descriptor: Int32)
        /// Reading the terminal's settings (`tcgetattr`).
        case readSettings
        /// Switching the terminal to raw mode (`tcsetattr`).
        case rawMode
        /// Waiting for key presses (`poll`).
        case waitForKeys
        /// Reading key presses (`read`).
        case readKeys
        /// Opening `/dev/ptmx`.
        case openPseudoTerminalMaster
        /// Unlocking the pseudo-terminal (`unlockpt`).
        case unlockPseudoTerminal
        /// Opening the pseudo-terminal's other end at `path`.
        case openPseudoTerminal(path: String)
        /// Setting the pseudo-terminal's size (`TIOCSWINSZ`).
        case setWindowSize
        /// Writing to the pseudo-terminal.
        case writePseudoTerminal
    }

    /// What failed.
    package var step: Step
    /// The errno of the failed call, 0 when none.
    package var errno: Int32

    /// A failure of `step` with `errno`.
    package init(_ step: Step, errno: Int32 = 0) {
        self.step = step; self.errno = errno
    }

    /// The step and the errno, for a log; a program words it for people.
    package var description: String { "TerminalError(\(step), errno: \(errno))" }
}

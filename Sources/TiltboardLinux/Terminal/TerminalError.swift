/// A terminal could not be used: not a terminal, or a termios/ioctl call failed.
package struct TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed and what to do about it.
    package var message: String
    /// The errno of the failed call, 0 when none.
    package var errno: Int32

    /// An error saying `message`, from a call that failed with `errno`.
    package init(_ message: String, errno: Int32 = 0) {
        self.message = message; self.errno = errno
    }

    package var description: String { message }
}

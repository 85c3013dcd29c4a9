/// A terminal could not be used: not a terminal, or a termios/ioctl call failed.
public struct TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed and what to do about it.
    public var message: String
    /// The errno of the failed call, 0 when none.
    public var errno: Int32

    /// An error saying `message`, from a call that failed with `errno`.
    public init(_ message: String, errno: Int32 = 0) {
        self.message = message; self.errno = errno
    }

    public var description: String { message }
}

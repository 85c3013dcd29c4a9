/// A GPIO line requested as an output, e.g. the vibration motor's driver transistor.
///
/// `active` is the logical level: with an active-low line, `true` drives the pin low.
/// Implemented by libgpiod (`TiltboardLinux`) and the simulator.
public protocol GPIOOutputLine: AnyObject, Sendable {
    /// Names the line in messages: `pinctrl-bcm2711 line 17 (GPIO17)`.
    var name: String { get }
    /// Drives the line active (true) or inactive (false), honouring its active-low setting.
    func set(active: Bool) throws
    /// Drives the line inactive and gives it back to the kernel. Safe to call more than once.
    func release()
}

/// A GPIO failure with the fix in its message.
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong with a GPIO line.
    public enum Kind: String, Sendable, Equatable {
        /// The chip or line does not exist, the line is held by another program, this user may not open it, or the kernel failed the request.
        case chipNotFound, lineNotFound, lineBusy, permissionDenied, io
    }
    /// What went wrong.
    public var kind: Kind
    /// The failure with the chip and line it concerns.
    public var message: String

    /// An error of `kind`, described by `message`.
    public init(kind: Kind, message: String) {
        self.kind = kind; self.message = message
    }

    public var description: String { message }
}

/// Names a GPIO line on its chip: by offset (`17`) or by line name (`"GPIO17"`).
public enum GPIOLineID: Sendable, Equatable, CustomStringConvertible {
    /// The line at this offset on its chip.
    case offset(Int)
    /// The line with this name (`GPIO17`) on its chip.
    case name(String)

    public var description: String {
        switch self {
        case let .offset(n): return "line \(n)"
        case let .name(s): return "line \(s)"
        }
    }
}

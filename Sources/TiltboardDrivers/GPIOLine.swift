/// A GPIO line requested as an output, e.g. the vibration motor's driver transistor.
///
/// `active` is the logical level: with an active-low line, `true` drives the pin low.
/// Implemented by libgpiod (`TiltboardLinux`) and the simulator.
public protocol GPIOOutputLine: AnyObject, Sendable {
    /// Names the line in messages: `pinctrl-bcm2711 line 17 (GPIO17)`.
    var name: String { get }
    func set(active: Bool) throws
    /// Drives the line inactive and gives it back to the kernel. Safe to call more than once.
    func release()
}

/// A GPIO failure with the fix in its message.
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case chipNotFound, lineNotFound, lineBusy, permissionDenied, io
    }
    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind; self.message = message
    }

    public var description: String { message }
}

/// Names a GPIO line on its chip: by offset (`17`) or by line name (`"GPIO17"`).
public enum GPIOLineID: Sendable, Equatable, CustomStringConvertible {
    case offset(Int)
    case name(String)

    public var description: String {
        switch self {
        case let .offset(n): return "line \(n)"
        case let .name(s): return "line \(s)"
        }
    }
}

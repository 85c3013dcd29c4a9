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

/// A GPIO failure: its kind and the fields that say where (`problem`). It carries no sentence:
/// the program that shows it words it.
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad kind of failure, for a program that only needs to decide what to do.
    public enum Kind: String, Sendable, Equatable {
        /// The chip or line does not exist, the line is held by another program, this user may not open it, or the kernel failed the request.
        case chipNotFound, lineNotFound, lineBusy, permissionDenied, io
    }

    /// Exactly what went wrong, with the fields a message needs.
    public enum Problem: Sendable, Equatable {
        /// No GPIO chip at all in `directory` (a machine without a GPIO driver).
        case noChips(spec: String, directory: String)
        /// No chip matches `spec` (a label, name or path); `present` are the chips there are.
        case chipNotFound(spec: String, present: [GPIOChipSummary])
        /// `path` is there but is not a GPIO chip; the kernel's errno.
        case notAChip(path: String, errno: Int32)
        /// This process may not open the chip at `path`.
        case permissionDenied(path: String)
        /// The chip has no line at `offset`.
        case noLineOffset(Int, chip: GPIOChipSummary)
        /// The chip has no line called `name`.
        case noLineNamed(String, chip: GPIOChipSummary)
        /// Another holder has the line: `consumer` is the name it gave, nil when it gave none.
        case lineBusy(line: String, consumer: String?)
        /// The simulated motor line is held by another process writing `motorLog`.
        case simulatedLineBusy(motorLog: String)
        /// A step on `line` (a line or a chip) the kernel refused with `errno`.
        case failed(GPIOStep, line: String, errno: Int32)
        /// The line was released and then used again.
        case released(line: String)
        /// A simulated line was released and then driven (`waiting` false) or waited on (true).
        case simulatedReleased(line: String, waiting: Bool)
        /// The eventfd that stops a wait on a line could not be made.
        case wakeStop(errno: Int32)
        /// A failure of a line driver outside this package, with its own words.
        case other(String)
    }

    /// What went wrong.
    public var problem: Problem

    /// A GPIO failure of `problem`.
    public init(_ problem: Problem) { self.problem = problem }

    /// The broad kind of `problem`.
    public var kind: Kind {
        switch problem {
        case .noChips, .chipNotFound, .notAChip: return .chipNotFound
        case .permissionDenied: return .permissionDenied
        case .noLineOffset, .noLineNamed: return .lineNotFound
        case .lineBusy, .simulatedLineBusy: return .lineBusy
        case .failed, .released, .simulatedReleased, .wakeStop, .other: return .io
        }
    }

    /// The problem, for a log; a program words it for people.
    public var description: String { "GPIOError(\(problem))" }
}

/// A GPIO chip as a failure names it: `gpiochip0`, labelled `pinctrl-bcm2711`, 58 lines.
public struct GPIOChipSummary: Sendable, Equatable {
    /// Kernel device name, `gpiochipN`.
    public var name: String
    /// Driver label (`pinctrl-rp1` on a Pi 5).
    public var label: String
    /// Number of lines; offsets run from 0 to `lineCount - 1`.
    public var lineCount: Int

    /// A chip of `lineCount` lines.
    public init(name: String, label: String, lineCount: Int) {
        self.name = name; self.label = label; self.lineCount = lineCount
    }
}

/// A step on a GPIO line or chip that can fail.
public enum GPIOStep: Sendable, Equatable {
    /// Opening the GPIO chip.
    case openChip
    /// Reading the information of the line at this offset.
    case readLine(Int)
    /// Finding the line with this name on the chip.
    case lookUpLine(String)
    /// Requesting the line as an output.
    case requestOutput
    /// Requesting the line as an input with edge events.
    case requestEdgeEvents
    /// Driving the output's level.
    case setLevel
    /// Reading the input's level.
    case readLevel
    /// Waiting for an edge on the input.
    case waitForEdge
    /// Discarding edges already queued on the input.
    case discardEdges
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

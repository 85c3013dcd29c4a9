/// What kind of failure an error of this package is, whichever layer raised it: what a program
/// can act on without reading the message (try again, ask for access, fix a file), and what the
/// command-line tool turns into its exit status.
public enum ErrorCategory: String, Sendable, CaseIterable {
    /// A setting, argument or request that cannot be taken as given.
    case invalidRequest
    /// A file's content (a board file, a profile, a script) is wrong.
    case invalidData
    /// A bus, device, line or chip that is not there or does not answer.
    case unavailable
    /// A fault in this package rather than in its surroundings.
    case internalFailure
    /// An output that cannot be created where it was asked for.
    case cannotCreate
    /// A transfer, read or write that failed on the way.
    case io
    /// Worth trying again as it is (a calibration that found no still stretch).
    case temporary
    /// The system refused access.
    case permissionDenied
}

/// An error that names its `ErrorCategory`; its description says what failed and where.
public protocol CategorizedError: Error, CustomStringConvertible {
    /// Which kind of failure this is, for a caller to act on without reading the message.
    var category: ErrorCategory { get }
}

extension CalibrationError: CategorizedError {
    /// A calibration that could not finish is worth trying again.
    public var category: ErrorCategory { .temporary }
}

extension TiltControllerSettingsError: CategorizedError {
    /// A controller setting out of its range, as given.
    public var category: ErrorCategory { .invalidRequest }
}

extension HapticEffectError: CategorizedError {
    /// An effect name, pattern or strength that cannot be played.
    public var category: ErrorCategory { .invalidRequest }
}

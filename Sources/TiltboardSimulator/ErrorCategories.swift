import TiltboardCore

extension MotionScriptError: CategorizedError {
    /// A motion script's or trace's content is wrong.
    public var category: ErrorCategory { .invalidData }
}

extension TraceLoadStopped: CategorizedError {
    /// Not a failure: a stop was requested while the trace loaded.
    package var category: ErrorCategory { .temporary }
}

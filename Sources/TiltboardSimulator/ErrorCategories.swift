import TiltboardCore

extension MotionScriptError: CategorizedError {
    /// A motion script's or trace's content is wrong.
    public var category: ErrorCategory { .invalidData }
}

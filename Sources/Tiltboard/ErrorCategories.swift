#if canImport(Glibc)
import Glibc
#endif
import TiltboardCore

extension BoardFileError: CategorizedError {
    public var category: ErrorCategory {
        errno == EACCES || errno == EPERM ? .permissionDenied : .invalidData
    }
}

extension ProfileError: CategorizedError {
    public var category: ErrorCategory { kind == .permissionDenied ? .permissionDenied : .invalidData }
}

extension SensorLostError: CategorizedError {
    public var category: ErrorCategory { .io }
}

extension TraceFileError: CategorizedError {
    public var category: ErrorCategory { .io }
}

extension FaceTimeout: CategorizedError {
    public var category: ErrorCategory { .temporary }
}

extension CalibrationProcedureError: CategorizedError {
    public var category: ErrorCategory { .temporary }
}

extension CalibrationStopped: CategorizedError {
    /// Stopped before it ended: worth trying again.
    public var category: ErrorCategory { .temporary }
}

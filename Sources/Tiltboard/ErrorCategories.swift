#if canImport(Glibc)
import Glibc
#endif
import TiltboardCore
import TiltboardLinux

extension BoardFileError: CategorizedError {
    public var category: ErrorCategory {
        if let problem = fileProblem { return problem.category }
        return errno == EACCES || errno == EPERM ? .permissionDenied : .invalidData
    }
}

extension MotorLogError: CategorizedError {
    /// As the file problem; a log whose folder is missing is an output that cannot be created
    /// (73), as for `record --out`.
    public var category: ErrorCategory {
        errno == ENOENT || errno == ENOTDIR ? .cannotCreate : problem.category
    }
}

extension ProfileError: CategorizedError {
    public var category: ErrorCategory { kind.fileProblem?.category ?? .invalidData }
}

extension SensorLostError: CategorizedError {
    public var category: ErrorCategory { .io }
}

extension LoopGroupError: CategorizedError {
    /// Boards chosen together that one schedule cannot run: change the choice.
    public var category: ErrorCategory { .invalidRequest }
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

extension ProfileNotAByte: CategorizedError {
    /// A profile's contents, as `ProfileError.Problem.notAByte` says.
    package var category: ErrorCategory { .invalidData }
}

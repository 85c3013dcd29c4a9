#if canImport(Glibc)
import Glibc
#endif
import TiltboardCore

extension UDPSenderError: CategorizedError {
    /// The destination given cannot be sent to.
    package var category: ErrorCategory { .invalidRequest }
}

extension UInputError: CategorizedError {
    package var category: ErrorCategory {
        switch kind {
        case .missing: return .unavailable
        case .permissionDenied: return .permissionDenied
        case .io: return .io
        }
    }
}

extension OutputFileError: CategorizedError {
    package var category: ErrorCategory {
        switch kind {
        case .exists, .overwriteNotAsked, .refused: return .cannotCreate
        case .permission: return .permissionDenied
        case .closedDescriptor, .interrupted, .io: return .io
        }
    }
}

extension AtomicFileError: CategorizedError {
    package var category: ErrorCategory {
        switch errno {
        case EACCES, EPERM, EROFS: return .permissionDenied
        default: return .io
        }
    }
}

extension NotARegularFile: CategorizedError {
    /// A path that should name a regular file names a folder, a FIFO, a socket or a device.
    package var category: ErrorCategory { FileProblem.notRegular.category }
}

extension TerminalError: CategorizedError {
    /// The terminal is not one, or failed on the way.
    package var category: ErrorCategory { .io }
}

extension SignalWatcherError: CategorizedError {
    /// The process could not set up its own signal handling.
    package var category: ErrorCategory { .internalFailure }
}

extension KernelDriverBoundError: CategorizedError {
    /// The device is there but a kernel driver holds it: unavailable to this program (69).
    package var category: ErrorCategory { .unavailable }
}

import TiltboardCore

extension I2CError: CategorizedError {
    /// A missing bus or device is unavailable, a refused open is a permission problem, the rest is I/O.
    public var category: ErrorCategory {
        switch kind {
        case .noSuchBus, .noAcknowledgeAddress: return .unavailable
        case .permissionDenied: return .permissionDenied
        case .noAcknowledgeData, .bus, .arbitrationLost, .timeout, .unsupported, .other: return .io
        }
    }
}

extension GPIOError: CategorizedError {
    /// A missing or busy line is unavailable, a refused one a permission problem, the rest I/O.
    public var category: ErrorCategory {
        switch kind {
        case .chipNotFound, .lineNotFound, .lineBusy: return .unavailable
        case .permissionDenied: return .permissionDenied
        case .io: return .io
        }
    }
}

extension SensorError: CategorizedError {
    /// A wrong chip is unavailable, an unsupported setting an invalid request, the rest I/O.
    public var category: ErrorCategory {
        switch self {
        case .wrongChip: return .unavailable
        case .verifyFailed, .configurationLost: return .io
        case .unsupportedSetting: return .invalidRequest
        }
    }
}

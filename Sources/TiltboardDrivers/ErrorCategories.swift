import TiltboardCore

extension I2CError: CategorizedError {
    public var category: ErrorCategory {
        switch kind {
        case .noSuchBus, .noAcknowledgeAddress: return .unavailable
        case .permissionDenied: return .permissionDenied
        case .noAcknowledgeData, .bus, .arbitrationLost, .timeout, .unsupported, .other: return .io
        }
    }
}

extension GPIOError: CategorizedError {
    public var category: ErrorCategory {
        switch kind {
        case .chipNotFound, .lineNotFound, .lineBusy: return .unavailable
        case .permissionDenied: return .permissionDenied
        case .io: return .io
        }
    }
}

extension SensorError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .wrongChip: return .unavailable
        case .verifyFailed, .configurationLost: return .io
        case .unsupportedSetting: return .invalidRequest
        }
    }
}

import ArgumentParser
import Tiltboard
#if canImport(Glibc)
import Glibc
#endif

/// sysexits(3) codes the CLI promises.
enum SysExit {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let unavailable: Int32 = 69
    static let cantCreate: Int32 = 73
    static let software: Int32 = 70
    static let ioError: Int32 = 74
    /// Worth trying again: a calibration that found no still stretch or fitted poorly.
    static let tempFail: Int32 = 75
    static let noPermission: Int32 = 77
}

/// An error the CLI reports as one line with a chosen exit code.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var code: Int32
    var description: String { message }
}

/// The exit code and one-line message for an error of this package; nil for any other error.
func exitStatus(for error: Error) -> (code: Int32, message: String)? {
    switch error {
    case let e as CLIError:
        return (e.code, e.message)
    case let e as I2CError:
        switch e.kind {
        case .noSuchBus, .noAcknowledgeAddress: return (SysExit.unavailable, e.description)
        case .permissionDenied: return (SysExit.noPermission, e.description)
        default: return (SysExit.ioError, e.description)
        }
    case let e as GPIOError:
        switch e.kind {
        case .chipNotFound, .lineNotFound, .lineBusy: return (SysExit.unavailable, e.description)
        case .permissionDenied: return (SysExit.noPermission, e.description)
        case .io: return (SysExit.ioError, e.description)
        }
    case let e as SensorError:
        switch e {
        case .wrongChip: return (SysExit.unavailable, e.description)
        case .verifyFailed, .configurationLost: return (SysExit.ioError, e.description)
        case .unsupportedSetting: return (SysExit.usage, e.description)
        }
    case let e as SensorLostError:
        return (SysExit.ioError, e.description)
    case let e as CalibrationError:
        return (SysExit.tempFail, e.description)
    case let e as FaceTimeout:
        return (SysExit.tempFail, e.description)
    case let e as CalibrationProcedureError:
        return (SysExit.tempFail, e.description)
    case let e as BoardFileError:
        return (SysExit.dataError, e.description)
    case let e as ProfileError:
        return (SysExit.dataError, e.description)
    case let e as UDPSenderError:
        return (SysExit.usage, e.description)
    case let e as OutputFileError:
        switch e.kind {
        case .exists, .refused: return (SysExit.cantCreate, e.message)
        case .permission: return (SysExit.noPermission, e.message)
        case .closedDescriptor, .interrupted, .io: return (SysExit.ioError, e.message)
        }
    case let e as AtomicFileError:
        switch e.errno {
        case EACCES, EPERM, EROFS: return (SysExit.noPermission, e.description)
        default: return (SysExit.ioError, e.description)
        }
    default:
        return nil
    }
}

/// Parses and runs `Root`, printing every failure as `tiltboard: error: …` with a sysexits code.
func runMapped<Root: ParsableCommand>(_ root: Root.Type) {
    let command: ParsableCommand
    do {
        command = try Root.parseAsRoot()
    } catch {
        // Help, version and usage errors: ArgumentParser's own text and codes (usage → 64).
        Root.exit(withError: error)
    }
    do {
        var mutable = command
        try requireStandardOutput(for: command)
        try mutable.run()
    } catch {
        guard let (code, message) = exitStatus(for: error) else {
            // ArgumentParser's own errors (help, validation, ExitCode) keep their handling.
            Root.exit(withError: error)
        }
        Console.error("tiltboard: error: \(message)\n")
        exit(code)
    }
}

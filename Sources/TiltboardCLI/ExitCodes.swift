import ArgumentParser
import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
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
        return (e.errno == EACCES || e.errno == EPERM ? SysExit.noPermission : SysExit.dataError, e.description)
    case let e as ProfileError:
        return (e.kind == .permissionDenied ? SysExit.noPermission : SysExit.dataError, e.description)
    case let e as UDPSenderError:
        return (SysExit.usage, e.description)
    case let e as UInputError:
        switch e.kind {
        case .missing: return (SysExit.unavailable, e.description)
        case .permissionDenied: return (SysExit.noPermission, e.description)
        case .io: return (SysExit.ioError, e.description)
        }
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

/// Parses and runs `Root`, printing every failure as one `tiltboard: error: …` line with a
/// sysexits code. A failed write of the output ends the command too (`OutputFailure`): quietly
/// with 0 when the reader went away, with 74 otherwise.
func runMapped<Root: ParsableCommand>(_ root: Root.Type) {
    OutputFailure.ignoreBrokenPipeSignal()
    let arguments = joiningNegativeValues(Array(CommandLine.arguments.dropFirst()))
    let command: ParsableCommand
    do {
        try checkHelpTopic(Root.self, arguments)
        command = try Root.parseAsRoot(arguments)
    } catch {
        // Help and version requests keep ArgumentParser's own text and exit 0.
        guard Root.exitCode(for: error) != .success else { Root.exit(withError: error) }
        usageFailure(Root.self, Root.message(for: error), arguments)
    }
    do {
        var mutable = command
        try requireStandardOutput(for: command)
        try mutable.run()
    } catch let error as ValidationError {
        usageFailure(Root.self, error.message, arguments)
    } catch {
        guard let (code, message) = exitStatus(for: error) else {
            // ArgumentParser's own errors (ExitCode, CleanExit) keep their handling.
            Root.exit(withError: error)
        }
        Console.error("tiltboard: error: \(message)\n")
        exit(code)
    }
    if let failure = OutputFailure.first {
        if failure.readerWentAway { exit(SysExit.ok) }
        Console.error("tiltboard: error: \(failure)\n")
        exit(SysExit.ioError)
    }
}

/// `--rate -5` as `--rate=-5`, so a negative value reaches the option's range check (and its
/// message) instead of being taken for an unknown option. No option of this CLI takes a value
/// that starts with a dash otherwise.
func joiningNegativeValues(_ arguments: [String]) -> [String] {
    var out: [String] = []
    for argument in arguments {
        if let last = out.last, last.hasPrefix("--"), !last.contains("="), argument.count > 1,
           argument.hasPrefix("-"), Double(argument) != nil {
            out[out.count - 1] = last + "=" + argument
        } else {
            out.append(argument)
        }
    }
    return out
}

/// `tiltboard help NAME` with a NAME that is no command: a usage error, not the root's help.
func checkHelpTopic<Root: ParsableCommand>(_ root: Root.Type, _ arguments: [String]) throws {
    guard arguments.first == "help", arguments.count > 1 else { return }
    let names = commandNames(Root.self)
    if let topic = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }), !names.contains(topic) {
        throw ValidationError("no command '\(clipped(topic))' (commands: \(names.joined(separator: ", ")))")
    }
}

private func commandNames<Root: ParsableCommand>(_ root: Root.Type) -> [String] {
    Root.configuration.subcommands.compactMap { $0.configuration.commandName }
}

/// One line on stderr, the usage error's first line with the command's help named, then exit 64.
private func usageFailure<Root: ParsableCommand>(_ root: Root.Type, _ message: String, _ arguments: [String]) -> Never {
    Console.error("tiltboard: error: \(usageLine(Root.self, message, arguments))\n")
    exit(SysExit.usage)
}

/// The first line of a usage error, quoted values cut short, and where to read more.
func usageLine<Root: ParsableCommand>(_ root: Root.Type, _ message: String, _ arguments: [String]) -> String {
    let first = message.split(separator: "\n").first.map(String.init) ?? message
    var text = clippingQuotes(first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first)
    if !text.contains("tiltboard help") {
        let sub = arguments.first.flatMap { commandNames(Root.self).contains($0) ? " \($0)" : nil } ?? ""
        text += " (see `tiltboard help\(sub)`)"
    }
    return text
}

/// At most `limit` characters of a value quoted in a message, so a huge argument or file
/// content never turns into a huge line.
func clipped(_ value: String, limit: Int = 80) -> String {
    value.count <= limit ? value : String(value.prefix(limit)) + "…"
}

/// `text` with every '…'-quoted run clipped (ArgumentParser quotes the whole bad value).
private func clippingQuotes(_ text: String) -> String {
    let parts = text.split(separator: "'", omittingEmptySubsequences: false)
    return parts.enumerated().map { i, part in i % 2 == 1 ? clipped(String(part)) : String(part) }
        .joined(separator: "'")
}

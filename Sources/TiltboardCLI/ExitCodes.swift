import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardLinux
import TiltboardSimulator
#if canImport(Glibc)
import Glibc
#endif

/// sysexits(3) codes the CLI promises.
enum SysExit {
    static let ok: Int32 = 0

    /// The exit status of every error category: the one table. Library errors name their
    /// category (`CategorizedError`); the CLI's own errors do too (`CLIError`).
    static func code(for category: ErrorCategory) -> Int32 {
        switch category {
        case .invalidRequest: return 64     // EX_USAGE
        case .invalidData: return 65        // EX_DATAERR
        case .unavailable: return 69        // EX_UNAVAILABLE
        case .internalFailure: return 70    // EX_SOFTWARE
        case .cannotCreate: return 73       // EX_CANTCREAT
        case .io: return 74                 // EX_IOERR
        case .temporary: return 75          // EX_TEMPFAIL: a calibration worth trying again
        case .permissionDenied: return 77   // EX_NOPERM
        }
    }
}

/// An error the CLI reports as one line, in the category that gives its exit status.
struct CLIError: CategorizedError {
    var message: String
    var category: ErrorCategory
    var description: String { message }
}

/// The exit code and one-line message, with its advice, for an error of this package; nil for
/// any other error.
func exitStatus(for error: Error) -> (code: Int32, message: String)? {
    guard let categorized = error as? CategorizedError else { return nil }
    return (SysExit.code(for: categorized.category), Advice.message(for: error))
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
    } catch is TraceLoadStopped {
        // Ctrl-C (or another stop) during a long load: the same clean stop as during the run.
        exit(SignalWatcher.exitStatus(afterStopBy: SignalWatcher.shared.signal))
    } catch {
        guard let (code, message) = exitStatus(for: error) else {
            // ArgumentParser's own errors (ExitCode, CleanExit) keep their handling.
            Root.exit(withError: error)
        }
        Console.failure(message)
        exit(code)
    }
    // A clean stop by a signal other than SIGINT, SIGTERM or SIGHUP ends with 128 + the signal.
    let stopStatus = SignalWatcher.exitStatus(afterStopBy: SignalWatcher.shared.signal)
    if stopStatus != 0 { exit(stopStatus) }
    if let failure = OutputFailure.first {
        if failure.readerWentAway { exit(SysExit.ok) }
        Console.failure(describe(failure))
        exit(SysExit.code(for: .io))
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
    Console.failure(usageLine(Root.self, message, arguments))
    exit(SysExit.code(for: .invalidRequest))
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

/// The last guard on every error line: control characters escaped (a value with a newline
/// stays one line) and any run of more than 120 characters without a space (a path, a value
/// that reached a message unclipped) cut to its first 40 and last 79 characters.
func errorLine(_ message: String) -> String {
    let text = escapingControls(message)
    guard text.count > 120 else { return text }
    return text.split(separator: " ", omittingEmptySubsequences: false).map { word in
        word.count > 120 ? String(word.prefix(40)) + "…" + String(word.suffix(79)) : String(word)
    }.joined(separator: " ")
}

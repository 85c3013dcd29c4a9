#if canImport(Glibc)
import Glibc
#endif
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardSimulator

/// The one table of words for the library's errors: the libraries throw kinds with fields
/// (`OutputFileError.Problem`, `GPIOError.Problem`, …) and this says them to a person. The
/// command line's `tiltboard: error: …` lines and `serve`'s page and API both word errors here.
/// An error without an entry is shown as it describes itself.
package func describe(_ error: Error) -> String {
    if let line = ErrorWording.core(error) { return line }
    if let line = ErrorWording.drivers(error) { return line }
    if let words = ErrorWording.tiltboard(error) { return words }
    switch error {
    case let error as OutputFileError: return ErrorWording.outputFile(error)
    case let error as GPIOError: return ErrorWording.gpio(error)
    case let error as AtomicFileError: return ErrorWording.atomicFile(error)
    case let error as TerminalError: return ErrorWording.terminal(error)
    case let error as SignalWatcherError: return ErrorWording.signalWatcher(error)
    case let error as UInputError: return ErrorWording.uinput(error)
    case let error as UDPSenderError: return ErrorWording.udp(error)
    case let error as TiltControllerSettingsError: return ErrorWording.controllerSetting(error)
    case let error as MotionScriptError: return ErrorWording.motionScript(error)
    case let error as NotARegularFile: return "\(shownPath(error.path)) is \(ErrorWording.fileType(error.kind)), not a regular file"
    case let error as FileTooLarge: return "\(shownPath(error.path)) is \(ErrorWording.tooLarge(size: error.size, limit: error.limit))"
    case is TraceLoadStopped: return "loading the trace was stopped"
    case let error as KernelDriverBoundError:
        let b = error.binding
        return "the kernel's \(b.driver) driver owns the device at \(b.address.hex) on \(b.bus)"
    default: return "\(error)"
    }
}

/// What real-time scheduling could not have, on one line (not an error: the program runs on).
package func describe(_ shortfall: RealtimeShortfall) -> String { ErrorWording.realtime(shortfall) }

/// The line written when a stop by `signal` is still busy after `waited` and the process is ended.
@Sendable package func stopDeadlineNote(signal: Int32, waited: Duration) -> String {
    "tiltboard: stopped by signal \(signal); still busy after \(Nanoseconds.seconds(waited)) s (output nobody reads?), ended with the motor off\n"
}

/// A failed write of the program's output, with the kernel's reason and what to do.
package func describe(_ failure: OutputFailure.Failure) -> String {
    let hint: String
    switch failure.errno {
    case ENOSPC, EDQUOT: hint = ": free some disk space"
    case EBADF: hint = ": it is not open for writing"
    case EIO: hint = ": the device or terminal is gone"
    default: hint = ""
    }
    let what: String
    switch failure.what {
    case .standardOutput: what = "standard output"
    case .standardError: what = "standard error"
    case let .motorLog(path): what = "motor log \(path)"
    }
    return "cannot write to \(what): \(ErrorWording.reason(failure.errno))\(hint)"
}

/// The sentences of `describe(_:)`, one function per error type.
package enum ErrorWording {
    /// `strerror`'s text and the number: `Permission denied (errno 13)`.
    package static func reason(_ code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }

    /// "a folder", "a FIFO", … as a file type reads in a sentence.
    package static func fileType(_ type: FileType) -> String {
        switch type {
        case .regular: return "a regular file"
        case .folder: return "a folder"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .symlink: return "a symlink"
        case .other: return "not a file"
        }
    }

    /// An output file that cannot be opened or written, with what to do about it.
    package static func outputFile(_ error: OutputFileError) -> String {
        let path = shownPath(error.path)
        switch error.problem {
        case let .closedDescriptor(n):
            return "\(path) is descriptor \(n), which was closed when tiltboard started: redirect it to a file instead of closing it"
        case .danglingSymlink: return "\(path) is a symlink to a missing file: remove the link or choose another name"
        case .keepsChanging: return "\(path) keeps appearing and disappearing: choose another name"
        case .alreadyExists: return "\(path) already exists"
        case .readOnly: return "\(path) is read-only: make it writable (chmod u+w) or choose another name"
        case let .notWritable(type):
            return "\(path) is \(fileType(type)): give the name of a file to write (a regular file, a character device such as /dev/stdout, or a FIFO)"
        case let .neverReplaced(type): return "\(path) is \(fileType(type)), which is never replaced: name a regular file instead"
        case .stoppedWaitingForReader: return "stopped while waiting for a program to read \(path)"
        case .replacedWhileOpening: return "\(path) was replaced while being opened: try again"
        case .beingWritten: return "\(path) is being written by another program: wait for it to finish or choose another name"
        case let .failed(step):
            let doing: String
            switch step {
            case let .useDescriptor(n): doing = "use descriptor \(n) of"
            case .lookAt: doing = "look at"
            case .create: doing = "create"
            case .open: doing = "open"
            case .empty: doing = "empty"
            case .write: doing = "write"
            case .close: doing = "close"
            }
            let code = error.errno ?? 0
            let line = "cannot \(doing) \(path): \(reason(code))"
            switch code {
            case EACCES, EPERM: return line + ": check the permissions of the file and its folder"
            case EROFS: return line + ": the file system is read-only"
            case ENOENT, ENOTDIR: return line + ": its folder does not exist"
            case ELOOP: return line + ": a symlink loop (or more than 40 links in a row)"
            case ENAMETOOLONG: return line + ": the name (or one of its folders' names) is too long"
            case ENOSPC, EDQUOT: return line + ": free some disk space"
            default: return line
            }
        }
    }

    /// A file written whole or read (a profile, a token) whose step failed, with the kernel's reason and what to do.
    package static func atomicFile(_ error: AtomicFileError) -> String {
        let hint: String
        switch error.errno {
        case EACCES, EPERM: hint = ": check the ownership and permissions of the file and its folder"
        case ENOSPC, EDQUOT: hint = ": free some disk space"
        case EROFS: hint = ": the file system is read-only"
        case ELOOP:
            hint = error.step == .open ? ": a symlink loop (or more than 40 links in a row)" : ": a symlink is in the way of a temporary file; remove it"
        case ENAMETOOLONG: hint = ": the name (or one of its folders' names) is too long"
        case EISDIR: hint = ": a folder, not a file"
        default: hint = ""
        }
        // The step names temporary paths in full: clipped like the path, its end kept.
        let operation = atomicFileStep(error.step)
        let step = operation.count > 120 ? String(operation.prefix(40)) + "…" + operation.suffix(79) : operation
        return "\(shownPath(error.path)): cannot \(escapingControls(step)): \(error.reason)\(hint)"
    }

    /// A terminal that cannot be used, with the kernel's reason.
    package static func terminal(_ error: TerminalError) -> String {
        let why = String(cString: strerror(error.errno))
        switch error.step {
        case let .notATerminal(fd): return "file descriptor \(fd) is not a terminal"
        case let .noTerminalModes(fd): return "file descriptor \(fd) is not a terminal (\(why))"
        case .readSettings: return "cannot read the terminal settings: \(why)"
        case .rawMode: return "cannot switch the terminal to raw mode: \(why)"
        case .waitForKeys: return "cannot wait for key presses: \(why)"
        case .readKeys: return "cannot read key presses: \(why)"
        case .openPseudoTerminalMaster: return "open /dev/ptmx failed: \(why)"
        case .unlockPseudoTerminal: return "unlocking the pseudo-terminal failed: \(why)"
        case let .openPseudoTerminal(path): return "open \(path) failed: \(why)"
        case .setWindowSize: return "TIOCSWINSZ failed: \(why)"
        case .writePseudoTerminal: return "write to the pseudo-terminal failed: \(why)"
        }
    }

    /// What real-time scheduling could not have, on one line; the program runs on either way.
    package static func realtime(_ shortfall: RealtimeShortfall) -> String {
        var notes: [String] = []
        if let e = shortfall.schedulingErrno {
            notes.append(e == EPERM
                ? "realtime scheduling not permitted (needs CAP_SYS_NICE or root, or an rtprio limit in /etc/security/limits.conf); running with normal priority"
                : "realtime scheduling failed (errno \(e) \(String(cString: strerror(e)))); running with normal priority")
        }
        if let e = shortfall.memoryLockErrno {
            notes.append(e == EPERM || e == ENOMEM
                ? "memory locking not permitted (needs CAP_IPC_LOCK or a larger memlock limit, ulimit -l); page faults may add latency"
                : "memory locking failed (errno \(e) \(String(cString: strerror(e))))")
        }
        return notes.joined(separator: "; ")
    }

    /// The signal watcher or crash handler that could not be set up.
    package static func signalWatcher(_ error: SignalWatcherError) -> String {
        switch error.step {
        case .installHandlers: return "cannot install the signal handlers (errno \(error.errno))"
        case .blockSignals: return "cannot block termination signals (errno \(error.errno))"
        case .startThread: return "cannot start the signal thread (errno \(error.errno)); the system may be out of threads"
        case .installCrashHandler: return "cannot install the crash handler (errno \(error.errno))"
        }
    }

    /// The gamepad device that could not be made or used.
    package static func uinput(_ error: UInputError) -> String {
        switch error.kind {
        case .missing: return "\(error.path) does not exist: the uinput module is not loaded"
        case .permissionDenied: return "no permission to open \(error.path)"
        case .io:
            let step: String
            switch error.step {
            case .open: step = "open"
            case .createGamepad: step = "creating a gamepad on"
            case .writeEvents: step = "writing events to"
            case .readForceFeedback: step = "reading force-feedback requests from"
            }
            return "\(step) \(error.path): \(String(cString: strerror(error.errno)))"
        }
    }

    /// A UDP destination that cannot be used: `host:port: why`, the destination quoted short.
    package static func udp(_ error: UDPSenderError) -> String {
        let why: String
        switch error.problem {
        case .notHostAndPort: why = "expected HOST:PORT, e.g. 127.0.0.1:9999"
        case let .unresolved(code): why = "cannot resolve it: " + (code == 0 ? "no address" : String(cString: gai_strerror(code)))
        case .portZero: why = "port 0 is no port anyone can listen on: choose 1…65535"
        case .unspecifiedIPv4: why = "0.0.0.0 is no machine to send to: name one, e.g. 127.0.0.1"
        case .broadcastIPv4: why = "255.255.255.255 is a broadcast, not a listener: name the machine"
        case .unspecifiedIPv6: why = ":: is no machine to send to: name one, e.g. [::1]"
        case let .socket(code): why = "socket: \(String(cString: strerror(code)))"
        case let .cannotSend(code): why = "cannot send there: \(String(cString: strerror(code)))"
        }
        return "\(UDPSender.quoted(error.destination)): \(why)"
    }

    /// A controller setting out of its range, with the range to use.
    package static func controllerSetting(_ error: TiltControllerSettingsError) -> String {
        let use: String
        switch error.allowed {
        case .aboveZeroUpToOne: use = "a value in (0, 1]"
        case .zeroToOne: use = "a value in 0…1"
        case .nonNegative: use = "a value ≥ 0"
        case .positive: use = "a value > 0"
        case .positiveOrOmitted: use = "a value > 0, or leave it out"
        case .positiveExponent: use = "a value > 0 (1 is linear)"
        case .degreesBelow90: use = "degrees in 0…90 (exclusive)"
        }
        return "controller setting \(error.setting) = \(error.value) is out of range; use \(use)"
    }

    /// Where a Raspberry Pi's GPIO chip is found, by the label the board file gives.
    static let gpioLabelHint =
        "set the board file's chip to one of these labels (Raspberry Pi 5: pinctrl-rp1, Pi 4: pinctrl-bcm2711, older Pis: pinctrl-bcm2835)"

    /// A GPIO failure, with what to check or do.
    package static func gpio(_ error: GPIOError) -> String {
        switch error.problem {
        case let .noChips(spec, directory):
            return "GPIO chip \(spec) not found: no GPIO chips found in \(directory); on a Raspberry Pi they are always there (check `ls /dev/gpiochip*`), elsewhere the kernel needs a GPIO driver"
        case let .chipNotFound(spec, present):
            let list = present.map { "\($0.name) [\($0.label), \($0.lineCount) lines]" }.joined(separator: ", ")
            return "GPIO chip \(spec) not found; chips present: \(list); \(gpioLabelHint)"
        case let .notAChip(path, code):
            return "\(path) is not a GPIO chip (\(String(cString: strerror(code)))); name the chip by label (e.g. pinctrl-bcm2711) or as /dev/gpiochipN"
        case let .permissionDenied(path):
            return "GPIO chip \(path): permission denied"
        case let .noLineOffset(n, chip):
            return "GPIO chip \(chip.label) (\(chip.name)) has no line \(n): its lines are 0…\(max(0, chip.lineCount - 1)); check the board file's line"
        case let .noLineNamed(name, chip):
            return "GPIO chip \(chip.label) (\(chip.name)) has no line named \(name); list the names with `gpioinfo \(chip.name)` or give the line's offset"
        case let .lineBusy(line, consumer):
            let holder = consumer.map { "\"\($0)\"" } ?? "another program or a kernel driver (no consumer name given)"
            return "GPIO \(line) is in use by \(holder); stop that program (see `gpioinfo`), remove the overlay that claims the pin, or wire the motor to another line"
        case let .simulatedLineBusy(motorLog):
            return "the simulated motor line is in use by another process (it holds \(motorLog)); stop that program first"
        case let .failed(step, line, code):
            return "GPIO \(line): \(gpioStep(step)) failed: \(reason(code)); check that the chip still exists (`gpiodetect`) and retry"
        case let .released(line):
            return "GPIO \(line) was already released; request the line again before driving it"
        case let .simulatedReleased(line, waiting):
            return "\(line) was released; request the line again before \(waiting ? "waiting on it" : "driving it")"
        case let .wakeStop(code):
            return "creating an eventfd to stop a wait on a GPIO line failed: \(reason(code))"
        case let .other(text):
            return text
        }
    }

    /// "setting the level", "reading line 17", … for a GPIO step.
    package static func gpioStep(_ step: GPIOStep) -> String {
        switch step {
        case .openChip: return "opening the chip"
        case let .readLine(n): return "reading line \(n)"
        case let .lookUpLine(name): return "looking up line \(name)"
        case .requestOutput: return "requesting it as an output"
        case .requestEdgeEvents: return "requesting its edge events"
        case .setLevel: return "setting the level"
        case .readLevel: return "reading the level"
        case .waitForEdge: return "waiting for an edge"
        case .discardEdges: return "discarding queued edges"
        }
    }
}

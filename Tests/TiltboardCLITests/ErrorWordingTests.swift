#if canImport(Glibc)
import Glibc
#endif
import XCTest
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardSimulator

/// The one table of words for the library's errors: every kind and its exact sentence, as the
/// command line and `serve` show it. (The libraries' own tests assert kinds and fields.)
final class ErrorWordingTests: XCTestCase {
    func testEveryOutputFileProblemHasItsSentence() {
        let cases: [(OutputFileError, String)] = [
            (OutputFileError(path: "/dev/stdout", problem: .closedDescriptor(1)),
             "/dev/stdout is descriptor 1, which was closed when tiltboard started: redirect it to a file instead of closing it"),
            (OutputFileError(path: "r.csv", problem: .danglingSymlink),
             "r.csv is a symlink to a missing file: remove the link or choose another name"),
            (OutputFileError(path: "r.csv", problem: .keepsChanging), "r.csv keeps appearing and disappearing: choose another name"),
            (OutputFileError(path: "r.csv", problem: .alreadyExists), "r.csv already exists"),
            (OutputFileError(path: "r.csv", problem: .readOnly), "r.csv is read-only: make it writable (chmod u+w) or choose another name"),
            (OutputFileError(path: "d", problem: .notWritable(.folder)),
             "d is a folder: give the name of a file to write (a regular file, a character device such as /dev/stdout, or a FIFO)"),
            (OutputFileError(path: "s", problem: .notWritable(.socket)),
             "s is a socket: give the name of a file to write (a regular file, a character device such as /dev/stdout, or a FIFO)"),
            (OutputFileError(path: "b", problem: .notWritable(.blockDevice)),
             "b is a block device: give the name of a file to write (a regular file, a character device such as /dev/stdout, or a FIFO)"),
            (OutputFileError(path: "p.json", problem: .neverReplaced(.fifo)), "p.json is a FIFO, which is never replaced: name a regular file instead"),
            (OutputFileError(path: "p.json.bak", problem: .neverReplaced(.characterDevice)),
             "p.json.bak is a character device, which is never replaced: name a regular file instead"),
            (OutputFileError(path: "t", problem: .neverReplaced(.folder)), "t is a folder, which is never replaced: name a regular file instead"),
            (OutputFileError(path: "f", problem: .stoppedWaitingForReader), "stopped while waiting for a program to read f"),
            (OutputFileError(path: "r.csv", problem: .replacedWhileOpening), "r.csv was replaced while being opened: try again"),
            (OutputFileError(path: "r.csv", problem: .beingWritten),
             "r.csv is being written by another program: wait for it to finish or choose another name"),
            (OutputFileError(path: "r.csv", errno: EACCES, step: .create),
             "cannot create r.csv: Permission denied (errno 13): check the permissions of the file and its folder"),
            (OutputFileError(path: "r.csv", errno: EPERM, step: .open),
             "cannot open r.csv: Operation not permitted (errno 1): check the permissions of the file and its folder"),
            (OutputFileError(path: "r.csv", errno: EROFS, step: .create),
             "cannot create r.csv: Read-only file system (errno 30): the file system is read-only"),
            (OutputFileError(path: "no/r.csv", errno: ENOENT, step: .create),
             "cannot create no/r.csv: No such file or directory (errno 2): its folder does not exist"),
            (OutputFileError(path: "f/r.csv", errno: ENOTDIR, step: .lookAt),
             "cannot look at f/r.csv: Not a directory (errno 20): its folder does not exist"),
            (OutputFileError(path: "l", errno: ELOOP, step: .lookAt),
             "cannot look at l: Too many levels of symbolic links (errno 40): a symlink loop (or more than 40 links in a row)"),
            (OutputFileError(path: "n", errno: ENAMETOOLONG, step: .create),
             "cannot create n: File name too long (errno 36): the name (or one of its folders' names) is too long"),
            (OutputFileError(path: "r.csv", errno: ENOSPC, step: .write),
             "cannot write r.csv: No space left on device (errno 28): free some disk space"),
            (OutputFileError(path: "r.csv", errno: EDQUOT, step: .write),
             "cannot write r.csv: Disk quota exceeded (errno 122): free some disk space"),
            (OutputFileError(path: "r.csv", errno: EISDIR, step: .open), "cannot open r.csv: Is a directory (errno 21)"),
            (OutputFileError(path: "r.csv", errno: EIO, step: .empty), "cannot empty r.csv: Input/output error (errno 5)"),
            (OutputFileError(path: "r.csv", errno: EIO, step: .close), "cannot close r.csv: Input/output error (errno 5)"),
            (OutputFileError(path: "/dev/fd/9", errno: EBADF, step: .useDescriptor(9)),
             "cannot use descriptor 9 of /dev/fd/9: Bad file descriptor (errno 9)"),
        ]
        for (error, sentence) in cases {
            XCTAssertEqual(describe(error), sentence)
        }
    }

    func testEveryGPIOProblemHasItsSentence() {
        let pi4 = GPIOChipSummary(name: "gpiochip0", label: "pinctrl-bcm2711", lineCount: 58)
        let expander = GPIOChipSummary(name: "gpiochip1", label: "raspberrypi-exp-gpio", lineCount: 8)
        let line = "pinctrl-bcm2711 line 17 (GPIO17)"
        let cases: [(GPIOError.Problem, String)] = [
            (.noChips(spec: "pinctrl-rp1", directory: "/dev"),
             "GPIO chip pinctrl-rp1 not found: no GPIO chips found in /dev; on a Raspberry Pi they are always there (check `ls /dev/gpiochip*`), elsewhere the kernel needs a GPIO driver"),
            (.chipNotFound(spec: "pinctrl-rp1", present: [pi4, expander]),
             "GPIO chip pinctrl-rp1 not found; chips present: gpiochip0 [pinctrl-bcm2711, 58 lines], gpiochip1 [raspberrypi-exp-gpio, 8 lines]; set the board file's chip to one of these labels (Raspberry Pi 5: pinctrl-rp1, Pi 4: pinctrl-bcm2711, older Pis: pinctrl-bcm2835)"),
            (.notAChip(path: "/dev/null", errno: ENOTTY),
             "/dev/null is not a GPIO chip (Inappropriate ioctl for device); name the chip by label (e.g. pinctrl-bcm2711) or as /dev/gpiochipN"),
            (.permissionDenied(path: "/dev/gpiochip0"), "GPIO chip /dev/gpiochip0: permission denied"),
            (.noLineOffset(60, chip: pi4),
             "GPIO chip pinctrl-bcm2711 (gpiochip0) has no line 60: its lines are 0…57; check the board file's line"),
            (.noLineNamed("GPIO99", chip: pi4),
             "GPIO chip pinctrl-bcm2711 (gpiochip0) has no line named GPIO99; list the names with `gpioinfo gpiochip0` or give the line's offset"),
            (.lineBusy(line: line, consumer: "gpioset"),
             "GPIO pinctrl-bcm2711 line 17 (GPIO17) is in use by \"gpioset\"; stop that program (see `gpioinfo`), remove the overlay that claims the pin, or wire the motor to another line"),
            (.lineBusy(line: line, consumer: nil),
             "GPIO pinctrl-bcm2711 line 17 (GPIO17) is in use by another program or a kernel driver (no consumer name given); stop that program (see `gpioinfo`), remove the overlay that claims the pin, or wire the motor to another line"),
            (.simulatedLineBusy(motorLog: "/tmp/m.log"),
             "the simulated motor line is in use by another process (it holds /tmp/m.log); stop that program first"),
            (.failed(.setLevel, line: line, errno: EBUSY),
             "GPIO pinctrl-bcm2711 line 17 (GPIO17): setting the level failed: Device or resource busy (errno 16); check that the chip still exists (`gpiodetect`) and retry"),
            (.released(line: line), "GPIO pinctrl-bcm2711 line 17 (GPIO17) was already released; request the line again before driving it"),
            (.simulatedReleased(line: "simulated line 17", waiting: false),
             "simulated line 17 was released; request the line again before driving it"),
            (.simulatedReleased(line: "simulated INT", waiting: true),
             "simulated INT was released; request the line again before waiting on it"),
            (.wakeStop(errno: EMFILE), "creating an eventfd to stop a wait on a GPIO line failed: Too many open files (errno 24)"),
            (.other("the driver's own words"), "the driver's own words"),
        ]
        for (problem, sentence) in cases {
            XCTAssertEqual(describe(GPIOError(problem)), sentence)
        }
        let steps: [(GPIOStep, String)] = [
            (.openChip, "opening the chip"), (.readLine(17), "reading line 17"), (.lookUpLine("GPIO17"), "looking up line GPIO17"),
            (.requestOutput, "requesting it as an output"), (.requestEdgeEvents, "requesting its edge events"),
            (.setLevel, "setting the level"), (.readLevel, "reading the level"), (.waitForEdge, "waiting for an edge"),
            (.discardEdges, "discarding queued edges"),
        ]
        for (step, words) in steps {
            XCTAssertEqual(describe(GPIOError(.failed(step, line: "L", errno: EIO))),
                           "GPIO L: \(words) failed: Input/output error (errno 5); check that the chip still exists (`gpiodetect`) and retry")
        }
    }

    func testAtomicFileStepsSayTheStepTheReasonAndTheFix() {
        let cases: [(AtomicFileError, String)] = [
            (AtomicFileError(path: "p.json", step: .create("/x/.p.json.tmp.1.a"), errno: EACCES),
             "p.json: cannot create /x/.p.json.tmp.1.a: Permission denied (errno 13): check the ownership and permissions of the file and its folder"),
            (AtomicFileError(path: "p.json", step: .write("/x/.p.json.tmp.1.a"), errno: ENOSPC),
             "p.json: cannot write /x/.p.json.tmp.1.a: No space left on device (errno 28): free some disk space"),
            (AtomicFileError(path: "p.json", step: .rename("a", to: "p.json"), errno: EROFS),
             "p.json: cannot rename a to p.json: Read-only file system (errno 30): the file system is read-only"),
            (AtomicFileError(path: "p.json", step: .open, errno: ELOOP),
             "p.json: cannot open: Too many levels of symbolic links (errno 40): a symlink loop (or more than 40 links in a row)"),
            (AtomicFileError(path: "p.json", step: .create("/x/.p.json.tmp.1.a"), errno: ELOOP),
             "p.json: cannot create /x/.p.json.tmp.1.a: Too many levels of symbolic links (errno 40): a symlink is in the way of a temporary file; remove it"),
            (AtomicFileError(path: "p.json", step: .open, errno: ENAMETOOLONG),
             "p.json: cannot open: File name too long (errno 36): the name (or one of its folders' names) is too long"),
            (AtomicFileError(path: "p.json", step: .read, errno: EISDIR),
             "p.json: cannot read: Is a directory (errno 21): a folder, not a file"),
            (AtomicFileError(path: "p.json", step: .fsyncFolder("/x"), errno: EIO),
             "p.json: cannot fsync folder /x: Input/output error (errno 5)"),
            (AtomicFileError(path: "p.json", step: .create(String(repeating: "d/", count: 70) + "t"), errno: EIO),
             "p.json: cannot create " + String(repeating: "d/", count: 16) + "d…" + String(repeating: "d/", count: 39) + "t: Input/output error (errno 5)"),
        ]
        for (error, sentence) in cases {
            XCTAssertEqual(describe(error), sentence)
        }
    }

    func testEveryAtomicFileStepHasItsWords() {
        let cases: [(AtomicFileError.Step, String)] = [
            (.create("/x/.t"), "create /x/.t"), (.setPermissions("/x/.t"), "set permissions of /x/.t"),
            (.fsync("/x/.t"), "fsync /x/.t"), (.close("/x/.t"), "close /x/.t"), (.rename("/x/.t", to: "/x/p"), "rename /x/.t to /x/p"),
            (.write("/x/.t"), "write /x/.t"), (.link("/x/p", to: "/x/.t"), "link /x/p to /x/.t"),
            (.createFolder("/x"), "create folder /x"), (.openFolder("/x"), "open folder /x"), (.fsyncFolder("/x"), "fsync folder /x"),
            (.open, "open"), (.stat, "stat"), (.read, "read"),
            (.openForAppending, "open for appending"), (.appendToBlockDevice, "append to a block device"),
        ]
        for (step, words) in cases {
            XCTAssertEqual(describe(AtomicFileError(path: "p", step: step, errno: EIO)), "p: cannot \(words): Input/output error (errno 5)")
        }
    }

    func testEveryTerminalStepHasItsSentence() {
        let cases: [(TerminalError, String)] = [
            (TerminalError(.notATerminal(descriptor: 0), errno: ENOTTY), "file descriptor 0 is not a terminal"),
            (TerminalError(.noTerminalModes(descriptor: 1), errno: ENOTTY), "file descriptor 1 is not a terminal (Inappropriate ioctl for device)"),
            (TerminalError(.readSettings, errno: EIO), "cannot read the terminal settings: Input/output error"),
            (TerminalError(.rawMode, errno: EIO), "cannot switch the terminal to raw mode: Input/output error"),
            (TerminalError(.waitForKeys, errno: EINTR), "cannot wait for key presses: Interrupted system call"),
            (TerminalError(.readKeys, errno: EIO), "cannot read key presses: Input/output error"),
            (TerminalError(.openPseudoTerminalMaster, errno: ENOENT), "open /dev/ptmx failed: No such file or directory"),
            (TerminalError(.unlockPseudoTerminal, errno: EINVAL), "unlocking the pseudo-terminal failed: Invalid argument"),
            (TerminalError(.openPseudoTerminal(path: "/dev/pts/3"), errno: EACCES), "open /dev/pts/3 failed: Permission denied"),
            (TerminalError(.setWindowSize, errno: EINVAL), "TIOCSWINSZ failed: Invalid argument"),
            (TerminalError(.writePseudoTerminal, errno: EIO), "write to the pseudo-terminal failed: Input/output error"),
        ]
        for (error, sentence) in cases {
            XCTAssertEqual(describe(error), sentence)
        }
    }

    func testRealtimeShortfallsSayWhatWasNotPermitted() {
        let scheduling = "realtime scheduling not permitted (needs CAP_SYS_NICE or root, or an rtprio limit in /etc/security/limits.conf); running with normal priority"
        let memory = "memory locking not permitted (needs CAP_IPC_LOCK or a larger memlock limit, ulimit -l); page faults may add latency"
        XCTAssertEqual(describe(RealtimeShortfall(schedulingErrno: EPERM)), scheduling)
        XCTAssertEqual(describe(RealtimeShortfall(memoryLockErrno: ENOMEM)), memory)
        XCTAssertEqual(describe(RealtimeShortfall(memoryLockErrno: EPERM)), memory)
        XCTAssertEqual(describe(RealtimeShortfall(schedulingErrno: EPERM, memoryLockErrno: EPERM)), scheduling + "; " + memory)
        XCTAssertEqual(describe(RealtimeShortfall(schedulingErrno: EINVAL)),
                       "realtime scheduling failed (errno 22 Invalid argument); running with normal priority")
        XCTAssertEqual(describe(RealtimeShortfall(memoryLockErrno: EAGAIN)), "memory locking failed (errno 11 Resource temporarily unavailable)")
    }

    func testSignalAndGamepadSetUpFailuresHaveTheirSentences() {
        XCTAssertEqual(describe(SignalWatcherError(.installHandlers, errno: 22)), "cannot install the signal handlers (errno 22)")
        XCTAssertEqual(describe(SignalWatcherError(.blockSignals, errno: 22)), "cannot block termination signals (errno 22)")
        XCTAssertEqual(describe(SignalWatcherError(.startThread, errno: 11)),
                       "cannot start the signal thread (errno 11); the system may be out of threads")
        XCTAssertEqual(describe(SignalWatcherError(.installCrashHandler, errno: 12)), "cannot install the crash handler (errno 12)")
        let cases: [(UInputError, UInputError.Kind, String)] = [
            (UInputError(path: "/dev/uinput", step: .open, errno: ENOENT), .missing, "/dev/uinput does not exist: the uinput module is not loaded"),
            (UInputError(path: "/dev/uinput", step: .open, errno: ENODEV), .missing, "/dev/uinput does not exist: the uinput module is not loaded"),
            (UInputError(path: "/dev/uinput", step: .open, errno: EACCES), .permissionDenied, "no permission to open /dev/uinput"),
            (UInputError(path: "/dev/uinput", step: .open, errno: EIO), .io, "open /dev/uinput: Input/output error"),
            (UInputError(path: "/dev/uinput", step: .createGamepad, errno: EINVAL), .io, "creating a gamepad on /dev/uinput: Invalid argument"),
            (UInputError(path: "/dev/uinput", step: .writeEvents, errno: EIO), .io, "writing events to /dev/uinput: Input/output error"),
            (UInputError(path: "/dev/uinput", step: .readForceFeedback, errno: EIO), .io,
             "reading force-feedback requests from /dev/uinput: Input/output error"),
        ]
        for (error, kind, sentence) in cases {
            XCTAssertEqual(error.kind, kind)
            XCTAssertEqual(describe(error), sentence)
        }
    }

    func testEveryUDPDestinationProblemHasItsSentence() {
        let cases: [(UDPSenderError.Problem, String)] = [
            (.notHostAndPort, "nowhere: expected HOST:PORT, e.g. 127.0.0.1:9999"),
            (.unresolved(resolverCode: 0), "nowhere: cannot resolve it: no address"),
            (.unresolved(resolverCode: EAI_NONAME), "nowhere: cannot resolve it: Name or service not known"),
            (.portZero, "nowhere: port 0 is no port anyone can listen on: choose 1…65535"),
            (.unspecifiedIPv4, "nowhere: 0.0.0.0 is no machine to send to: name one, e.g. 127.0.0.1"),
            (.broadcastIPv4, "nowhere: 255.255.255.255 is a broadcast, not a listener: name the machine"),
            (.unspecifiedIPv6, "nowhere: :: is no machine to send to: name one, e.g. [::1]"),
            (.socket(errno: EMFILE), "nowhere: socket: Too many open files"),
            (.cannotSend(errno: ENETUNREACH), "nowhere: cannot send there: Network is unreachable"),
        ]
        for (problem, sentence) in cases {
            XCTAssertEqual(describe(UDPSenderError(destination: "nowhere", problem: problem)), sentence)
        }
        let long = String(repeating: "h", count: 100) + ":1"
        XCTAssertEqual(describe(UDPSenderError(destination: long, problem: .notHostAndPort)),
                       String(repeating: "h", count: 79) + "…: expected HOST:PORT, e.g. 127.0.0.1:9999")
    }

    func testAKernelDriverOnTheAddressAndAFailedOutputHaveTheirSentences() {
        let binding = I2CDriverBinding(driver: "inv-mpu6050-i2c", device: "1-0068", deviceName: "mpu6050", bus: "/dev/i2c-1", address: 0x68)
        XCTAssertEqual(describe(KernelDriverBoundError(binding: binding)), "the kernel's inv-mpu6050-i2c driver owns the device at 0x68 on /dev/i2c-1")
        let cases: [(Int32, String)] = [
            (ENOSPC, "cannot write to standard output: No space left on device (errno 28): free some disk space"),
            (EDQUOT, "cannot write to standard output: Disk quota exceeded (errno 122): free some disk space"),
            (EBADF, "cannot write to standard output: Bad file descriptor (errno 9): it is not open for writing"),
            (EIO, "cannot write to standard output: Input/output error (errno 5): the device or terminal is gone"),
            (EFBIG, "cannot write to standard output: File too large (errno 27)"),
        ]
        for (code, sentence) in cases {
            XCTAssertEqual(describe(OutputFailure.Failure(what: .standardOutput, errno: code)), sentence)
        }
    }

    func testEveryControllerSettingRangeHasItsWords() {
        let cases: [(TiltControllerSettingsError.Allowed, String)] = [
            (.aboveZeroUpToOne, "a value in (0, 1]"), (.zeroToOne, "a value in 0…1"), (.nonNegative, "a value ≥ 0"),
            (.positive, "a value > 0"), (.positiveOrOmitted, "a value > 0, or leave it out"),
            (.positiveExponent, "a value > 0 (1 is linear)"), (.degreesBelow90, "degrees in 0…90 (exclusive)"),
        ]
        for (allowed, words) in cases {
            XCTAssertEqual(describe(TiltControllerSettingsError(setting: "deceleration", value: 1.5, allowed: allowed)),
                           "controller setting deceleration = 1.5 is out of range; use \(words)")
        }
        XCTAssertEqual(describe(TraceLoadStopped()), "loading the trace was stopped")
    }

    /// An error without an entry in the table is shown as it describes itself.
    func testAnErrorWithoutAnEntryIsShownAsItDescribesItself() {
        struct Plain: Error, CustomStringConvertible { var description: String { "plain words" } }
        XCTAssertEqual(describe(Plain()), "plain words")
    }
}

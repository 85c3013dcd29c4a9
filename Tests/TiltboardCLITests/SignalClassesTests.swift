import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// Every signal 1–64 but SIGKILL and SIGSTOP, sent to `tiltboard haptics` while its simulated
/// motor is on: each class ends the process its own way, and the motor's log always ends off.
final class SignalClassesTests: XCTestCase {
    /// A requested stop: motor off, exit 0.
    static let requested: Set<Int32> = [SIGHUP, SIGINT, SIGTERM]
    /// The other terminating signals (glibc's SIGRTMIN is 34, SIGRTMAX 64): motor off, exit 128 + signal.
    static let terminating: Set<Int32> = Set([SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT,
                                              SIGXCPU, SIGXFSZ] + Array(34...64))
    /// Crashes: motor off from the signal handler, then death by the same signal.
    static let crashes: Set<Int32> = [SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS]
    /// Job control: the process stops with the motor off and goes on when continued.
    static let stops: Set<Int32> = [SIGTSTP, SIGTTIN, SIGTTOU]
    /// Ignored: SIGCHLD, SIGCONT, SIGURG, SIGWINCH by default; SIGPIPE by tiltboard (a failed write
    /// says more).
    static let ignored: Set<Int32> = [SIGCHLD, SIGCONT, SIGURG, SIGWINCH, SIGPIPE]
    /// glibc's own (SIGCANCEL, SIGSETXID): ignored where glibc already has its handler in place,
    /// else (glibc installs them lazily) the same stop as the terminating ones.
    static let reserved: Set<Int32> = [32, 33]

    func testTheClassesCoverEverySignalButKillAndStop() {
        let all = Self.requested.union(Self.terminating).union(Self.crashes).union(Self.stops).union(Self.ignored).union(Self.reserved)
        XCTAssertEqual(all, Set(Int32(1)...64).subtracting([SIGKILL, SIGSTOP]))
        XCTAssertEqual(Self.requested.count + Self.terminating.count + Self.crashes.count + Self.stops.count + Self.ignored.count
                       + Self.reserved.count, 62)
    }

    func testRequestedAndTerminatingSignalsStopCleanlyWithTheMotorOff() throws {
        try runBatches(Self.requested.union(Self.terminating).sorted()) { signal, child, log in
            XCTAssertEqual(child.process.terminationReason, .exit, "signal \(signal): \(child.stderr)")
            XCTAssertEqual(child.process.terminationStatus, Self.requested.contains(signal) ? 0 : 128 + signal, "signal \(signal): \(child.stderr)")
            XCTAssertTrue(child.stderr.contains("stopped by signal \(signal); motor off"), "signal \(signal): \(child.stderr)")
            XCTAssertEqual(log.map(\.level), [1, 0], "signal \(signal)")
        }
    }

    /// SIGSEGV and the rest sent from outside take the same handler as a real fault or a Swift trap.
    func testCrashSignalsTurnTheMotorOffAndEndTheProcessByThatSignal() throws {
        try runBatches(Self.crashes.sorted()) { signal, child, log in
            XCTAssertEqual(child.process.terminationReason, .uncaughtSignal, "signal \(signal): \(child.stderr)")
            XCTAssertEqual(child.process.terminationStatus, signal, "signal \(signal): \(child.stderr)")
            XCTAssertEqual(log.map(\.level), [1, 0], "signal \(signal): \(child.stderr)")
        }
    }

    /// glibc's reserved signals never leave the motor on: either glibc's own handler ignores them
    /// (SIGTERM then stops it) or tiltboard's takes them as a stop, exit 128 + the signal.
    func testGlibcsReservedSignalsNeverLeaveTheMotorOn() throws {
        try runBatches(Self.reserved.sorted(), finish: { signal, child, log in
            // Ended by the signal, or still running: then a requested stop ends it.
            _ = Self.waitFor(timeout: 10) { !child.process.isRunning }
            if child.process.isRunning { XCTAssertEqual(kill(child.process.processIdentifier, SIGTERM), 0, "signal \(signal)") }
        }) { signal, child, log in
            XCTAssertEqual(child.process.terminationReason, .exit, "signal \(signal): \(child.stderr)")
            let status = child.process.terminationStatus
            XCTAssertTrue(status == 128 + signal || status == 0, "signal \(signal): exit \(status): \(child.stderr)")
            XCTAssertTrue(child.stderr.contains("stopped by signal \(status == 0 ? 15 : signal); motor off"), "signal \(signal): \(child.stderr)")
            XCTAssertEqual(log.map(\.level), [1, 0], "signal \(signal)")
        }
    }

    /// Neither kills it: after the signal (and SIGCONT for a stop) SIGTERM still finds it running
    /// and stops it cleanly; a stop turns the motor off while stopped and back on when continued.
    func testJobControlAndIgnoredSignalsLeaveItRunning() throws {
        try runBatches(Self.stops.union(Self.ignored).sorted(), finish: { signal, child, log in
            let pid = child.process.processIdentifier
            if Self.stops.contains(signal) {
                XCTAssertTrue(Self.waitFor { Self.processState(pid) == "T" }, "signal \(signal): the process did not stop")
                XCTAssertEqual((try? MotorLogFile.read(log))?.map(\.level), [1, 0], "signal \(signal): the motor must be off while stopped")
                // Continued, the pulse goes on.
                XCTAssertEqual(kill(pid, SIGCONT), 0, "signal \(signal)")
                XCTAssertTrue(Self.waitFor { (try? MotorLogFile.read(log))?.map(\.level) == [1, 0, 1] }, "signal \(signal): \(child.stderr)")
            } else {
                XCTAssertTrue(child.process.isRunning, "signal \(signal)")
            }
            XCTAssertEqual(kill(pid, SIGTERM), 0, "signal \(signal)")
        }) { signal, child, log in
            XCTAssertEqual(child.process.terminationReason, .exit, "signal \(signal): \(child.stderr)")
            XCTAssertEqual(child.process.terminationStatus, 0, "signal \(signal): \(child.stderr)")
            XCTAssertTrue(child.stderr.contains("stopped by signal 15; motor off"), "signal \(signal): \(child.stderr)")
            XCTAssertEqual(log.last?.level, 0, "signal \(signal): \(child.stderr)")
            XCTAssertEqual(log.map(\.level), Self.stops.contains(signal) ? [1, 0, 1, 0] : [1, 0], "signal \(signal)")
        }
    }

    /// Starts `haptics` with a 60 s pulse for each signal, eight at a time; once a child's motor is
    /// on it gets its signal (then `finish`), and `check` sees its end and the motor log.
    private func runBatches(_ signals: [Int32],
                            finish: (Int32, ChildProcess, String) -> Void = { _, _, _ in },
                            check: (Int32, ChildProcess, [(t: Double, level: Int)]) throws -> Void) throws {
        var rest = signals[...]
        while !rest.isEmpty {
            let batch = rest.prefix(8)
            rest = rest.dropFirst(8)
            var children: [(Int32, ChildProcess, String)] = []
            for signal in batch {
                let folder = try makeScratchFolder(self)
                let board = try SimBoardFile.write(in: folder, motorExtras: #", "maxOnSeconds": 60"#)
                let child = try ChildProcess(["haptics", "--board", board.path, "--pattern", "60000,1"], directory: folder)
                children.append((signal, child, board.log))
            }
            for (signal, child, log) in children {
                XCTAssertTrue(MotorLogFile.waitForLevel(1, in: log), "signal \(signal): the motor never went on: \(child.stderr)")
                XCTAssertEqual(kill(child.process.processIdentifier, signal), 0)
            }
            for (signal, child, log) in children { finish(signal, child, log) }
            for (signal, child, log) in children {
                let exited = child.waitForExit()
                XCTAssertTrue(exited, "signal \(signal): still running 60 s after the signal")
                guard exited else { continue }
                try check(signal, child, try MotorLogFile.read(log))
            }
        }
    }

    private static func waitFor(timeout: Double = 60, _ condition: () -> Bool) -> Bool {
        pollUntil(timeout: timeout, condition)
    }

    /// The state letter of /proc/PID/stat: R, S, T (stopped), …
    private static func processState(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }
}

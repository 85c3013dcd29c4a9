import Foundation
import ArgumentParser
import XCTest
import TiltboardLinux
import TiltboardTestSupport
@testable import TiltboardCLI
#if canImport(Glibc)
import Glibc
#endif

/// No output can make a command deaf: whatever its output is doing — a pipe nobody reads, a FIFO
/// whose reader stopped or that nobody opened, a terminal stopped with Ctrl-S, a socket peer that
/// stopped reading, a full disk — every command stops within half a second of SIGINT, SIGTERM or
/// SIGHUP, on the virtual clock and in real time, and its simulated motor's log ends off.
///
/// Each case waits until the child is held by its output (a thread in write(2) or send(2) on the
/// stalled descriptor, or in the poll(2) that waits for its room), sends the signal, and measures
/// the time to the child's end with waitpid.
final class StalledOutputStopTests: XCTestCase {
    /// The bound from the signal to the process's end.
    static let bound = 0.5

    // MARK: - Every command

    /// What a command is run with so it writes output and is still running when its output stalls.
    struct Recipe {
        var arguments: [String]
        /// Which of its standard descriptors get the stalled sink (the others go to a file).
        var stalled: Streams
        /// The sink is filled before the start, so its first write already waits (a command with
        /// little output); otherwise the command fills it itself.
        var prefilled = true
        /// Wait for the motor to go on before the signal.
        var motorFirst = false
        var environment: [String: String] = [:]
        /// The exit status of a command that fails on its own meanwhile (no uinput for `gamepad`).
        var failure: Int32?
    }

    enum Streams { case stdout, stderr, both }

    /// Every leaf command of the CLI, by its path ("profile show").
    static func commandPaths() -> [String] {
        func walk(_ command: any ParsableCommand.Type, prefix: [String]) -> [[String]] {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return [prefix] }
            return subcommands.flatMap { walk($0, prefix: prefix + [$0.configuration.commandName ?? "?"]) }
        }
        return walk(TiltboardCommand.self, prefix: []).map { $0.joined(separator: " ") }
    }

    /// A recipe for each command path; `board` has a motor logged to `folder/motor.log`.
    static func recipes(board: String, shakeBoard: String, folder: String) -> [String: Recipe] {
        let profile = folder + "/profile.json"
        return [
            "probe": Recipe(arguments: ["probe", "--bus", "simulated"], stalled: .stdout),
            "read": Recipe(arguments: ["read", "--board", board, "--json", "--count", "0", "--rate", "1000"], stalled: .stdout, prefilled: false),
            "calibrate": Recipe(arguments: ["calibrate", "--board", board, "--profile", profile, "--yes"], stalled: .both),
            "profile show": Recipe(arguments: ["profile", "show", "--board", board, "--profile", profile], stalled: .stdout),
            "profile shake": Recipe(arguments: ["profile", "shake", "--board", board, "--profile", profile], stalled: .stdout),
            "profile stress-write": Recipe(arguments: ["profile", "stress-write", "--profile", profile], stalled: .stdout),
            "haptics": Recipe(arguments: ["haptics", "--board", board, "--pattern", "60000,1"], stalled: .stderr, motorFirst: true),
            "shake": Recipe(arguments: ["shake", "--board", shakeBoard, "--json"], stalled: .stdout, motorFirst: true),
            "run": Recipe(arguments: ["run", "--board", shakeBoard, "--json"], stalled: .stdout, prefilled: false, motorFirst: true),
            "serve": Recipe(arguments: ["serve", "--board", board, "--port", "0"], stalled: .stdout),
            "monitor": Recipe(arguments: ["monitor", "--board", shakeBoard], stalled: .both),
            "record": Recipe(arguments: ["record", "--board", board, "--out", "/dev/stdout", "--rate", "1000"], stalled: .stdout, prefilled: false),
            "bench": Recipe(arguments: ["bench", "--board", board, "--seconds", "5"], stalled: .stderr),
            "doctor": Recipe(arguments: ["doctor", "--board", board], stalled: .stdout),
            "gamepad": Recipe(arguments: ["gamepad", "--board", board], stalled: .stderr,
                              environment: ["TILTBOARD_UINPUT": folder + "/no-uinput"], failure: 69),
        ]
    }

    func testTheRecipesCoverEveryCommandOfTheCLI() throws {
        let folder = try makeScratchFolder(self)
        let paths = Self.commandPaths()
        XCTAssertTrue(paths.contains("read") && paths.contains("profile show"), "\(paths)")
        XCTAssertEqual(Set(paths), Set(Self.recipes(board: "b", shakeBoard: "s", folder: folder).keys),
                       "every command that writes output needs a stalled-output case")
    }

    func testEveryCommandStopsWithinHalfASecondOfASignalWithItsOutputStalledOnTheVirtualClock() throws {
        try everyCommand(clock: .virtual, signals: [SIGINT, SIGTERM, SIGHUP])
    }

    func testEveryCommandStopsWithinHalfASecondOfASignalWithItsOutputStalledInRealTime() throws {
        try everyCommand(clock: .system, signals: [SIGTERM, SIGHUP, SIGINT])
    }

    private func everyCommand(clock: TestClock, signals: [Int32]) throws {
        for (index, path) in Self.commandPaths().enumerated() {
            let folder = try makeScratchFolder(self)
            let board = try Self.board(in: folder)
            let shakeBoard = try Self.board(in: folder, name: "shake-board.json", script: "shake")
            let recipe = try XCTUnwrap(Self.recipes(board: board, shakeBoard: shakeBoard, folder: folder)[path], path)
            let signal = signals[index % signals.count]
            if path == "monitor" {
                try stopOnAStoppedTerminal(recipe.arguments, folder: folder, clock: clock, signal: signal, label: path)
                continue
            }
            let sink = try Sink.pipe(prefilled: recipe.prefilled)
            try stop(recipe, sink: sink, folder: folder, clock: clock, signal: signal, label: "\(path) (\(clock))")
        }
    }

    // MARK: - Every kind of stalled output

    /// The reported case: `read --fast --json --count 0 > fifo` with a reader that stopped reading.
    func testReadIntoAFIFOWhoseReaderStoppedStops() throws {
        for (clock, signal) in [(TestClock.virtual, SIGINT), (.system, SIGTERM)] {
            let folder = try makeScratchFolder(self)
            let recipe = Recipe(arguments: ["read", "--board", try Self.board(in: folder), "--json", "--count", "0", "--rate", "1000"],
                                stalled: .stdout, prefilled: false)
            try stop(recipe, sink: try Sink.fifo(in: folder), folder: folder, clock: clock, signal: signal, label: "read > fifo (\(clock))")
        }
    }

    /// `record --out /dev/stdout` and `record --out FIFO`, the FIFO's reader stalled or never there.
    func testRecordIntoAStalledOrUnopenedFIFOStops() throws {
        for (clock, signal) in [(TestClock.virtual, SIGHUP), (.system, SIGINT)] {
            let folder = try makeScratchFolder(self)
            let board = try Self.board(in: folder)
            // A reader that opened the FIFO and stopped reading.
            let fifo = folder + "/stalled.fifo"
            XCTAssertEqual(mkfifo(fifo, 0o600), 0)
            let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            XCTAssertGreaterThanOrEqual(reader, 0)
            defer { close(reader) }
            let stalled = Recipe(arguments: ["record", "--board", board, "--out", fifo, "--rate", "1000"], stalled: .stdout)
            try stop(stalled, sink: try Sink.file(folder + "/stdout"), folder: folder, clock: clock, signal: signal,
                     label: "record --out stalled fifo (\(clock))", heldBy: { pid in Self.isWaitingOnOutput(pid) || Self.isWaitingForAReader(pid) })

            // Nobody ever opens it: the command waits for a reader.
            let lonely = folder + "/lonely.fifo"
            XCTAssertEqual(mkfifo(lonely, 0o600), 0)
            let waiting = Recipe(arguments: ["record", "--board", board, "--out", lonely, "--rate", "1000"], stalled: .stdout)
            try stop(waiting, sink: try Sink.file(folder + "/stdout2"), folder: folder, clock: clock, signal: signal,
                     label: "record --out unopened fifo (\(clock))", heldBy: { pid in
                         (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8))?.contains("waiting for a program to read it") == true
                             && Self.isWaitingForAReader(pid)
                     })
        }
    }

    /// `run --json` and `read` on a terminal stopped with Ctrl-S (XOFF).
    func testATerminalStoppedWithCtrlSCannotHoldACommand() throws {
        for (arguments, clock, signal) in [(["run", "--json"], TestClock.virtual, SIGTERM), (["read", "--count", "0"], .system, SIGINT),
                                           (["run"], .system, SIGHUP)] {
            let folder = try makeScratchFolder(self)
            let args = arguments + ["--board", try Self.board(in: folder, script: "shake")]
            try stopOnAStoppedTerminal(args, folder: folder, clock: clock, signal: signal, label: arguments.joined(separator: " "))
        }
    }

    /// A socket peer that stopped reading (standard output a stream socket, as under systemd).
    func testASocketPeerThatStoppedReadingCannotHoldACommand() throws {
        for (clock, signal) in [(TestClock.virtual, SIGINT), (.system, SIGHUP)] {
            let folder = try makeScratchFolder(self)
            let recipe = Recipe(arguments: ["run", "--board", try Self.board(in: folder, script: "shake"), "--json"],
                                stalled: .both, prefilled: false, motorFirst: true)
            try stop(recipe, sink: try Sink.socket(), folder: folder, clock: clock, signal: signal, label: "run --json on a socket (\(clock))")
        }
    }

    /// A full disk: /dev/full under standard output ends the command with 74 at once, under
    /// standard error too, and a signal meanwhile still ends it in time with the motor off.
    func testAFullDiskEndsTheCommandAndTheMotorIsOff() throws {
        for (stalled, clock) in [(Streams.stdout, TestClock.virtual), (.both, .system)] {
            let folder = try makeScratchFolder(self)
            let recipe = Recipe(arguments: ["run", "--board", try Self.board(in: folder, script: "shake"), "--json"], stalled: stalled)
            let sink = try Sink.file("/dev/full", create: false)
            let child = try launch(recipe, sink: sink, folder: folder, clock: clock)
            let ended = child.waitForEnd(timeout: 60)
            let status = try XCTUnwrap(ended, "still running with its output on a full disk: \(Self.stderr(folder))")
            XCTAssertEqual(status.exitCode, 74, Self.stderr(folder))
            XCTAssertNotEqual(try MotorLogFile.read(folder + "/motor.log").last?.level, 1, "the motor was left on")
        }
    }

    /// `serve` with a WebSocket client and an HTTP client that both stopped reading.
    func testServeWithClientsThatStoppedReadingStops() throws {
        for (clock, signal) in [(TestClock.system, SIGTERM), (.virtual, SIGINT)] {
            let folder = try makeScratchFolder(self)
            let board = try Self.board(in: folder, script: "shake")
            let recipe = Recipe(arguments: ["serve", "--board", board, "--port", "0"], stalled: .stdout)
            let urls = folder + "/urls"
            let child = try launch(recipe, sink: try Sink.file(urls), folder: folder, clock: clock)
            let started = Self.waitFor(timeout: 60) { (try? String(contentsOfFile: urls, encoding: .utf8))?.contains("\n") == true || child.waitForEnd(timeout: 0) != nil }
            let url = try XCTUnwrap((try? String(contentsOfFile: urls, encoding: .utf8))?.split(separator: "\n").first, "no URL: \(Self.stderr(folder))")
            XCTAssertTrue(started)
            let port = try XCTUnwrap(UInt16(url.split(separator: ":").last?.split(separator: "/").first ?? ""), String(url))
            // The stream, never read; and the page asked for 200 times in a row, never read.
            let stream = try Self.connect(port: port)
            defer { close(stream) }
            Self.send(stream, "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let page = try Self.connect(port: port, smallBuffer: false)
            defer { close(page) }
            Self.send(page, String(repeating: "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", count: 200))
            // Held: the server's socket buffers towards the page's client are full.
            XCTAssertTrue(Self.waitFor(timeout: 30) { Self.unreadBytes(page) > 60_000 || child.waitForEnd(timeout: 0) != nil }, Self.stderr(folder))
            try signalAndMeasure(child, signal: signal, folder: folder, label: "serve with stalled clients (\(clock))")
        }
    }

    // MARK: - Running a case

    /// Starts `recipe` with `sink` on its stalled descriptors, waits until its output holds it
    /// (and, with `motorFirst`, until its motor is on), then signals and measures the stop.
    private func stop(_ recipe: Recipe, sink: Sink, folder: String, clock: TestClock, signal: Int32, label: String,
                      heldBy: ((pid_t) -> Bool)? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let child = try launch(recipe, sink: sink, folder: folder, clock: clock)
        let log = folder + "/motor.log"
        if recipe.motorFirst {
            XCTAssertTrue(Self.waitFor(timeout: 60) { Self.motorWasOn(log) || child.waitForEnd(timeout: 0) != nil },
                          "\(label): the motor never went on: \(Self.stderr(folder))", file: file, line: line)
        }
        let held = Self.waitFor(timeout: 60) { (heldBy ?? { Self.isWaitingOnOutput($0) })(child.pid) || child.waitForEnd(timeout: 0) != nil }
        XCTAssertTrue(held, "\(label): never held by its output", file: file, line: line)
        if let ended = child.waitForEnd(timeout: 0) {
            return XCTFail("\(label): ended before it was signalled (\(ended)): \(Self.stderr(folder))", file: file, line: line)
        }
        if recipe.motorFirst {
            XCTAssertEqual(try MotorLogFile.read(log).last?.level, 1, "\(label): the motor should be on at the signal", file: file, line: line)
        }
        try signalAndMeasure(child, signal: signal, folder: folder, label: label, failure: recipe.failure, file: file, line: line)
        withExtendedLifetime(sink) {}
    }

    /// Sends `signal`, waits for the end, and checks the bound and the motor.
    private func signalAndMeasure(_ child: SpawnedChild, signal: Int32, folder: String, label: String, failure: Int32? = nil,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let sent = Date()
        XCTAssertEqual(kill(child.pid, signal), 0, file: file, line: line)
        let ended = child.waitForEnd(timeout: 30)
        let took = Date().timeIntervalSince(sent)
        guard let ended else {
            return XCTFail("\(label): still running 30 s after signal \(signal): \(Self.stderr(folder))", file: file, line: line)
        }
        print("stalled output: \(label): ended \(Int((took * 1000).rounded())) ms after signal \(signal), \(ended)")
        XCTAssertLessThan(took, Self.bound, "\(label): took \(took) s to stop after signal \(signal) (\(ended)): \(Self.stderr(folder))",
                          file: file, line: line)
        // A clean stop (0), or the default action of the signal for a command that takes none.
        XCTAssertTrue(ended.exitCode == 0 || ended.killedBy == signal || (failure != nil && ended.exitCode == failure), "\(label): \(ended) after signal \(signal): \(Self.stderr(folder))",
                      file: file, line: line)
        XCTAssertNotEqual(try MotorLogFile.read(folder + "/motor.log").last?.level, 1, "\(label): the motor was left on", file: file, line: line)
    }

    /// `arguments` on a pseudo-terminal stopped with Ctrl-S before it starts (stdin, stdout and
    /// stderr all the terminal), nobody reading it.
    private func stopOnAStoppedTerminal(_ arguments: [String], folder: String, clock: TestClock, signal: Int32, label: String,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        let terminal = try PseudoTerminal()
        var size = winsize(ws_row: 30, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        XCTAssertEqual(ioctl(terminal.master, UInt(TIOCSWINSZ), &size), 0)
        var xoff: UInt8 = 0x13
        XCTAssertEqual(write(terminal.master, &xoff, 1), 1)
        let child = try SpawnedChild(arguments, stdin: terminal.slave, stdout: terminal.slave, stderr: terminal.slave,
                                     environment: clock.environment(["XDG_CONFIG_HOME": folder, "HOME": folder]))
        let held = Self.waitFor(timeout: 60) { Self.isWaitingOnOutput(child.pid) || child.waitForEnd(timeout: 0) != nil }
        XCTAssertTrue(held, "\(label): never held by its output", file: file, line: line)
        if let ended = child.waitForEnd(timeout: 0) {
            return XCTFail("\(label): ended before it was signalled (\(ended))", file: file, line: line)
        }
        try signalAndMeasure(child, signal: signal, folder: folder, label: "\(label) on a stopped terminal (\(clock))", file: file, line: line)
        withExtendedLifetime(terminal) {}
    }

    private func launch(_ recipe: Recipe, sink: Sink, folder: String, clock: TestClock) throws -> SpawnedChild {
        let errPath = folder + "/stderr"
        let err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let out = open(folder + "/stdout.unused", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(err); close(out) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        let stdout = recipe.stalled == .stderr ? out : sink.descriptor
        let stderr = recipe.stalled == .stdout ? err : sink.descriptor
        return try SpawnedChild(recipe.arguments, stdin: input, stdout: stdout, stderr: stderr,
                                environment: clock.environment(["XDG_CONFIG_HOME": folder, "HOME": folder].merging(recipe.environment) { $1 }))
    }

    // MARK: - Sinks

    /// A descriptor that takes no more output, kept open (with its reading side) for the test.
    final class Sink {
        let descriptor: Int32
        private var others: [Int32]

        private init(descriptor: Int32, others: [Int32]) {
            self.descriptor = descriptor
            self.others = others
        }

        deinit { for fd in others + [descriptor] { close(fd) } }

        /// A pipe nobody reads; `prefilled`: already full.
        static func pipe(prefilled: Bool) throws -> Sink {
            var fds: [Int32] = [0, 0]
            guard Glibc.pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            if prefilled { fill(fds[1]) }
            return Sink(descriptor: fds[1], others: [fds[0]])
        }

        /// A FIFO opened by a reader that never reads.
        static func fifo(in folder: String) throws -> Sink {
            let path = folder + "/out.fifo"
            guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.EEXIST) }
            let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            let writer = open(path, O_WRONLY | O_CLOEXEC)
            guard reader >= 0, writer >= 0 else { throw POSIXError(.ENXIO) }
            return Sink(descriptor: writer, others: [reader])
        }

        /// A connected stream socket whose peer never reads, its buffers small.
        static func socket() throws -> Sink {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else { throw POSIXError(.EMFILE) }
            var small: Int32 = 4096
            _ = setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            return Sink(descriptor: fds[0], others: [fds[1]])
        }

        /// A file (or a device such as /dev/full).
        static func file(_ path: String, create: Bool = true) throws -> Sink {
            let fd = open(path, O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0), 0o644)
            guard fd >= 0 else { throw POSIXError(.ENOENT) }
            return Sink(descriptor: fd, others: [])
        }

        /// Writes into `fd` until it takes no more, without blocking.
        static func fill(_ fd: Int32) {
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
            while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
            var one = [UInt8(ascii: "x")]
            while write(fd, &one, 1) > 0 {}
            _ = fcntl(fd, F_SETFL, flags)
        }
    }

    // MARK: - Watching the child

    /// True when a thread of `pid` waits to write: in write(2), writev(2) or sendto(2), or in the
    /// poll(2) on two descriptors without a timeout with which tiltboard waits for its output's room.
    static func isWaitingOnOutput(_ pid: pid_t) -> Bool {
        threadSyscalls(pid).contains { call in
            guard let number = call.first else { return false }
            switch number {
            case 1, 20, 44: return true
            // The timeout, an int, shows as 0xffffffff.
            case 7: return call.count > 3 && call[2] == 2 && call[3] & 0xffff_ffff == 0xffff_ffff
            default: return false
            }
        }
    }

    /// True when `pid` waits for a FIFO's reader: a thread in open(2)/openat(2), or sleeping
    /// between attempts (poll(2) on no descriptor).
    static func isWaitingForAReader(_ pid: pid_t) -> Bool {
        threadSyscalls(pid).contains { call in
            guard let number = call.first else { return false }
            return number == 2 || number == 257 || (number == 7 && call.count > 2 && call[2] == 0)
        }
    }

    /// Each thread's /proc/PID/task/TID/syscall: the number and arguments of the call it is in.
    static func threadSyscalls(_ pid: pid_t) -> [[UInt64]] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { tid in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/syscall", encoding: .utf8) else { return nil }
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard let first = fields.first, let number = UInt64(first) else { return nil }
            return [number] + fields.dropFirst().compactMap { UInt64($0.dropFirst(2), radix: 16) }
        }
    }

    static func motorWasOn(_ log: String) -> Bool {
        (try? MotorLogFile.read(log))?.contains { $0.level == 1 } == true
    }

    static func waitFor(timeout: Double, _ condition: () -> Bool) -> Bool {
        pollUntil(timeout: timeout, every: 0.002, condition)
    }

    static func stderr(_ folder: String) -> String {
        (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? ""
    }

    /// A simulated MPU-6050 board playing `script`, its motor logged to `folder/motor.log`, a
    /// shake playing a 30 s pulse.
    static func board(in folder: String, name: String = "board.json", script: String = "flat") throws -> String {
        let path = folder + "/" + name
        let json = """
        {"name": "stalled output test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17, "shakeEffect": "pulse:30000", "maxOnSeconds": 60},
         "simulation": {"script": "\(script)", "noise": false, "motorLog": "\(folder)/motor.log"}}
        """
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: - Sockets

    static func connect(port: UInt16, smallBuffer: Bool = true) throws -> Int32 {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var small: Int32 = 4096
        if smallBuffer { _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Bytes waiting unread in `fd`'s receive queue (FIONREAD).
    static func unreadBytes(_ fd: Int32) -> Int {
        var count: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }
}

/// A `tiltboard` child with the standard descriptors the test gives it, started with
/// posix_spawn and waited for with waitpid, so its end is seen the moment it happens.
final class SpawnedChild {
    let pid: pid_t
    private var status: WaitStatus?

    struct WaitStatus: CustomStringConvertible {
        var raw: Int32
        /// The exit status, nil when a signal ended it.
        var exitCode: Int32? { raw & 0x7f == 0 ? (raw >> 8) & 0xff : nil }
        /// The signal that ended it, nil when it exited.
        var killedBy: Int32? { raw & 0x7f == 0 ? nil : raw & 0x7f }
        var description: String { exitCode.map { "exit \($0)" } ?? "killed by signal \(killedBy ?? 0)" }
    }

    init(_ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32, environment: [String: String]) throws {
        let binary = try CLIRunner.binaryPath()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
        self.pid = pid
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            _ = waitpid(pid, &raw, 0)
        }
    }

    /// The status once the child ended within `timeout` seconds (0: only look), else nil.
    func waitForEnd(timeout: Double) -> WaitStatus? {
        if let status { return status }
        _ = pollUntil(timeout: Swift.max(timeout, 0), every: 0.001) {
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return false }
            status = WaitStatus(raw: raw)
            return true
        }
        return status
    }
}

import Foundation
import Synchronization
import Tiltboard
import TiltboardCommands
import XCTest
import TiltboardLinux
#if canImport(Glibc)
import Glibc
#endif

/// `tiltboard monitor` driven through a pseudo-terminal, as a person at a terminal would.
final class MonitorCommandTests: XCTestCase {
    /// A simulated MPU-6050 held at pitch 10°, roll −5° (no noise), with a motor; returns the board file.
    private func writeBoard(in folder: String) throws -> String {
        let script = folder + "/held.json"
        try #"{"start": {"pitchDeg": 10, "rollDeg": -5}, "segments": [{"hold": {"seconds": 1}}]}"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        let board = folder + "/board.json"
        try """
        {"name": "monitor test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17},
         "simulation": {"script": "\(script)", "noise": false}}
        """.write(toFile: board, atomically: true, encoding: .utf8)
        return board
    }

    func testKeysSetAndZeroTheNeutralPoseThenQuitRestoresTheTerminal() throws {
        let folder = try makeScratchFolder(self)
        let profile = folder + "/p.json"
        let run = try MonitorRun(arguments: ["monitor", "--board", try writeBoard(in: folder), "--profile", profile],
                                 home: folder)
        defer { run.kill() }
        let before = run.modesBefore

        try run.waitForScreen(containing: "c: set neutral  z: zero  q: quit")
        XCTAssertTrue(run.screen.contains("monitor test board"))
        // While running, the terminal is raw: no line editing, no echo.
        let during = try TerminalModes.of(fd: run.pty.slave)
        XCTAssertFalse(during.isCanonical)
        XCTAssertFalse(during.echoes)
        XCTAssertNil(try ProfileStore.load(path: profile, expectedBoard: nil))

        try run.pty.send(Array("c".utf8))
        // The screen says so once the file is written.
        try run.waitForScreen(containing: "neutral saved to")
        let captured = try XCTUnwrap(try ProfileStore.load(path: profile, expectedBoard: nil))
        // The held pose's tilt from level: acos(cos 10° · cos 5°) = 11.17°.
        XCTAssertEqual(captured.neutral.tiltDeg, 11.17, accuracy: 0.2)
        XCTAssertEqual(captured.neutral.meanRawG.x, sin(5 * Double.pi / 180), accuracy: 0.01)
        XCTAssertEqual(captured.neutral.meanRawG.y, -sin(10 * Double.pi / 180) * cos(5 * Double.pi / 180), accuracy: 0.01)
        // Half a second at 100 Hz.
        XCTAssertEqual(captured.sampleCount, 50)
        // Relative to the new neutral the board reads level again.
        try run.waitForScreen { $0.range(of: #"pitch +\+0\.0°  roll +\+0\.0°"#, options: .regularExpression) != nil }

        try run.pty.send(Array("z".utf8))
        try run.waitForScreen(containing: "neutral zeroed")
        let zeroed = try XCTUnwrap(try ProfileStore.load(path: profile, expectedBoard: nil))
        XCTAssertEqual(zeroed.neutral.tiltDeg, 0)
        XCTAssertEqual(zeroed.neutral.rotation, .identity)
        try run.waitForScreen { $0.range(of: #"pitch +\+10\.0°  roll +-5\.0°"#, options: .regularExpression) != nil }

        try run.pty.send(Array("q".utf8))
        let status = try run.waitForExit()
        XCTAssertEqual(status, 0, run.screen)
        let after = try TerminalModes.of(fd: run.pty.slave)
        XCTAssertEqual(after, before)
        XCTAssertTrue(after.isCanonical)
        XCTAssertTrue(after.echoes)
        // Cursor shown again and the alternate screen left, after the last frame.
        let screen = run.screen
        let leave = try XCTUnwrap(screen.range(of: "\u{1B}[?25h\u{1B}[?1049l", options: .backwards))
        XCTAssertNil(screen[leave.upperBound...].range(of: "\u{1B}[?1049h"))
        XCTAssertTrue(screen.contains("\u{1B}[?1049h\u{1B}[?25l"))
        // The loop's statistics follow on stderr, on the restored screen.
        let stats = try XCTUnwrap(screen.range(of: "tiltboard: monitor: ", options: .backwards))
        XCTAssertGreaterThanOrEqual(stats.lowerBound, leave.upperBound)
        XCTAssertTrue(screen[stats.upperBound...].contains(" samples; ticks "))
        XCTAssertTrue(screen[stats.upperBound...].contains("; cap trips 0"))
        // Frames overwrite in place; the screen is cleared only once, at the start.
        XCTAssertEqual(screen.components(separatedBy: "\u{1B}[2J").count - 1, 2, "cleared more than on entry and first frame")
    }

    /// In real time, as a person would stop it.
    func testSIGINTExitsZeroAndRestoresTheTerminal() throws {
        let folder = try makeScratchFolder(self)
        let run = try MonitorRun(arguments: ["monitor", "--board", try writeBoard(in: folder), "--profile", folder + "/p.json"],
                                 home: folder, clock: .system)
        defer { run.kill() }
        try run.waitForScreen(containing: "q: quit")
        Glibc.kill(run.process.processIdentifier, SIGINT)
        XCTAssertEqual(try run.waitForExit(), 0, run.screen)
        XCTAssertEqual(try TerminalModes.of(fd: run.pty.slave), run.modesBefore)
        XCTAssertTrue(run.screen.contains("\u{1B}[?25h\u{1B}[?1049l"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/p.json"), "quitting must not write a profile")
    }

    func testCtrlCByteAndEscQuit() throws {
        for key: UInt8 in [0x03, 0x1B] {
            let folder = try makeScratchFolder(self)
            let run = try MonitorRun(arguments: ["monitor", "--board", try writeBoard(in: folder), "--profile", folder + "/p.json"],
                                     home: folder)
            defer { run.kill() }
            try run.waitForScreen(containing: "q: quit")
            try run.pty.send([key])
            XCTAssertEqual(try run.waitForExit(), 0, "key \(key): \(run.screen)")
            XCTAssertEqual(try TerminalModes.of(fd: run.pty.slave), run.modesBefore, "key \(key)")
        }
    }

    func testWithoutABoardTheDemoMovesTheMarker() throws {
        let folder = try makeScratchFolder(self)
        let run = try MonitorRun(arguments: ["monitor", "--profile", folder + "/p.json"], home: folder)
        defer { run.kill() }
        try run.waitForScreen(containing: "simulated MPU-6050 board")
        // The demo tilts the board: some frame shows a non-zero x or y.
        try run.waitForScreen(timeout: 30) { screen in
            screen.range(of: #"x [ +-]+0\.[0-9][1-9]|x [ +-]+0\.[1-9]|y [ +-]+0\.[1-9]"#, options: .regularExpression) != nil
        }
        try run.pty.send(Array("q".utf8))
        XCTAssertEqual(try run.waitForExit(), 0)
        XCTAssertEqual(try TerminalModes.of(fd: run.pty.slave), run.modesBefore)
    }

    func testAShakeFlashesTheFrame() throws {
        let folder = try makeScratchFolder(self)
        let board = folder + "/shake.json"
        try #"{"name": "shaken board", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68"}, "simulation": {"script": "shake", "noise": false}}"#
            .write(toFile: board, atomically: true, encoding: .utf8)
        let run = try MonitorRun(arguments: ["monitor", "--board", board, "--profile", folder + "/p.json"], home: folder)
        defer { run.kill() }
        try run.waitForScreen(containing: "shakes 1")
        // The top border, inverted, carries the banner.
        XCTAssertTrue(run.screen.contains("\u{1B}[2;1H\u{1B}[7m+-"), "no inverted frame")
        XCTAssertTrue(run.screen.contains(MonitorScreen.shakeBanner))
        // And the flash ends: a later frame draws the top border plain again.
        try run.waitForScreen(timeout: 20) { screen in
            guard let last = screen.range(of: MonitorScreen.shakeBanner, options: .backwards) else { return false }
            return screen[last.upperBound...].contains("\u{1B}[2;1H+---")
        }
        try run.pty.send(Array("q".utf8))
        XCTAssertEqual(try run.waitForExit(), 0)
    }

    func testShrinkingBelow80By24ShowsTheMessageUntilTheWindowGrowsAgain() throws {
        let folder = try makeScratchFolder(self)
        let run = try MonitorRun(arguments: ["monitor", "--board", try writeBoard(in: folder), "--profile", folder + "/p.json"],
                                 home: folder)
        defer { run.kill() }
        try run.waitForScreen(containing: "q: quit")
        try run.pty.setSize(TerminalSize(columns: 70, rows: 20))
        try run.waitForScreen(containing: "terminal is 70×20; tiltboard monitor needs at least 80×24")
        let shrunk = run.screen.count
        try run.pty.setSize(TerminalSize(columns: 100, rows: 30))
        // The frame is drawn again, now 100 wide, after a single clear.
        try run.waitForScreen { screen in
            screen.count > shrunk && String(screen.dropFirst(shrunk)).contains("\u{1B}[2J")
                && String(screen.dropFirst(shrunk)).contains("+" + String(repeating: "-", count: 98) + "+")
        }
        try run.pty.send(Array("q".utf8))
        XCTAssertEqual(try run.waitForExit(), 0)
        XCTAssertEqual(try TerminalModes.of(fd: run.pty.slave), run.modesBefore)
    }

    func testTooSmallTerminalExits64WithAMessageAndLeavesTheTerminalAlone() throws {
        let folder = try makeScratchFolder(self)
        let run = try MonitorRun(arguments: ["monitor", "--profile", folder + "/p.json"], home: folder,
                                 size: TerminalSize(columns: 60, rows: 20))
        defer { run.kill() }
        XCTAssertEqual(try run.waitForExit(), 64)
        XCTAssertTrue(run.screen.contains("terminal is 60×20; tiltboard monitor needs at least 80×24"), run.screen)
        XCTAssertFalse(run.screen.contains("\u{1B}[?1049h"))
        XCTAssertEqual(try TerminalModes.of(fd: run.pty.slave), run.modesBefore)
    }

    func testWithoutATerminalExits64() throws {
        let folder = try makeScratchFolder(self)
        let result = try CLIRunner.run(["monitor", "--profile", folder + "/p.json"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("needs a terminal on stdin and stdout"), result.stderr)
    }
}

/// One `tiltboard` child with a pseudo-terminal as stdin, stdout and stderr; everything it
/// draws is collected by a reader thread so it never blocks on a full terminal buffer. Waits are
/// on what the child draws and on its exit, with generous timeouts; a simulated board runs on the
/// virtual clock unless `clock` is `.system`.
final class MonitorRun: @unchecked Sendable {
    let pty: PseudoTerminal
    let process = Process()
    let modesBefore: TerminalModes
    /// Guards `output` and is broadcast whenever the reader adds to it.
    private let drawn = NSCondition()
    private var output: [UInt8] = []
    private let reading = Atomic<Bool>(true)
    private let readerDone = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    /// Written to the terminal by the test after the child has exited: once read back, everything
    /// the child drew has been read too.
    private static let endMarker = Array("\u{1}end of the child's output\u{1}".utf8)

    init(arguments: [String], home: String, size: TerminalSize = TerminalSize(columns: 80, rows: 24),
         clock: TestClock = .virtual) throws {
        pty = try PseudoTerminal()
        try pty.setSize(size)
        modesBefore = try TerminalModes.of(fd: pty.slave)
        process.executableURL = URL(fileURLWithPath: try CLIRunner.binaryPath())
        process.arguments = arguments
        process.environment = clock.environment(
            ["TERM": "xterm-256color", "COLUMNS": String(size.columns), "LINES": String(size.rows), "XDG_CONFIG_HOME": home])
        let handle = FileHandle(fileDescriptor: pty.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        process.terminationHandler = { [exited] _ in exited.signal() }
        let thread = Thread { [self] in
            while reading.load(ordering: .acquiring) {
                guard let bytes = pty.read(timeoutMilliseconds: 50) else { break }
                if bytes.isEmpty { continue }
                drawn.lock()
                output += bytes
                drawn.broadcast()
                drawn.unlock()
            }
            readerDone.signal()
        }
        thread.start()
        try process.run()
    }

    /// Everything drawn so far, as text.
    var screen: String {
        drawn.lock(); defer { drawn.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    func waitForScreen(containing text: String, timeout: Double = 60) throws {
        try waitForScreen(timeout: timeout) { $0.contains(text) }
    }

    /// Returns once `condition` holds for what has been drawn; re-checked at each new output.
    func waitForScreen(timeout: Double = 60, _ condition: (String) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        drawn.lock()
        defer { drawn.unlock() }
        while !condition(String(decoding: output, as: UTF8.self)) {
            guard drawn.wait(until: deadline) else {
                throw MonitorRunError("screen never matched within \(timeout) s (running: \(process.isRunning)); last output: \(String(String(decoding: output, as: UTF8.self).suffix(2500)).debugDescription)")
            }
        }
    }

    /// The exit status, once everything the child wrote has been read.
    func waitForExit(timeout: Double = 60) throws -> Int32 {
        guard exited.wait(timeout: .now() + timeout) == .success else {
            kill()
            throw MonitorRunError("tiltboard monitor did not exit within \(timeout) s; last output: \(String(screen.suffix(2000)).debugDescription)")
        }
        exited.signal()
        process.waitUntilExit()
        // The marker follows the child's output through the terminal: when it arrives, all did.
        _ = Self.endMarker.withUnsafeBytes { write(pty.slave, $0.baseAddress, $0.count) }
        try waitForScreen { $0.contains(String(decoding: Self.endMarker, as: UTF8.self)) }
        reading.store(false, ordering: .releasing)
        readerDone.wait()
        drawn.lock()
        if let at = (0...(output.count - Self.endMarker.count)).last(where: { output[$0..<$0 + Self.endMarker.count].elementsEqual(Self.endMarker) }) {
            output.removeSubrange(at..<at + Self.endMarker.count)
        }
        drawn.unlock()
        return process.terminationStatus
    }

    /// Ends the child if still running and stops the reader.
    func kill() {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if reading.exchange(false, ordering: .acquiringAndReleasing) { readerDone.wait() }
    }
}

struct MonitorRunError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

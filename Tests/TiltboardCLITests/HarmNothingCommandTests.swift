import Foundation
import Tiltboard
import XCTest
import TiltboardLinux
import TiltboardSimulator
import TiltboardTestSupport

/// Commands never harm what is not theirs: files already at an output path, descriptors closed
/// at start, a motor left on by a stopped process, a capture whose result cannot be saved.
final class HarmNothingCommandTests: XCTestCase {
    /// Runs `script` with `/bin/sh -c`, `$TB` set to the tiltboard binary, output in files.
    private func shell(_ script: String, in folder: String, environment: [String: String] = [:]) throws -> CLIRunner.Result {
        try CLIRunner.shell(script, in: folder, environment: environment)
    }

    private func fileType(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0, path)
        return st.st_mode & S_IFMT
    }

    /// Waits (generously) until `condition` holds; false if it never did.
    private func waitFor(_ condition: () -> Bool) -> Bool {
        pollUntil(timeout: 20, condition)
    }

    /// The state letter of /proc/PID/stat: R, S, T (stopped), …
    private func processState(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }

    func testCtrlZTurnsTheMotorOffBeforeTheProcessStopsAndContinueGoesOn() throws {
        let folder = try makeScratchFolder(self)
        // One long on-time, so the stop surely lands while the motor is on, however loaded the machine.
        let board = try SimBoardFile.write(in: folder, motorExtras: #", "maxOnSeconds": 60"#)
        let child = try ChildProcess(["haptics", "--board", board.path, "--pattern", "50000,100"], environment: ["XDG_CONFIG_HOME": folder])
        let pid = child.process.processIdentifier
        XCTAssertTrue(waitFor { (try? MotorLogFile.read(board.log))?.last?.level == 1 }, "the motor never came on: \(child.stderr)")
        XCTAssertEqual(kill(pid, SIGTSTP), 0)
        XCTAssertTrue(waitFor { processState(pid) == "T" }, "the process did not stop: \(child.stderr)")
        let whileStopped = try MotorLogFile.read(board.log)
        XCTAssertEqual(whileStopped.map(\.level), [1, 0], "the motor must be off while the process is stopped")
        XCTAssertEqual(processState(pid), "T")

        // Continued within the on-time: the effect goes on.
        XCTAssertEqual(kill(pid, SIGCONT), 0)
        XCTAssertTrue(waitFor { (try? MotorLogFile.read(board.log))?.map(\.level) == [1, 0, 1] }, child.stderr)
        XCTAssertEqual(kill(pid, SIGINT), 0)
        XCTAssertTrue(child.waitForExit(), "did not finish after SIGINT")
        XCTAssertEqual(child.process.terminationStatus, 0, child.stderr)
        XCTAssertEqual(try MotorLogFile.read(board.log).map(\.level), [1, 0, 1, 0])
        XCTAssertFalse(child.stderr.contains("error"), child.stderr)
    }

    func testRecordWritesThroughADeviceNodeAndAFIFOAndRefusesAFolder() throws {
        let folder = try makeScratchFolder(self)
        let fifo = folder + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        // The reader is open before the recording starts; 0.3 s of samples fit in the pipe's buffer.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        let piped = try CLIRunner.run(["record", "--out", fifo, "--duration", "0.3"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(fileType(fifo), S_IFIFO, "the FIFO is still a FIFO")
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while case let n = read(reader, &chunk, chunk.count), n > 0 { received += chunk[0..<n] }
        let trace = try TraceMotion(csv: String(decoding: received, as: UTF8.self))
        XCTAssertTrue(piped.stderr.contains("recorded \(trace.times.count) samples to \(fifo)"), piped.stderr)

        let dir = folder + "/dir"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        let refused = try CLIRunner.run(["record", "--force", "--out", dir, "--duration", "0.2"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(refused.status, 73)
        XCTAssertTrue(refused.stderr.contains("tiltboard: error: \(dir) is a folder"), refused.stderr)
        XCTAssertEqual(fileType(dir), S_IFDIR)

        let node = folder + "/null"
        guard mknod(node, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
            throw XCTSkip("cannot make a device node here (\(String(cString: strerror(errno)))): not root, or a nodev file system")
        }
        let forced = try CLIRunner.run(["record", "--force", "--out", node, "--duration", "0.2"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(fileType(node), S_IFCHR, "the device node is still a device node")
    }

    func testASecondRecordingOfAFileBeingRecordedIsRefusedEvenWithForce() throws {
        let folder = try makeScratchFolder(self)
        let out = folder + "/same.csv"
        // Until stopped, so it is still recording however long the second ones take on a loaded machine.
        let first = try ChildProcess(["record", "--out", out], environment: ["XDG_CONFIG_HOME": folder])
        // The note comes once the file is open.
        XCTAssertTrue(waitFor { first.stderr.contains("recording ") }, first.stderr)
        for force in [[], ["--force"]] {
            let second = try CLIRunner.run(["record", "--out", out, "--duration", "0.2"] + force, environment: ["XDG_CONFIG_HOME": folder])
            XCTAssertEqual(second.status, 73, "\(force): \(second.stderr)")
            XCTAssertTrue(second.stderr.contains(force.isEmpty ? "\(out) already exists" : "\(out) is being written by another program"),
                          second.stderr)
        }
        kill(first.process.processIdentifier, SIGINT)
        XCTAssertTrue(first.waitForExit())
        XCTAssertEqual(first.process.terminationStatus, 0, first.stderr)
        // The first recording, whole: its own count of samples, not a later 0.2 s one's.
        let trace = try TraceMotion(csv: try String(contentsOfFile: out, encoding: .utf8))
        XCTAssertTrue(first.stderr.contains("recorded \(trace.times.count) samples to \(out)"), first.stderr)
    }

    func testAClosedStandardDescriptorIsNeverReusedAndOutputForItFails() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let run = try shell(#"exec "$TB" run --json --board "$B" --duration 0.5 >&-"#, in: folder, environment: ["B": board.path])
        XCTAssertEqual(run.status, 74, run.stderr)
        XCTAssertTrue(run.stderr.contains("tiltboard: error: standard output was closed when tiltboard started"), run.stderr)
        XCTAssertNoThrow(try MotorLogFile.read(board.log), "nothing but motor changes in the motor log")

        let out = folder + "/rec.csv"
        let record = try shell(#"exec "$TB" record --out "$O" --duration 0.3 2>&-"#, in: folder, environment: ["O": out])
        XCTAssertEqual(record.status, 0)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertFalse(text.contains("tiltboard"), "a status line landed in the recording:\n\(text)")
        XCTAssertFalse(try TraceMotion(csv: text).times.isEmpty)

        let stdoutAlias = try shell(#"exec "$TB" record --out /dev/stdout --duration 0.3 >&-"#, in: folder)
        XCTAssertEqual(stdoutAlias.status, 74, stdoutAlias.stderr)
        XCTAssertTrue(stdoutAlias.stderr.contains("/dev/stdout is descriptor 1, which was closed when tiltboard started"), stdoutAlias.stderr)
    }

    func testCtrlZInTheMonitorGivesTheTerminalBackBeforeTheStopAndTakesItAgainOnContinue() throws {
        let folder = try makeScratchFolder(self)
        let board = folder + "/board.json"
        try """
        {"name": "monitor test board", "sensor": {"chip": "mpu6050", "bus": "simulated"},
         "motor": {"chip": "simulated", "line": 17}, "simulation": {"script": "flat", "noise": false}}
        """.write(toFile: board, atomically: true, encoding: .utf8)
        let run = try MonitorRun(arguments: ["monitor", "--board", board, "--profile", folder + "/p.json"], home: folder)
        defer { run.kill() }
        let pid = run.process.processIdentifier
        let enter = "\u{1B}[?1049h", leave = "\u{1B}[?1049l"
        try run.waitForScreen(containing: "q: quit")
        XCTAssertFalse(try TerminalModes.of(fd: run.pty.slave).isCanonical)

        // Raw mode delivers Ctrl-Z as a byte.
        try run.pty.send([0x1A])
        XCTAssertTrue(waitFor { processState(pid) == "T" }, "the monitor did not stop: \(run.screen.suffix(500).debugDescription)")
        XCTAssertEqual(try TerminalModes.of(fd: run.pty.slave), run.modesBefore, "the shell gets its terminal back while stopped")
        try run.waitForScreen { $0.components(separatedBy: leave).count == 2 }

        XCTAssertEqual(kill(pid, SIGCONT), 0)
        try run.waitForScreen { $0.components(separatedBy: enter).count == 3 }
        XCTAssertTrue(waitFor { (try? TerminalModes.of(fd: run.pty.slave).isCanonical) == false }, "raw mode not taken back")
        let resumedAt = try XCTUnwrap(run.screen.range(of: enter, options: .backwards))
        try run.waitForScreen { $0[resumedAt.upperBound...].contains("q: quit") }

        try run.pty.send(Array("q".utf8))
        XCTAssertEqual(try run.waitForExit(), 0, run.screen)
        XCTAssertEqual(try TerminalModes.of(fd: run.pty.slave), run.modesBefore)
    }

    /// Permission cases as an unprivileged user: root ignores file modes.
    private func asNobody(_ arguments: String, in folder: String) throws -> CLIRunner.Result {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("setpriv is not installed") }
        guard getuid() == 0 else { throw XCTSkip("running as an unprivileged user needs root") }
        return try shell(#"exec setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" "# + arguments, in: folder,
                         environment: ["TB": try CLIRunner.binary(stagedIn: folder)])
    }

    func testCalibrateFailsBeforeTheCaptureWhenTheProfileCannotBeSaved() throws {
        let folder = try makeScratchFolder(self)
        // Readable by everyone, writable by root only.
        try FileManager.default.createDirectory(atPath: folder + "/tiltboard/profiles", withIntermediateDirectories: true)
        for mode in ["neutral": "--yes", "sensor": "--sensor --yes"] {
            let r = try asNobody("calibrate " + mode.value, in: folder)
            XCTAssertEqual(r.status, 77, "\(mode.key): \(r.stderr)")
            // The path is quoted by its last 80 characters.
            XCTAssertTrue(r.stderr.contains("tiltboard: error: …" + String((folder + "/tiltboard/profiles/simulated-mpu-6050-board.json").suffix(79)) + ": cannot create "), r.stderr)
            XCTAssertTrue(r.stderr.contains("Permission denied"), r.stderr)
            XCTAssertFalse(r.stderr.contains("capturing") || r.stderr.contains("face 1/6"), "\(mode.key) captured before failing: \(r.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/tiltboard/profiles"), [])
    }

    func testRecordIntoAFolderItCannotWriteIsRefusedWith77() throws {
        let folder = try makeScratchFolder(self)
        let r = try asNobody("record --out \(folder)/rec.csv --duration 0.2", in: folder)
        XCTAssertEqual(r.status, 77, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: error: cannot create \(folder)/rec.csv: Permission denied"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/rec.csv"))
    }

    func testAProfilePathThatIsADeviceIsRefusedBeforeTheCapture() throws {
        let folder = try makeScratchFolder(self)
        let node = folder + "/null"
        guard mknod(node, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
            throw XCTSkip("cannot make a device node here (\(String(cString: strerror(errno)))): not root, or a nodev file system")
        }
        // Refused when the profile is loaded: a profile path must be a regular file.
        let r = try CLIRunner.run(["calibrate", "--yes", "--profile", node], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 73, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: error: profile \(node): a character device, not a regular file"), r.stderr)
        XCTAssertFalse(r.stderr.contains("capturing"), r.stderr)
        XCTAssertEqual(fileType(node), S_IFCHR)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["null"])
    }
}

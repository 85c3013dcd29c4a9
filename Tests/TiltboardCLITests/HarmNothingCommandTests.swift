import Foundation
import Tiltboard
import XCTest

/// Commands never harm what is not theirs: files already at an output path, descriptors closed
/// at start, a motor left on by a stopped process, a capture whose result cannot be saved.
final class HarmNothingCommandTests: XCTestCase {
    /// Runs `script` with `/bin/sh -c`, `$TB` set to the tiltboard binary, output in files.
    private func shell(_ script: String, in folder: String, environment: [String: String] = [:]) throws -> CLIRunner.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = ProcessInfo.processInfo.environment
            .merging(["TB": try CLIRunner.binaryPath(), "XDG_CONFIG_HOME": folder, "HOME": folder]) { $1 }
            .merging(environment) { $1 }
        let out = folder + "/sh.out", err = folder + "/sh.err"
        FileManager.default.createFile(atPath: out, contents: nil)
        FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        return CLIRunner.Result(status: process.terminationStatus,
                                stdout: try String(contentsOfFile: out, encoding: .utf8),
                                stderr: try String(contentsOfFile: err, encoding: .utf8))
    }

    private func fileType(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0, path)
        return st.st_mode & S_IFMT
    }

    /// Waits (generously) until `condition` holds; false if it never did.
    private func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while !condition() {
            if Date() > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// The state letter of /proc/PID/stat: R, S, T (stopped), …
    private func processState(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }

    func testCtrlZTurnsTheMotorOffBeforeTheProcessStopsAndContinueGoesOn() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let child = try ChildProcess(["haptics", "--board", board.path, "--pattern", "1500,200"], environment: ["XDG_CONFIG_HOME": folder])
        let pid = child.process.processIdentifier
        XCTAssertTrue(waitFor { (try? MotorLogFile.read(board.log))?.last?.level == 1 }, "the motor never came on: \(child.stderr)")
        XCTAssertEqual(kill(pid, SIGTSTP), 0)
        XCTAssertTrue(waitFor { processState(pid) == "T" }, "the process did not stop: \(child.stderr)")
        let whileStopped = try MotorLogFile.read(board.log)
        XCTAssertEqual(whileStopped.map(\.level), [1, 0], "the motor must be off while the process is stopped")
        XCTAssertEqual(processState(pid), "T")

        XCTAssertEqual(kill(pid, SIGCONT), 0)
        XCTAssertTrue(child.waitForExit(), "did not finish after SIGCONT")
        XCTAssertEqual(child.process.terminationStatus, 0, child.stderr)
        XCTAssertEqual(try MotorLogFile.read(board.log).last?.level, 0)
        XCTAssertFalse(child.stderr.contains("error"), child.stderr)
    }

    func testRecordWritesThroughADeviceNodeAndAFIFOAndRefusesAFolder() throws {
        let folder = try makeScratchFolder(self)
        let fifo = folder + "/fifo", copy = folder + "/copy.csv"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let piped = try shell(#"cat "$1" > "$2" & "$TB" record --out "$1" --duration 0.3; s=$?; wait; exit $s"#
                              .replacingOccurrences(of: "$1", with: fifo).replacingOccurrences(of: "$2", with: copy), in: folder)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(fileType(fifo), S_IFIFO, "the FIFO is still a FIFO")
        let trace = try TraceMotion(csv: try String(contentsOfFile: copy, encoding: .utf8))
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

    func testTwoRecordingsOfOneFileAtOnceNeverBothSucceed() throws {
        let folder = try makeScratchFolder(self)
        let out = folder + "/same.csv"
        let arguments = ["record", "--out", out, "--duration", "1"]
        let children = try [ChildProcess(arguments, environment: ["XDG_CONFIG_HOME": folder]),
                            ChildProcess(arguments, environment: ["XDG_CONFIG_HOME": folder])]
        for child in children { XCTAssertTrue(child.waitForExit(timeout: 30)) }
        let statuses = children.map(\.process.terminationStatus).sorted()
        XCTAssertEqual(statuses, [0, 73], children.map(\.stderr).joined())
        let loser = children.first { $0.process.terminationStatus == 73 }
        XCTAssertTrue(loser?.stderr.contains("already exists") == true || loser?.stderr.contains("being written by another program") == true,
                      loser?.stderr ?? "")
        let trace = try TraceMotion(csv: try String(contentsOfFile: out, encoding: .utf8))
        XCTAssertEqual(Double(trace.times.count), 100, accuracy: 5, "one whole recording, not two mixed")
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
        XCTAssertEqual(Double(try TraceMotion(csv: text).times.count), 30, accuracy: 3)

        let stdoutAlias = try shell(#"exec "$TB" record --out /dev/stdout --duration 0.3 >&-"#, in: folder)
        XCTAssertEqual(stdoutAlias.status, 74, stdoutAlias.stderr)
        XCTAssertTrue(stdoutAlias.stderr.contains("/dev/stdout is descriptor 1, which was closed when tiltboard started"), stdoutAlias.stderr)
    }

    /// Permission cases as an unprivileged user: root ignores file modes.
    private func asNobody(_ arguments: String, in folder: String) throws -> CLIRunner.Result {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("setpriv is not installed") }
        guard getuid() == 0 else { throw XCTSkip("running as an unprivileged user needs root") }
        return try shell(#"exec setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" "# + arguments, in: folder)
    }

    func testCalibrateFailsBeforeTheCaptureWhenTheProfileCannotBeSaved() throws {
        let folder = try makeScratchFolder(self)
        // Readable by everyone, writable by root only.
        try FileManager.default.createDirectory(atPath: folder + "/tiltboard/profiles", withIntermediateDirectories: true)
        for mode in ["neutral": "--yes", "sensor": "--sensor --yes"] {
            let r = try asNobody("calibrate " + mode.value, in: folder)
            XCTAssertEqual(r.status, 77, "\(mode.key): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("tiltboard: error: \(folder)/tiltboard/profiles/"), r.stderr)
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

    func testAProfilePathThatIsAFIFOIsRefusedBeforeTheCapture() throws {
        let folder = try makeScratchFolder(self)
        let fifo = folder + "/profile.json"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        // The profile is read first: give that read an end of file from a writer that closes at once.
        let r = try shell(#"( exec 3>"$P" ) & exec "$TB" calibrate --yes --profile "$P""#, in: folder, environment: ["P": fifo])
        XCTAssertEqual(r.status, 73, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(fifo) is a FIFO, which is never replaced"), r.stderr)
        XCTAssertFalse(r.stderr.contains("capturing"), r.stderr)
        XCTAssertEqual(fileType(fifo), S_IFIFO)
    }
}

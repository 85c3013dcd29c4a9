import Foundation
import Tiltboard
import XCTest
import TiltboardLinux
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// Every way the output can fail: a reader that goes away (a normal stop, exit 0), a reader that
/// falls behind (lines dropped, never a stalled loop), and write errors (one line, exit 74) — with
/// the motor off each time.
final class FailSafeOutputTests: XCTestCase {
    /// A simulated board in `folder` playing `script`, its motor logged to `log` (default
    /// `folder/motor.log`).
    private func board(_ folder: String, script: String, effect: String = "buzz", log: String? = nil) throws -> String {
        let path = folder + "/board.json"
        let json = """
        {"name": "fail-safe test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17, "shakeEffect": "\(effect)"},
         "simulation": {"script": "\(script)", "noise": false, "motorLog": "\(log ?? folder + "/motor.log")"}}
        """
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: - A reader that goes away

    /// `run --json | head` closes the pipe in the middle of the shake's buzz: exit 0, no error,
    /// the motor off.
    func testAReaderLeavingMidEffectIsANormalStopWithTheMotorOff() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, script: "shake")
        // Line 130 is about 1.3 s in: the shake (its third half-cycle) starts the 400 ms buzz at about 1.1 s.
        let r = try Shell.run(#""$T" run --board "$B" --json --duration 4 2>"$D/err" | head -n 130 >/dev/null; echo "${PIPESTATUS[0]}""#,
                              folder: folder, extra: ["B": b])
        let stderr = (try? String(contentsOfFile: folder + "/err", encoding: .utf8)) ?? ""
        XCTAssertEqual(r.stdout, "0\n", stderr)
        XCTAssertFalse(stderr.contains("tiltboard: error:"), stderr)
        let log = try MotorLogFile.read(folder + "/motor.log")
        XCTAssertTrue(log.contains { $0.level == 1 }, "the motor never ran, so nothing was tested: \(stderr)")
        XCTAssertEqual(log.last?.level, 0, "the motor was left on: \(log)")
    }

    /// `shake --json | head -n 1` with a long effect: the next event line finds the pipe closed.
    func testShakeToAClosedPipeStopsALongEffect() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, script: "shake", effect: "pulse:1900")
        let r = try Shell.run(#""$T" shake --board "$B" --json --duration 5 2>"$D/err" | head -n 1; echo "${PIPESTATUS[0]}""#,
                              folder: folder, extra: ["B": b])
        let stderr = (try? String(contentsOfFile: folder + "/err", encoding: .utf8)) ?? ""
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, r.stdout)
        XCTAssertTrue(lines.first?.hasPrefix(#"{"event":"start""#) ?? false, r.stdout)
        XCTAssertEqual(lines.last, "0", stderr)
        let log = try MotorLogFile.read(folder + "/motor.log")
        XCTAssertEqual(log.map(\.level), [1, 0], stderr)
        // Off when the end of the shake (about 1.2 s after its start) met the closed pipe, not
        // after the effect's 1.9 s.
        if log.count == 2 { XCTAssertLessThan(log[1].t - log[0].t, 1.8, "\(log)") }
    }

    /// `haptics --repeat 0 2>&1 | head -n 2`: stderr is the closed pipe.
    func testAClosedStandardErrorIsANormalStop() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, script: "flat")
        let r = try Shell.run(#""$T" haptics --board "$B" --repeat 0 2>&1 | head -n 2; echo "${PIPESTATUS[0]}""#,
                              folder: folder, extra: ["B": b])
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, r.stdout)
        XCTAssertEqual(lines.last, "0", r.stdout)
        let log = try MotorLogFile.read(folder + "/motor.log")
        XCTAssertTrue(log.contains { $0.level == 1 }, "\(log)")
        XCTAssertEqual(log.last?.level, 0, "the motor was left on: \(log)")
    }

    // MARK: - A reader that falls behind

    /// Nobody reads the pipe while `run` writes 1500 lines: the pipe fills, the queue drops the
    /// oldest lines and the run still ends on its own, saying how many were dropped.
    func testASlowReaderCostsLinesNotTheLoop() throws {
        let folder = try makeScratchFolder(self)
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let (process, stderr) = try runToEnd(["run", "--json", "--rate", "500", "--duration", "3", "--board", try board(folder, script: "flat")],
                                             folder: folder, standardOutput: FileHandle(fileDescriptor: fds[1], closeOnDealloc: true))
        guard let process else { return XCTFail("run blocked on a reader that does not read: \(stderr)") }
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        let summary = try XCTUnwrap(stderr.range(of: #"output: \d+ lines written, \d+ dropped \(the reader fell behind\)"#,
                                                 options: .regularExpression), stderr)
        let counts = stderr[summary].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        XCTAssertGreaterThan(counts.last ?? 0, 0, stderr)
        // Every sample became a line, written or dropped.
        let samples = try XCTUnwrap(stderr.range(of: #"; \d+ samples"#, options: .regularExpression), stderr)
        XCTAssertEqual(Int(stderr[samples].filter(\.isNumber)), counts.reduce(0, +), stderr)

        // What the pipe holds: the first lines, whole.
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        var data = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n <= 0 { break }
            data += chunk[0..<n]
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 100)
        XCTAssertLessThanOrEqual(lines.count, counts.first ?? 0)
        for line in lines {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
    }

    // MARK: - Write errors

    /// Runs `script` with a 16 KB file system mounted on `$D/small` (a mount namespace of its
    /// own): the disk-full case without touching anything outside the scratch folder.
    private func onFullDisk(_ script: String, folder: String, extra: [String: String] = [:]) throws -> Shell.Result {
        guard (try? Shell.run("unshare -m -r true", folder: folder))?.status == 0 else {
            throw XCTSkip("unshare cannot make a mount namespace here")
        }
        try FileManager.default.createDirectory(atPath: folder + "/small", withIntermediateDirectories: true)
        return try Shell.run(#"unshare -m -r bash -c 'mount -t tmpfs -o size=16k tmpfs "$D/small" && "# + script + "'",
                             folder: folder, extra: extra)
    }

    func testAFullDiskUnderStandardOutputIsExit74() throws {
        let folder = try makeScratchFolder(self)
        let r = try onFullDisk(#""$T" read --json --count 1500 --rate 1000 > "$D/small/out"; echo "$?""#, folder: folder)
        XCTAssertEqual(r.stdout, "74\n", r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").last,
                       "tiltboard: error: cannot write to standard output: No space left on device (errno 28): free some disk space")
    }

    func testAFullDiskUnderARecordingIsExit74() throws {
        let folder = try makeScratchFolder(self)
        let r = try onFullDisk(#""$T" record --out "$D/small/r.csv" --rate 1000 --duration 3; echo "$?""#, folder: folder)
        XCTAssertEqual(r.stdout, "74\n", r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("/small/r.csv: No space left on device (errno 28): free some disk space\n"), r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "tiltboard: error:").count, 2, r.stderr)
    }

    func testAFullDiskUnderTheMotorLogIsExit74WithTheMotorOff() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, script: "shake", log: folder + "/small/motor.log")
        let r = try onFullDisk(#"yes | head -c 100000 > "$D/small/fill"; "$T" shake --board "$B" --duration 4; echo "$?""#,
                               folder: folder, extra: ["B": b])
        XCTAssertTrue(r.stdout.hasSuffix("74\n"), r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("tiltboard: error: cannot write to motor log \(folder)/small/motor.log: No space left on device (errno 28): free some disk space\n"), r.stderr)
        // The log cannot show it; the line's own announcements can: its last change was off.
        let motorLines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: motor o") }
        XCTAssertTrue(motorLines.first?.hasPrefix("tiltboard: motor on ") ?? false, r.stderr)
        XCTAssertTrue(motorLines.last?.hasPrefix("tiltboard: motor off") ?? false, r.stderr)
        XCTAssertFalse(r.stderr.contains("stopped by signal"), r.stderr)
    }

    /// Standard output open for reading only: every write fails with EBADF.
    func testAStandardOutputNotOpenForWritingIsExit74() throws {
        let folder = try makeScratchFolder(self)
        FileManager.default.createFile(atPath: folder + "/readonly", contents: nil)
        let r = try Shell.run(#""$T" read --json --count 5 1<"$D/readonly"; echo "$?""#, folder: folder)
        XCTAssertEqual(r.stdout, "74\n", r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").last,
                       "tiltboard: error: cannot write to standard output: Bad file descriptor (errno 9): it is not open for writing")
    }

    /// A terminal that went away (its master side closed): every write fails with EIO.
    func testATerminalThatWentAwayIsExit74() throws {
        let folder = try makeScratchFolder(self)
        // Only the terminal side stays open: the pair's master side closes with `pty`.
        let slave = try { let pty = try PseudoTerminal(); return dup(pty.slave) }()
        XCTAssertGreaterThanOrEqual(slave, 0)
        let (process, stderr) = try runToEnd(["read", "--json", "--count", "0"], folder: folder,
                                             standardOutput: FileHandle(fileDescriptor: slave, closeOnDealloc: true))
        guard let process else { return XCTFail("read kept writing to a terminal that is gone: \(stderr)") }
        XCTAssertEqual(process.terminationStatus, 74, stderr)
        XCTAssertEqual(stderr.split(separator: "\n").last,
                       "tiltboard: error: cannot write to standard output: Input/output error (errno 5): the device or terminal is gone")
    }

    /// Runs tiltboard with `standardOutput` (closed here once the child has it) and stderr to a
    /// file, waiting generously for it to end: the process (nil if it never ended) and its stderr.
    private func runToEnd(_ arguments: [String], folder: String, standardOutput: FileHandle) throws -> (Process?, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLIRunner.binaryPath())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": folder]) { $1 }
        process.standardOutput = standardOutput
        let errPath = folder + "/err"
        FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        try standardOutput.close()
        pollUntil(timeout: 120) { !process.isRunning }
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (nil, stderr)
        }
        return (process, stderr)
    }

    // MARK: - UDP and the motor line

    func testUDPToAClosedPortIsSaidOnce() throws {
        let folder = try makeScratchFolder(self)
        // A port that was free a moment ago and has nobody listening now.
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        close(fd)
        let port = UInt16(bigEndian: address.sin_port)
        let r = try CLIRunner.run(["run", "--duration", "1", "--output-rate", "20", "--udp", "127.0.0.1:\(port)"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "refused a datagram").count, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: udp: 127.0.0.1:\(port) refused a datagram (Connection refused): nobody listening? Still sending"), r.stderr)
        XCTAssertNotNil(r.stderr.range(of: #"udp: \d+ datagrams to 127\.0\.0\.1:\d+, 0 dropped, [1-9]\d* refused"#, options: .regularExpression), r.stderr)
    }

    /// SIGKILL leaves the line on; the next command that opens it drives it off first.
    func testTheNextStartDrivesTheLineOffAfterAKill() throws {
        let folder = try makeScratchFolder(self)
        let b = try board(folder, script: "shake", effect: "pulse:1900")
        let log = folder + "/motor.log"
        let killed = try ChildProcess(["shake", "--board", b], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertTrue(MotorLogFile.waitForLevel(1, in: log), "the motor never went on: \(killed.stderr)")
        kill(killed.process.processIdentifier, SIGKILL)
        XCTAssertTrue(killed.waitForExit())
        XCTAssertEqual(try MotorLogFile.read(log).map(\.level), [1], "the kill came too late to leave the motor on")

        let r = try CLIRunner.run(["haptics", "--board", b, "--effect", "tick"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Off when the line was opened, before the tick.
        XCTAssertEqual(try MotorLogFile.read(log).map(\.level), [1, 0, 1, 0])
    }
}

/// Runs a bash script with `$T` the tiltboard binary and `$D` a scratch folder (also
/// XDG_CONFIG_HOME and HOME), for plumbing a test cannot set up through `Process` alone.
enum Shell {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ script: String, folder: String, extra: [String: String] = [:]) throws -> Result {
        let out = folder + "/.shell-out-" + UUID().uuidString, err = out + ".err"
        FileManager.default.createFile(atPath: out, contents: nil)
        FileManager.default.createFile(atPath: err, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out); try? FileManager.default.removeItem(atPath: err) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        var environment = ProcessInfo.processInfo.environment
        environment["T"] = try CLIRunner.binaryPath()
        environment["D"] = folder
        environment["XDG_CONFIG_HOME"] = folder
        environment["HOME"] = folder
        process.environment = environment.merging(extra) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        pollUntil(timeout: 120) { !process.isRunning }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTFail("still running after 120 s: \(script)")
        }
        return Result(status: process.terminationStatus,
                      stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}

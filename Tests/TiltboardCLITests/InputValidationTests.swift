import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Odd input never traps or hangs: one `tiltboard: error:` line and the documented exit code.
final class InputValidationTests: XCTestCase {
    /// Runs tiltboard and checks the exit code and that stderr is exactly one error line
    /// containing `expected`; returns that line.
    @discardableResult
    private func expectOneLine(_ arguments: [String], _ code: Int32, _ expected: String, folder: String,
                               file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try CLIRunner.run(arguments, environment: ["XDG_CONFIG_HOME": folder, "HOME": folder])
        XCTAssertEqual(r.status, code, "\(arguments): \(r.stderr)", file: file, line: line)
        let errors = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("tiltboard: no --board") }
        XCTAssertEqual(errors.count, 1, "\(arguments): \(r.stderr)", file: file, line: line)
        let text = String(errors.first ?? "")
        XCTAssertTrue(text.hasPrefix("tiltboard: error: "), text, file: file, line: line)
        XCTAssertTrue(text.contains(expected), "\(arguments): \(text)", file: file, line: line)
        return text
    }

    func testNumbersOutOfRangeAreOneLineUsageErrors() throws {
        let folder = try makeScratchFolder(self)
        try expectOneLine(["run", "--duration", "1e11"], 64, "--duration must be more than 0 and at most 10000000 seconds", folder: folder)
        try expectOneLine(["shake", "--duration", "nan"], 64, "--duration must be more than 0", folder: folder)
        try expectOneLine(["run", "--rate", "-5"], 64, "--rate must be between 0 and 8000 Hz, got -5.0", folder: folder)
        try expectOneLine(["record", "--out", folder + "/r.csv", "--duration", "-2"], 64, "--duration must be more than 0", folder: folder)
        try expectOneLine(["haptics", "--repeat", "9223372036854775807", "--effect", "alarm"], 64, "--repeat must be 0 (until interrupted) to 10000", folder: folder)
        try expectOneLine(["read", "--count", "-1"], 64, "--count must be 0 or more, got -1", folder: folder)
        let huge = String(repeating: "9", count: 5000)
        let text = try expectOneLine(["read", "--count", huge], 64, "is invalid for '--count <count>'", folder: folder)
        XCTAssertLessThan(text.count, 200, text)
    }

    /// `--rate` and `--duration` are one declaration each, shared: every command taking them checks them.
    func testEveryCommandTakingRateOrDurationChecksThem() throws {
        let folder = try makeScratchFolder(self)
        let out = ["--out", folder + "/r.csv"]
        for command in [["read"], ["record"] + out, ["shake"], ["run"], ["serve"]] {
            try expectOneLine(command + ["--rate", "9000"], 64, "--rate must be between 0 and 8000 Hz, got 9000.0", folder: folder)
        }
        for command in [["record"] + out, ["shake"], ["run"], ["serve"], ["gamepad"]] {
            try expectOneLine(command + ["--duration", "0"], 64,
                              "--duration must be more than 0 and at most 10000000 seconds (omit it to run until interrupted), got 0.0", folder: folder)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/r.csv"))
    }

    func testUsageErrorsAreOneLineInTheProjectsFormat() throws {
        let folder = try makeScratchFolder(self)
        try expectOneLine(["run", "--bogus"], 64, "Unknown option '--bogus'", folder: folder)
        try expectOneLine(["record"], 64, "Missing expected argument '--out <file.csv>' (see `tiltboard help record`)", folder: folder)
        try expectOneLine(["help", "nonexistent"], 64, "no command 'nonexistent'", folder: folder)
        try expectOneLine(["calibrate", "--zero", "--sensor"], 64, "--zero and --sensor cannot be combined", folder: folder)
        let help = try CLIRunner.run(["help", "run"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("--output-rate"), help.stdout)
    }

    private func writeBoard(_ folder: String, _ json: String, name: String = "board.json") throws -> String {
        let path = folder + "/" + name
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testABadShakeEffectIsABoardFileErrorEverywhere() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "motor": {"chip": "s", "line": 17, "shakeEffect": "zap"}}"#)
        let expected = "board file \(board): motor.shakeEffect: unknown effect 'zap': use one of tick, click, double-click, buzz, alarm or pulse:MS"
        for command in [["run", "--duration", "1"], ["haptics"], ["shake", "--duration", "1"]] {
            try expectOneLine(command + ["--board", board], 65, expected, folder: folder)
        }
    }

    func testABoardFileWhoseNameIsNotUTF8Opens() throws {
        // Arguments are bytes: a name made under another locale (Latin-1 "é" is 0xE9) still opens.
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let script = #"cp "$B" "$D"/caf$'\xe9'.json && "$T" read --count 2 --json --board "$D"/caf$'\xe9'.json && "$T" read --count 1 --json --board="$D"/caf$'\xe9'.json && "$T" read --count 1 --board "$D"/caf$'\xe8'.json"#
        let r = try Shell.run(script, folder: folder, extra: ["B": board.path, "TILTBOARD_CLOCK": "virtual"])
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, r.stderr)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix(#"{"t":"#) }, r.stdout)
        // A name that does not exist is still a missing board file (65), named as given.
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains("caf\u{FFFD}.json: no such file"), r.stderr)
    }

    func testAHugeValueIsQuotedShort() throws {
        let folder = try makeScratchFolder(self)
        let numbers = (0..<200_000).map(String.init).joined(separator: ",")
        let board = try writeBoard(folder, #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "mount": ["# + numbers + "]}")
        let text = try expectOneLine(["run", "--board", board], 65, "mount: [0,1,2,3,", folder: folder)
        XCTAssertLessThan(text.count, 400, text)
        let key = String(repeating: "k", count: 100_000)
        let keyBoard = try writeBoard(folder, #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, ""# + key + #"": 1}"#, name: "key.json")
        XCTAssertLessThan(try expectOneLine(["run", "--board", keyBoard], 65, "unknown key", folder: folder).count, 400)
    }

    /// Not a regular file: 73, docs/commands.md's exit for it, whatever the file.
    func testFIFOsAndDevicesAreRefusedAtOnce() throws {
        let folder = try makeScratchFolder(self)
        XCTAssertEqual(mkfifo(folder + "/fifo.json", 0o644), 0)
        try expectOneLine(["run", "--duration", "0.1", "--profile", folder + "/fifo.json"], 73,
                          "profile \(folder)/fifo.json: a FIFO, not a regular file", folder: folder)
        try expectOneLine(["run", "--duration", "0.1", "--board", folder + "/fifo.json"], 73,
                          "board file \(folder)/fifo.json: a FIFO, not a regular file", folder: folder)
        try expectOneLine(["run", "--duration", "0.1", "--board", folder], 73, "a folder, not a regular file", folder: folder)
        // Saving never replaces the FIFO either.
        try expectOneLine(["calibrate", "--zero", "--profile", folder + "/fifo.json"], 73, "a FIFO, not a regular file", folder: folder)
        var st = stat()
        XCTAssertEqual(lstat(folder + "/fifo.json", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO)
    }

    func testAProfileSymlinkIsWrittenThrough() throws {
        let folder = try makeScratchFolder(self)
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(folder + "/real/p.json", folder + "/link.json"), 0)
        let r = try CLIRunner.run(["calibrate", "--yes", "--duration", "0.5", "--profile", folder + "/link.json"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        var st = stat()
        XCTAssertEqual(lstat(folder + "/link.json", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK, "the link was replaced")
        XCTAssertEqual(lstat(folder + "/real/p.json", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG)
        let again = try CLIRunner.run(["profile", "show", "--profile", folder + "/link.json"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(again.status, 0, again.stderr)
    }

    /// Root ignores file modes, so the unreadable files are tried as an unprivileged user.
    func testUnreadableFilesArePermissionErrors() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to switch to an unprivileged user") }
        let folder = try makeScratchFolder(self)
        XCTAssertEqual(chmod(folder, 0o755), 0)
        let board = try writeBoard(folder, #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}}"#)
        let profile = try writeBoard(folder, "{}", name: "profile.json")
        XCTAssertEqual(chmod(board, 0), 0)
        XCTAssertEqual(chmod(profile, 0), 0)
        let binary = try CLIRunner.binary(stagedIn: folder)
        for (arguments, expected) in [(["run", "--duration", "0.1", "--board", board], "board file \(board): cannot read it: Permission denied"),
                                      (["run", "--duration", "0.1", "--profile", profile], "profile \(profile): cannot read it: Permission denied")] {
            let r = try Shell.run(#"cd "$D"; setpriv --reuid=65534 --regid=65534 --clear-groups "$T" "$@" 2>&1 >/dev/null | grep -v 'no --board'; exit "${PIPESTATUS[0]}""#
                                  .replacingOccurrences(of: "\"$@\"", with: arguments.map { "'\($0)'" }.joined(separator: " ")),
                                  folder: folder, extra: ["T": binary])
            XCTAssertEqual(r.status, 77, r.stdout + r.stderr)
            XCTAssertTrue(r.stdout.hasPrefix("tiltboard: error: \(expected)"), r.stdout)
            XCTAssertEqual(r.stdout.split(separator: "\n").count, 1, r.stdout)
        }
    }
}

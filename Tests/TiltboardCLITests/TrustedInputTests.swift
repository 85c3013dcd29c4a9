import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Nothing the user hands over is taken on trust, in any command: environment values, names
/// that are not UTF-8, long values, JSON with a key twice, files that are not regular files,
/// outputs that cannot be written. Each failure is one `tiltboard: error:` line, at most a
/// clipped quote of the value, and the exit code of the one table.
final class TrustedInputTests: XCTestCase {
    private var folder = ""
    private let board = packageRoot + "/Boards/simulated-mpu6050.json"

    override func setUpWithError() throws {
        folder = try makeScratchFolder(self)
    }

    /// Runs tiltboard; checks the exit code and that stderr holds exactly one error line that
    /// contains every fragment and is at most `longest` characters; returns that line.
    @discardableResult
    private func expectOneLine(_ arguments: [String], _ code: Int32, _ fragments: [String], environment: [String: String] = [:],
                               longest: Int = 400, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try CLIRunner.run(arguments, environment: ["XDG_CONFIG_HOME": folder, "HOME": folder].merging(environment) { $1 })
        XCTAssertEqual(r.status, code, "\(arguments.map { String($0.prefix(100)) }): \(r.stderr.prefix(500))", file: file, line: line)
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: error: ") }
        XCTAssertEqual(errors.count, 1, String(r.stderr.prefix(500)), file: file, line: line)
        XCTAssertFalse(r.stderr.contains("Fatal error") || r.stderr.contains("Backtrace"), String(r.stderr.prefix(500)), file: file, line: line)
        let text = String(errors.first ?? "")
        for fragment in fragments { XCTAssertTrue(text.contains(fragment), "want \(fragment) in: \(text.prefix(500))", file: file, line: line) }
        XCTAssertLessThanOrEqual(text.count, longest, String(text.prefix(500)), file: file, line: line)
        return text
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func goodProfile() throws -> String {
        let path = folder + "/good.json"
        let r = try CLIRunner.run(["calibrate", "--zero", "--board", board, "--profile", path], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    // MARK: 1. Environment

    func testEnvironmentValuesAreCheckedLikeOptions() throws {
        let long = String(repeating: "a", count: 100_000)
        // A long TILTBOARD_CLOCK is refused naming the variable, quoted short.
        try expectOneLine(["read", "--count", "1", "--board", board], 64, [#"TILTBOARD_CLOCK must be "virtual" or unset, got "aaaa"#, "a…\""],
                          environment: ["TILTBOARD_CLOCK": long], longest: 200)
        // The gamepad's node: absolute, and short enough to be a path.
        try expectOneLine(["gamepad", "--duration", "0.1", "--board", board], 64, [#"TILTBOARD_UINPUT must be an absolute path (or unset for /dev/uinput), got "dev/uinput""#],
                          environment: ["TILTBOARD_UINPUT": "dev/uinput"])
        try expectOneLine(["gamepad", "--duration", "0.1", "--board", board], 64, ["TILTBOARD_UINPUT is 100001 bytes long, more than a path can be (4095)"],
                          environment: ["TILTBOARD_UINPUT": "/" + long])
        // A HOME or XDG_CONFIG_HOME no path can be made of is ignored like a relative one: the
        // profile goes to the other, and nothing is refused.
        let home = folder + "/home"
        for environment in [["XDG_CONFIG_HOME": "/" + long, "HOME": home], ["XDG_CONFIG_HOME": "relative", "HOME": home],
                            ["XDG_CONFIG_HOME": "/" + String(repeating: "b", count: 300) + "/x", "HOME": home]] {
            let r = try CLIRunner.run(["calibrate", "--zero", "--board", board], environment: environment)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(FileManager.default.fileExists(atPath: home + "/.config/tiltboard/profiles/simulated-mpu-6050-board.json"), r.stderr)
            try FileManager.default.removeItem(atPath: home)
        }
        let r = try CLIRunner.run(["calibrate", "--zero", "--board", board], environment: ["STATE_DIRECTORY": "/" + long, "XDG_CONFIG_HOME": folder + "/cfg"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/cfg/tiltboard/profiles/simulated-mpu-6050-board.json"), r.stderr)
    }

    // MARK: 2. Arguments are bytes

    func testFilesWhoseNamesAreNotUTF8AreWrittenUnderThoseBytes() throws {
        // Latin-1 "é" is 0xE9: the recording, the profile and its backup land under the raw name.
        let script = #"""
        "$T" record --out "$D"/caf$'\xe9'.csv --duration 0.2 --board "$B" &&
        "$T" calibrate --zero --board "$B" --profile "$D"/p$'\xe9'/prof$'\xe9'.json >/dev/null &&
        "$T" profile shake firm --board "$B" --profile "$D"/p$'\xe9'/prof$'\xe9'.json >/dev/null &&
        "$T" profile show --json --board "$B" --profile "$D"/p$'\xe9'/prof$'\xe9'.json | grep -c '"firm"' &&
        test -s "$D"/caf$'\xe9'.csv && test -f "$D"/p$'\xe9'/prof$'\xe9'.json.bak &&
        ! ls "$D" | grep -q $'\xef\xbf\xbd' && test "$(ls "$D" | wc -l)" = 2 &&
        "$T" record --out "$D"/no$'\xe9'/x.csv --duration 0.1 --board "$B"
        """#
        let r = try Shell.run(script, folder: folder, extra: ["B": board, "TILTBOARD_CLOCK": "virtual"])
        XCTAssertEqual(r.status, 73, r.stderr)
        XCTAssertEqual(r.stdout, "1\n", r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: error: cannot create \(folder)/no\u{FFFD}/x.csv: No such file or directory (errno 2): its folder does not exist"), r.stderr)
    }

    func testControlCharactersInANameAreEscaped() throws {
        let text = try expectOneLine(["read", "--count", "1", "--board", folder + "/a\nb\u{1}.json"], 65, [#"a\nb\x01.json: no such file"#])
        XCTAssertFalse(text.contains("\u{1}"))
    }

    // MARK: 3. Clipped quotes and the file at fault

    func testLongValuesAreQuotedShortEverywhere() throws {
        let long = String(repeating: "a", count: 100_000)
        try expectOneLine(["read", "--count", "1", "--board", board, "--profile", folder + "/x/" + String(long.prefix(5000))], 65,
                          ["tiltboard: error: profile …aaa", "cannot read it: File name too long (errno 36): the name (or one of its folders' names) is too long"])
        try expectOneLine(["record", "--out", folder + "/missing/" + String(long.prefix(3000)), "--duration", "0.1", "--board", board], 73,
                          ["tiltboard: error: cannot create …aaa", "its folder does not exist"])
        try expectOneLine(["record", "--out", folder + "/" + String(long.prefix(300)), "--duration", "0.1", "--board", board], 73,
                          ["the name (or one of its folders' names) is too long"])
        // Whatever reaches an error line unclipped is cut there: a probe of a huge bus name.
        try expectOneLine(["probe", "--bus", "/dev/" + long], 74, ["/dev/aaa", "a…a"])
        // A trace whose line holds a huge field names the trace, quoting 80 characters.
        let trace = try write("long.csv", "t,ax,ay,az\n0,0,0," + String(long.prefix(50_000)) + "\n")
        let traceBoard = try write("trace.json", #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": {"trace": "long.csv"}}"#)
        try expectOneLine(["read", "--count", "1", "--board", traceBoard], 65,
                          ["board file \(traceBoard): simulation.trace: \(trace): trace line 2: field 4 \"" + String(long.prefix(79)) + "…\" is not a number"])
    }

    func testLoopsAndFoldersAreNamedAsSuch() throws {
        XCTAssertEqual(symlink(folder + "/loop1", folder + "/loop2"), 0)
        XCTAssertEqual(symlink(folder + "/loop2", folder + "/loop1"), 0)
        try expectOneLine(["read", "--count", "1", "--board", board, "--profile", folder + "/loop1"], 65,
                          ["profile \(folder)/loop1: cannot read it: Too many levels of symbolic links (errno 40): a symlink loop"])
        try expectOneLine(["record", "--out", folder + "/loop1", "--duration", "0.1", "--board", board], 73,
                          ["cannot look at \(folder)/loop1: Too many levels of symbolic links (errno 40): a symlink loop"])
        try expectOneLine(["record", "--out", folder, "--duration", "0.1", "--board", board], 73, ["\(folder) is a folder"])
        let loopBoard = try write("loop.json", #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": {"trace": "loop1"}}"#)
        try expectOneLine(["read", "--count", "1", "--board", loopBoard], 65, ["simulation.trace: cannot read \(folder)/loop1: Too many levels of symbolic links (errno 40): a symlink loop"])
    }

    // MARK: 4. Strict JSON

    func testProfilesAreStrictJSON() throws {
        let good = try goodProfile()
        let twice = try write("twice.json", good.replacingOccurrences(of: "{", with: #"{"schemaVersion": 1, "#, options: [], range: good.range(of: "{")))
        try expectOneLine(["read", "--count", "1", "--board", board, "--profile", twice], 65,
                          ["profile \(twice): schemaVersion: appears twice in one object (again at line"])
        let trimmed = good.trimmingCharacters(in: .whitespacesAndNewlines)
        let comma = try write("comma.json", String(trimmed.dropLast()) + ",}")
        try expectOneLine(["profile", "show", "--board", board, "--profile", comma], 65, ["profile \(comma): ", #"a comma before "}" at line"#])
        let nan = try write("nan.json", good.replacingOccurrences(of: "{", with: #"{"x": NaN, "#, options: [], range: good.range(of: "{")))
        try expectOneLine(["read", "--count", "1", "--board", board, "--profile", nan], 65, ["profile \(nan): not valid JSON"])
        let deep = try write("deep.json", String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000))
        try expectOneLine(["read", "--count", "1", "--board", board, "--profile", deep], 65, ["profile \(deep): "])
        let key = try write("key.json", #"{"schemaVersion": 1, ""# + String(repeating: "k", count: 100_000) + #"": 1}"#)
        try expectOneLine(["read", "--count", "1", "--board", board, "--profile", key], 65, ["profile \(key): "])
    }

    // MARK: 6. Files that are not regular

    func testTracesAndScriptsThatAreNotRegularFilesAreRefusedAtOnce() throws {
        XCTAssertEqual(mkfifo(folder + "/fifo.csv", 0o644), 0)
        let sparse = folder + "/huge.csv"
        XCTAssertTrue(FileManager.default.createFile(atPath: sparse, contents: nil))
        XCTAssertEqual(truncate(sparse, 1 << 30), 0)
        // Not a regular file: 73; too large: 65, in words of its own (docs/commands.md's table of file problems).
        for (name, fragment, status) in [("fifo.csv", "fifo.csv is a FIFO, not a regular file", Int32(73)), (".", "/. is a folder, not a regular file", 73),
                                          ("huge.csv", "huge.csv is a file of 1073741824 bytes, more than the 268435456 bytes it may have", 65)] {
            for key in ["trace", "script"] {
                let b = try write("b.json", #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": {""# + key + #"": "./"# + name + #""}}"#)
                try expectOneLine(["read", "--count", "1", "--board", b], status, ["board file \(b): simulation.\(key): ", fragment.replacingOccurrences(of: "268435456", with: key == "trace" ? "268435456" : "16777216")])
            }
        }
    }

    // MARK: 7. Outputs

    func testARecordingIntoAPipeWhoseReaderLeftEndsCleanly() throws {
        let r = try Shell.run(#""$T" record --out /dev/stdout --board "$B" 2>"$D"/err | head -1; echo "${PIPESTATUS[0]}"; grep -c 'error' "$D"/err"#,
                              folder: folder, extra: ["B": board, "TILTBOARD_CLOCK": "virtual"])
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init), ["t,ax,ay,az,gx,gy,gz", "0", "0"], r.stderr)
    }

    /// Root ignores file modes, so the read-only folder is tried as an unprivileged user.
    func testAReadOnlyFolderIsAPermissionError() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to switch to an unprivileged user") }
        XCTAssertEqual(chmod(folder, 0o755), 0)
        // Everything that user needs is in the folder: the checkout may be closed to it.
        let board = folder + "/board.json"
        try FileManager.default.copyItem(atPath: self.board, toPath: board)
        XCTAssertEqual(chmod(board, 0o644), 0)
        let r = try Shell.run(#"cd "$D"; setpriv --reuid=65534 --regid=65534 --clear-groups "$T" record --out "$D"/x.csv --duration 0.1 --board "$B" 2>&1 >/dev/null | grep -v 'tiltboard: recording'; exit "${PIPESTATUS[0]}""#,
                              folder: folder, extra: ["B": board, "T": try CLIRunner.binary(stagedIn: folder), "TILTBOARD_CLOCK": "virtual"])
        XCTAssertEqual(r.status, 77, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout, "tiltboard: error: cannot create \(folder)/x.csv: Permission denied (errno 13): check the permissions of the file and its folder\n")
    }
}

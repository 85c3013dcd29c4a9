import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Every file a command is given, each way it can be wrong (docs/commands.md's table of file problems):
/// one `tiltboard: error:` line naming the file by the path given and the kind of file it is,
/// words of its own for each problem, and the table's exit status. A symlink behaves as its target.
final class FileProblemCommandTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = try makeScratchFolder(self)
        chmod(folder, 0o755)
    }

    @discardableResult
    private func expectOneLine(_ arguments: [String], _ code: Int32, _ fragments: [String], absent: [String] = [],
                               file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try CLIRunner.run(arguments, environment: ["XDG_CONFIG_HOME": folder, "HOME": folder])
        return check(r, arguments.joined(separator: " "), code, fragments, absent: absent, file: file, line: line)
    }

    @discardableResult
    private func check(_ r: CLIRunner.Result, _ what: String, _ code: Int32, _ fragments: [String], absent: [String] = [],
                       file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(r.status, code, "\(what): \(r.stderr)", file: file, line: line)
        let errors = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("tiltboard: no --board") }
        XCTAssertEqual(errors.count, 1, "\(what): \(r.stderr)", file: file, line: line)
        let text = String(errors.first ?? "")
        XCTAssertTrue(text.hasPrefix("tiltboard: error: "), text, file: file, line: line)
        for fragment in fragments { XCTAssertTrue(text.contains(fragment), "\(what): \(text) lacks \(fragment)", file: file, line: line) }
        for fragment in absent { XCTAssertFalse(text.contains(fragment), "\(what): \(text) has \(fragment)", file: file, line: line) }
        return text
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        return path
    }

    private func sparse(_ name: String, bytes: Int64) -> String {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        XCTAssertEqual(truncate(path, off_t(bytes)), 0)
        return path
    }

    private var goodBoard: String {
        get throws { try write("good.json", #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}}"#) }
    }

    func testTheBoardFileEachWayItCanBeWrong() throws {
        XCTAssertEqual(mkfifo(folder + "/fifo.json", 0o644), 0)
        let huge = sparse("huge.json", bytes: 20 << 20)
        for (path, code, words) in [(folder + "/none.json", Int32(65), "no such file"),
                                    (huge, 65, "a file of 20971520 bytes, more than the 16777216 bytes it may have"),
                                    (folder + "/fifo.json", 73, "a FIFO, not a regular file"),
                                    (folder, 73, "a folder, not a regular file")] {
            try expectOneLine(["read", "--count", "1", "--board", path], code, ["board file \(path): ", words],
                              absent: ["not a regular file"].filter { _ in code == 65 })
        }
    }

    func testTheProfileEachWayItCanBeWrong() throws {
        XCTAssertEqual(mkfifo(folder + "/fifo.json", 0o644), 0)
        let huge = sparse("huge.json", bytes: 2 << 20)
        for (path, code, words) in [(huge, Int32(65), "a file of 2097152 bytes, more than the 1048576 bytes it may have"),
                                    (folder + "/fifo.json", 73, "a FIFO, not a regular file"),
                                    (folder, 73, "a folder, not a regular file")] {
            // Read by every command that samples, and by `profile show` and `profile shake`.
            for command in [["read", "--count", "1"], ["run", "--duration", "0.1"], ["profile", "show"], ["profile", "shake", "firm"],
                            ["calibrate", "--zero"]] {
                try expectOneLine(command + ["--profile", path], code, ["profile \(path): ", words],
                                  absent: ["not a regular file"].filter { _ in code == 65 })
            }
        }
    }

    func testTracesAndScriptsEachWayTheyCanBeWrong() throws {
        XCTAssertEqual(mkfifo(folder + "/fifo.csv", 0o644), 0)
        for key in ["trace", "script"] {
            for (name, code, words) in [("none.csv", Int32(65), key == "trace" ? "none.csv: no such file" : "is neither a built-in script"),
                                        ("fifo.csv", 73, "fifo.csv is a FIFO, not a regular file")] {
                let b = try write("b.json", #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": {""# + key + #"": "./"# + name + #""}}"#)
                try expectOneLine(["read", "--count", "1", "--board", b], code, ["board file \(b): simulation.\(key): ", words])
            }
        }
    }

    func testAMotorLogIsBlamedOnTheMotorLog() throws {
        try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(folder + "/fifo.log", 0o644), 0)
        for (log, code, words) in [(folder + "/logs", Int32(73), "Is a directory (errno 21): a folder, not a file"),
                                   (folder + "/fifo.log", 73, "a FIFO nobody reads"),
                                   (folder + "/missing/m.log", 73, "its folder does not exist")] {
            let b = try write("b.json", """
                {"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "motor": {"chip": "simulated", "line": 17},
                 "simulation": {"motorLog": "\(log)"}}
                """)
            for command in [["haptics", "--effect", "click"], ["run", "--duration", "0.1"]] {
                try expectOneLine(command + ["--board", b], code, ["motor log \(log) (the board file's simulation.motorLog): cannot open it for appending: ", words],
                                  absent: ["board file \(log)"])
            }
        }
    }

    func testFilesThisUserMayNotReadExit77() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("needs root and setpriv") }
        let board = try goodBoard
        let secret = try write("secret.json", "{}")
        chmod(secret, 0o600)
        let trace = try write("t.json", #"{"name": "t", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": {"trace": "./secret.json"}}"#)
        for (arguments, fragment) in [("read --count 1 --board secret.json", "board file secret.json: cannot read it: Permission denied (errno 13)"),
                                      ("read --count 1 --board \(board) --profile secret.json", "profile secret.json: cannot read it: Permission denied (errno 13)"),
                                      ("read --count 1 --board \(trace)", "simulation.trace: cannot read \(folder)/./secret.json: Permission denied (errno 13)")] {
            let r = try CLIRunner.shell(#"exec setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" "# + arguments, in: folder,
                                        environment: ["TILTBOARD_CLOCK": "virtual", "TB": try CLIRunner.binary(stagedIn: folder)])
            check(r, arguments, 77, [fragment])
        }
    }

    /// A symlinked profile is written in the folder of the file it names, and a failure there is
    /// reported under the link's name.
    func testAFailedWriteThroughASymlinkNamesTheLink() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("needs root and setpriv") }
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/mine", withIntermediateDirectories: true)
        chmod(folder + "/real", 0o755)
        XCTAssertEqual(chown(folder + "/mine", 65534, 65534), 0)
        XCTAssertEqual(symlink(folder + "/real/p.json", folder + "/mine/link.json"), 0)
        let r = try CLIRunner.shell(#"exec setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" calibrate --zero --profile mine/link.json"#,
                                    in: folder, environment: ["TILTBOARD_CLOCK": "virtual", "TB": try CLIRunner.binary(stagedIn: folder)])
        check(r, "calibrate --zero through a link into a folder of root's", 77,
              ["tiltboard: error: mine/link.json: cannot create \(folder)/real/.p.json.tmp.", "Permission denied (errno 13)"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/mine/.link.json.tmp"), "nothing made beside the link")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/mine"), ["link.json"])
    }

    /// A symlink is its target: read, and its problems named by the link's path.
    func testSymlinksBehaveAsTheirTargetsAndErrorsNameTheLink() throws {
        let board = try goodBoard
        XCTAssertEqual(symlink(board, folder + "/board-link.json"), 0)
        let read = try CLIRunner.run(["read", "--count", "2", "--board", folder + "/board-link.json"])
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout.split(separator: "\n").count, 2, read.stdout)
        // A trace through a link, read as the file.
        let trace = try write("trace.csv", "t,ax,ay,az\n0,0,0,1\n0.01,0,0,1\n0.02,0,0,1\n")
        XCTAssertEqual(symlink(trace, folder + "/trace-link.csv"), 0)
        let traced = try write("traced.json", #"{"name": "t", "sensor": {"chip": "adxl345", "bus": "simulated"}, "simulation": {"trace": "./trace-link.csv"}}"#)
        let r = try CLIRunner.run(["read", "--count", "2", "--board", traced])
        XCTAssertEqual(r.status, 0, r.stderr)
        // A symlinked board file's relative paths start from the folder of the file it names.
        try FileManager.default.createDirectory(atPath: folder + "/boards", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/etc", withIntermediateDirectories: true)
        try "t,ax,ay,az\n0,0,0,1\n0.01,0,0,1\n0.02,0,0,1\n".write(toFile: folder + "/boards/still.csv", atomically: true, encoding: .utf8)
        try #"{"name": "t", "sensor": {"chip": "adxl345", "bus": "simulated"}, "simulation": {"trace": "still.csv"}}"#
            .write(toFile: folder + "/boards/b.json", atomically: true, encoding: .utf8)
        XCTAssertEqual(symlink("../boards/b.json", folder + "/etc/board.json"), 0)
        let linked = try CLIRunner.run(["read", "--count", "2", "--board", folder + "/etc/board.json"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        // Problems of the target are named by the link.
        XCTAssertEqual(mkfifo(folder + "/fifo.json", 0o644), 0)
        XCTAssertEqual(symlink(folder + "/fifo.json", folder + "/fifo-link.json"), 0)
        let link = folder + "/fifo-link.json"
        try expectOneLine(["read", "--count", "1", "--board", link], 73, ["board file \(link): a FIFO, not a regular file"])
        try expectOneLine(["read", "--count", "1", "--profile", link], 73, ["profile \(link): a FIFO, not a regular file"])
        XCTAssertEqual(symlink("loop-b", folder + "/loop-a"), 0)
        XCTAssertEqual(symlink("loop-a", folder + "/loop-b"), 0)
        try expectOneLine(["read", "--count", "1", "--board", folder + "/loop-a"], 65, ["board file \(folder)/loop-a: cannot read it: ", "symlink loop"])
    }
}

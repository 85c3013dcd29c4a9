import Foundation
import XCTest

/// `tiltboard run` with two simulated boards in one loop, on the virtual clock: each player's
/// lines, motor and events are its own.
final class RunPlayersCommandTests: XCTestCase {
    /// A simulated board file `name` in `folder` playing `script` without noise.
    private func writeBoard(_ folder: String, _ name: String, script: String, rateHz: Int = 100, faults: String = "[]") throws -> String {
        let path = folder + "/\(name).json"
        let json = """
        {"name": "\(name)",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": \(rateHz)},
         "motor": {"chip": "simulated", "line": 17, "shakeEffect": "pulse:150"},
         "simulation": {"script": "\(script)", "noise": false, "faults": \(faults)}}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Each player's JSON objects, by the `player` field, which comes first on every line.
    private func players(_ stdout: String) throws -> [Int: [[String: Any]]] {
        var byPlayer: [Int: [[String: Any]]] = [:]
        for line in stdout.split(separator: "\n") {
            XCTAssertTrue(line.hasPrefix("{\"player\":"), String(line))
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byPlayer[try XCTUnwrap(object["player"] as? Int), default: []].append(object)
        }
        return byPlayer
    }

    private func xs(_ lines: [[String: Any]]?) -> [Double] {
        (lines ?? []).compactMap { ($0["control"] as? [String: Double])?["x"] }
    }

    func testAShakeOnOneBoardBuzzesOnlyItsOwnMotor() throws {
        let folder = try makeScratchFolder(self)
        let one = try writeBoard(folder, "one", script: "shake"), two = try writeBoard(folder, "two", script: "flat")
        let r = try CLIRunner.run(["run", "--board", one, "--board", two, "--json", "--duration", "3"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try players(r.stdout)
        XCTAssertEqual(lines.keys.sorted(), [1, 2])
        // One schedule: a line per tick for each, counting both ends, at the same times.
        XCTAssertEqual(lines[1]?.count, 301)
        XCTAssertEqual(lines[2]?.count, 301)
        XCTAssertEqual(lines[1]?.compactMap { $0["t"] as? Double }, lines[2]?.compactMap { $0["t"] as? Double })
        XCTAssertTrue(lines[1]?.contains { $0["shake"] as? Bool == true } == true)
        XCTAssertTrue(lines[1]?.contains { $0["haptic"] as? Bool == true } == true)
        XCTAssertFalse(lines[2]?.contains { $0["shake"] as? Bool == true } ?? true)
        XCTAssertFalse(lines[2]?.contains { $0["haptic"] as? Bool == true } ?? true)
        XCTAssertTrue(r.stderr.contains("tiltboard: player 1: motor on  at "), r.stderr)
        XCTAssertFalse(r.stderr.contains("player 2: motor on"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: player 1: running one (MPU-6050) at 100 Hz for 3.0 s"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: player 2: running two (MPU-6050) at 100 Hz for 3.0 s"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: player 1: loop: ticks 301, missed 0"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: player 2: loop: ticks 301, missed 0"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: output: 602 lines written, 0 dropped"), r.stderr)
    }

    func testEachPlayersRecordsMoveOnlyWithItsOwnBoard() throws {
        let folder = try makeScratchFolder(self)
        let one = try writeBoard(folder, "one", script: "flat"), two = try writeBoard(folder, "two", script: "tilt-left")
        let r = try CLIRunner.run(["run", "--board", one, "--board", two, "--json", "--duration", "2.5"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try players(r.stdout)
        XCTAssertTrue(xs(lines[1]).allSatisfy { abs($0) < 0.01 }, "\(xs(lines[1]).suffix(5))")
        XCTAssertLessThan(xs(lines[2]).last ?? 0, -0.3)
    }

    func testTheHumanStatusLinesNameTheirPlayer() throws {
        let folder = try makeScratchFolder(self)
        let one = try writeBoard(folder, "one", script: "flat"), two = try writeBoard(folder, "two", script: "flat")
        let r = try CLIRunner.run(["run", "--board", one, "--board", two, "--duration", "1"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("player 1  t ") }.count, 11, r.stdout)
        XCTAssertEqual(lines.filter { $0.hasPrefix("player 2  t ") }.count, 11, r.stdout)
        XCTAssertEqual(lines.count, 22)
    }

    func testAFailingBoardGivesItsOwnEventsWhileTheOtherPlaysOn() throws {
        let folder = try makeScratchFolder(self)
        let one = try writeBoard(folder, "one", script: "flat")
        let two = try writeBoard(folder, "two", script: "flat", faults: #"[{"at": 1.0, "kind": "unplug", "seconds": 0.5}]"#)
        let r = try CLIRunner.run(["run", "--board", one, "--board", two, "--json", "--duration", "3"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: player 2: sensor lost at "), r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: player 2: sensor back at "), r.stderr)
        XCTAssertFalse(r.stderr.contains("player 1: sensor"), r.stderr)
        let lines = try players(r.stdout)
        // The second board's reconfiguration (its chip's reset wait) runs beside the loop: the
        // first board keeps every tick.
        XCTAssertEqual(lines[1]?.count, 301, "the first board sampled at every tick")
        XCTAssertTrue(r.stderr.contains("tiltboard: player 1: loop: ticks 301, missed 0"), r.stderr)
        XCTAssertLessThan(lines[2]?.count ?? 0, 301 - 60)
        XCTAssertTrue(r.stderr.contains("samples; bus errors 0, outages 0, reconfigurations 0"), r.stderr)
        XCTAssertTrue(r.stderr.contains("outages 1, reconfigurations 1"), r.stderr)
    }

    func testABoardThatGivesUpEndsAloneAndTheCommandExitsWithItsError() throws {
        let folder = try makeScratchFolder(self)
        let one = try writeBoard(folder, "one", script: "flat")
        let two = try writeBoard(folder, "two", script: "flat", faults: #"[{"at": 1.0, "kind": "unplug", "seconds": 60}]"#)
        let r = try CLIRunner.run(["run", "--board", one, "--board", two, "--json", "--duration", "4", "--give-up-after", "1"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 74, r.stderr)
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: error: ") }
        XCTAssertEqual(errors.count, 1, r.stderr)
        XCTAssertTrue(errors.first?.hasPrefix("tiltboard: error: player 2: no sample from the MPU-6050 at 0x68 on simulated for 1 s, giving up") == true, r.stderr)
        let lines = try players(r.stdout)
        XCTAssertEqual(lines[1]?.count, 401, "the first board played to the end")
        XCTAssertTrue(r.stderr.contains("tiltboard: player 1: loop: ticks 401, missed 0"), r.stderr)
        XCTAssertLessThan(lines[2]?.count ?? 0, 100)
    }

    func testProfilesOncePerBoardAndOneRateAreRequired() throws {
        let folder = try makeScratchFolder(self)
        let one = try writeBoard(folder, "one", script: "flat"), two = try writeBoard(folder, "two", script: "flat")
        let fast = try writeBoard(folder, "fast", script: "flat", rateHz: 200)
        var r = try CLIRunner.run(["run", "--board", one, "--board", two, "--profile", folder + "/p.json", "--duration", "1"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--profile must be given once per --board"), r.stderr)
        r = try CLIRunner.run(["run", "--board", one, "--board", fast, "--duration", "1"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: error: boards run together sample at one rate, but player 1 at 100 Hz, player 2 at 200 Hz"), r.stderr)
        XCTAssertEqual(r.stdout, "")
        // --rate gives them one.
        r = try CLIRunner.run(["run", "--board", one, "--board", fast, "--rate", "200", "--json", "--duration", "1"],
                              environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try players(r.stdout)[2]?.count, 201)
    }
}

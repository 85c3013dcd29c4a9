import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// `tiltboard serve --board a --board b` as a child process: both boards listed and served, each
/// board's route reaching only its own motor, the old paths meaning player 1.
final class ServePlayersCommandTests: XCTestCase {
    private func writeBoard(_ folder: String, _ n: Int) throws -> String {
        let path = folder + "/board\(n).json"
        let json = """
        {"name": "player \(n) board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x6\(7 + n)", "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17},
         "simulation": {"script": "flat", "noise": false, "motorLog": "\(folder)/motor\(n).log"}}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func onLines(_ path: String) -> [Substring] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasSuffix(" 1") }
    }

    func testTwoBoardsServedEachRouteReachingItsOwnBoard() throws {
        let folder = try makeScratchFolder(self)
        let boards = [try writeBoard(folder, 1), try writeBoard(folder, 2)]
        let child = try ChildProcess(["serve", "--board", boards[0], "--board", boards[1], "--port", "0"],
                                     environment: ["XDG_CONFIG_HOME": folder, "HOME": folder])
        pollUntil { child.stdout.contains("\n") || !child.process.isRunning }
        let first = try XCTUnwrap(child.stdout.split(separator: "\n").first, child.stderr)
        XCTAssertTrue(first.hasPrefix("http://127.0.0.1:"), String(first))
        let port = try XCTUnwrap(UInt16(first.split(separator: ":").last?.split(separator: "/").first ?? ""))
        func get(_ path: String) throws -> (status: Int, body: String) {
            try httpResponse(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        }

        let list = try get("/api/boards")
        XCTAssertEqual(list.status, 200)
        let entries = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(list.body.utf8)) as? [String: Any])?["boards"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["player"] as? Int }, [1, 2])
        XCTAssertEqual(entries.map { ($0["board"] as? [String: Any])?["name"] as? String }, ["player 1 board", "player 2 board"])
        XCTAssertTrue(try get("/api/state").body.contains(#""name":"player 1 board""#))
        XCTAssertTrue(try get("/api/boards/2/state").body.contains(#""name":"player 2 board""#))
        XCTAssertEqual(try get("/api/boards/3/state").status, 404)

        let buzz = try httpResponse(port: port, "POST /api/boards/2/haptics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{\"effect\":\"buzz\"}")
        XCTAssertEqual(buzz.status, 200, buzz.body)
        pollUntil { !onLines(folder + "/motor2.log").isEmpty }

        kill(child.process.processIdentifier, SIGTERM)
        XCTAssertTrue(child.waitForExit())
        XCTAssertEqual(child.process.terminationStatus, 0, child.stderr)
        XCTAssertTrue(child.stderr.contains("player 1: running player 1 board"), child.stderr)
        XCTAssertTrue(child.stderr.contains("player 2: running player 2 board"), child.stderr)
        XCTAssertFalse(onLines(folder + "/motor2.log").isEmpty, "the buzz reached motor 2")
        XCTAssertTrue(onLines(folder + "/motor1.log").isEmpty, "motor 1 never ran")
        let motor2 = (try? String(contentsOfFile: folder + "/motor2.log", encoding: .utf8)) ?? ""
        XCTAssertTrue(motor2.hasSuffix(" 0\n"), "motor 2 is off at the end: \(motor2)")
        XCTAssertEqual(child.stdout.split(separator: "\n").count, 1, "only the URL on stdout: \(child.stdout)")
    }

    func testProfilesMustMatchTheBoards() throws {
        let folder = try makeScratchFolder(self)
        let boards = [try writeBoard(folder, 1), try writeBoard(folder, 2)]
        let r = try CLIRunner.run(["serve", "--board", boards[0], "--board", boards[1], "--profile", folder + "/p.json", "--port", "0"],
                                  environment: ["XDG_CONFIG_HOME": folder, "HOME": folder])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--profile must be given once per --board, in the same order, or not at all: 2 boards, 1 profiles"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }
}

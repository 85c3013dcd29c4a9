import Foundation
import XCTest
@testable import Tiltboard
import TiltboardCore
@testable import TiltboardServer

/// `POST /api/shake`: the sensitivity saved in the profile and applied to the running detector at
/// a tick boundary; state frames carry the detector's linear acceleration and threshold.
final class ServeShakeTests: XCTestCase {
    /// 1 g shakes at 4 Hz along x, 1 s each, every 2.5 s after a second at rest.
    static let script: String = {
        var segments = [#"{"hold": {"pitchDeg": 0, "rollDeg": 0, "seconds": 1}}"#]
        for _ in 0..<8 {
            segments.append(#"{"shake": {"axis": [1, 0, 0], "frequencyHz": 4, "peakG": 1.0, "seconds": 1}}"#)
            segments.append(#"{"hold": {"seconds": 1.5}}"#)
        }
        return #"{"segments": ["# + segments.joined(separator: ", ") + "]}"
    }()

    private func shakes(_ board: ServedBoard) throws -> (count: Int, thresholdG: Double, linearPeakG: Double) {
        let state = try board.request("GET", "/api/state").json
        return (state["shakes"] as? Int ?? -1, state["thresholdG"] as? Double ?? -1, state["linearPeakG"] as? Double ?? -1)
    }

    func testFirmIgnoresOneGShakesAndGentleCountsThem() async throws {
        let board = try await ServedBoard(self, script: Self.script)
        let path = board.session.profilePath
        let firm = try board.request("POST", "/api/shake", body: #"{"level": "firm"}"#)
        XCTAssertEqual(firm.status, 200, firm.text)
        XCTAssertEqual((firm.json["shake"] as? [String: Any])?["level"] as? String, "firm")
        XCTAssertEqual(firm.json["thresholdG"] as? Double, 1.2)
        XCTAssertEqual(try ProfileStore.load(path: path, expectedBoard: nil)?.shake, ProfileShake(level: .firm))
        // Two shakes' time at 1.2 g: none.
        try board.runLoop(seconds: 6)
        var s = try shakes(board)
        XCTAssertEqual(s.count, 0)
        XCTAssertEqual(s.thresholdG, 1.2)

        let gentle = try board.request("POST", "/api/shake", body: #"{"level": "gentle"}"#)
        XCTAssertEqual(gentle.status, 200, gentle.text)
        XCTAssertEqual((gentle.json["shake"] as? [String: Any])?["description"] as? String, "gentle (0.6 g)")
        // The next two shakes, at 0.6 g: both.
        try board.runLoop(seconds: 5)
        s = try shakes(board)
        XCTAssertEqual(s.count, 2)
        XCTAssertEqual(s.thresholdG, 0.6)
        let snapshot = try board.request("GET", "/api/state").json
        XCTAssertEqual((snapshot["sensitivity"] as? [String: Any])?["level"] as? String, "gentle")
        XCTAssertEqual(snapshot["shake"] as? Bool, false, "the state frame's own field stays as it is")

        // The board file's default again: the section is removed.
        let reset = try board.request("POST", "/api/shake", body: #"{"level": "default"}"#)
        XCTAssertEqual(reset.status, 200, reset.text)
        XCTAssertEqual((reset.json["shake"] as? [String: Any])?["level"] as? String, "default")
        XCTAssertNil(try ProfileStore.load(path: path, expectedBoard: nil)?.shake)
        try board.runLoop(seconds: 0.1)
        XCTAssertEqual(try shakes(board).thresholdG, 0.8)
        await board.close()
    }

    func testStateFramesCarryTheLinearAcceleration() async throws {
        let board = try await ServedBoard(self, script: Self.script)
        // The script runs a little ahead of the loop (the chip's start-up), so 0.5 s is well within the rest.
        try board.runLoop(seconds: 0.5)
        XCTAssertLessThan(try shakes(board).linearPeakG, 0.05, "at rest")
        // Mid-shake: the peak over the last 0.1 s is near the 1 g peak.
        try board.runLoop(seconds: 0.9)
        let s = try shakes(board)
        XCTAssertGreaterThan(s.linearPeakG, 0.6)
        XCTAssertLessThan(s.linearPeakG, 1.15)
        XCTAssertEqual(s.thresholdG, 0.8)
        let state = try board.request("GET", "/api/state").json
        let linear = try XCTUnwrap(state["linearG"] as? Double)
        XCTAssertLessThanOrEqual(linear, s.linearPeakG)
        await board.close()
    }

    func testBadBodiesAre400AndWriteNothing() async throws {
        let board = try await ServedBoard(self)
        let bad = ["", "not json", "[1]", "{}", #"{"level": 3}"#, #"{"level": "hard"}"#, #"{"level": "firm", "more": 1}"#,
                   #"{"level": "default", "thresholdG": 1}"#, #"{"thresholdG": 0}"#, #"{"thresholdG": "1"}"#,
                   #"{"thresholdG": true}"#, #"{"minReversals": 2.5}"#, #"{"minFraction": 2}"#, #"{"cooldownMs": -5}"#]
        for body in bad {
            let r = try board.request("POST", "/api/shake", body: body)
            XCTAssertEqual(r.status, 400, body)
            XCTAssertNotNil(r.json["error"] as? String, body)
        }
        XCTAssertEqual(try board.request("GET", "/api/shake").status, 405)
        XCTAssertFalse(FileManager.default.fileExists(atPath: board.session.profilePath), "a refused request writes nothing")
        // An expert threshold is taken as given.
        let expert = try board.request("POST", "/api/shake", body: #"{"thresholdG": 1.0, "minReversals": 3}"#)
        XCTAssertEqual(expert.status, 200, expert.text)
        XCTAssertEqual((expert.json["shake"] as? [String: Any])?["level"] as? String, "custom")
        XCTAssertEqual(try ProfileStore.load(path: board.session.profilePath, expectedBoard: nil)?.shake,
                       ProfileShake(thresholdG: 1.0, minReversals: 3))
        await board.close()
    }

    func testBodiesAreStrictJSON() {
        // A key twice (which value wins is undefined) and a comma before "}" are refused, naming the key.
        XCTAssertEqual(ServeAPI.shake(fromBody: Array(#"{"level": "firm", "level": "gentle"}"#.utf8)).failureMessage,
                       "level: appears twice in one object (again at line 1, column 19): keep one")
        XCTAssertEqual(ServeAPI.shake(fromBody: Array(#"{"level": "firm",}"#.utf8)).failureMessage,
                       #"a comma before "}" at line 1, column 18: remove it"#)
        XCTAssertEqual(ServeAPI.effect(fromBody: Array(#"{"effect": "tick", "effect": "alarm"}"#.utf8)).failureMessage,
                       "effect: appears twice in one object (again at line 1, column 20): keep one")
        XCTAssertEqual(ServeAPI.emptyObjectProblem(Array("{\n}".utf8)), nil)
        XCTAssertEqual(ServeAPI.emptyObjectProblem(Array(#"{"a": 1,}"#.utf8)), #"a comma before "}" at line 1, column 9: remove it"#)
        // NaN, huge numbers and deep nesting are a refusal, never a crash.
        XCTAssertNotNil(ServeAPI.shake(fromBody: Array(#"{"thresholdG": NaN}"#.utf8)).failureMessage)
        XCTAssertNotNil(ServeAPI.shake(fromBody: Array(("{\"thresholdG\": 1" + String(repeating: "0", count: 400) + "}").utf8)).failureMessage)
        XCTAssertNotNil(ServeAPI.shake(fromBody: Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8)).failureMessage)
    }
}

private extension Result {
    var failureMessage: String? {
        if case let .failure(error) = self { return "\(error)" }
        return nil
    }
}

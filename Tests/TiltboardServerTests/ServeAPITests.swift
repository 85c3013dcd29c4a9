import Foundation
import XCTest
@testable import Tiltboard
import TiltboardCore
@testable import TiltboardServer

/// The server over real sockets on 127.0.0.1: every status code, the Host/Origin/token rules, bad
/// bodies, the limits, calibration and the profile. The board runs on a virtual clock and the
/// server's limits on a manual one, so nothing here waits for time to pass.
final class ServeAPITests: XCTestCase {
    func testPageStateProfileAndNotFound() async throws {
        let board = try await ServedBoard(self)
        try board.runLoop(seconds: 0.5)
        let page = try board.request("GET", "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        for id in ["marker", "area", "calibrate", "zero", "test-motor", "status", "roll", "pitch"] {
            XCTAssertTrue(page.text.contains("id=\"\(id)\""), "the page keeps the element id \(id)")
        }
        let state = try board.request("GET", "/api/state")
        XCTAssertEqual(state.status, 200)
        XCTAssertEqual(state.json["type"] as? String, "snapshot")
        XCTAssertEqual(state.json["t"] as? Double ?? -1, 0.5, accuracy: 0.011)
        XCTAssertEqual((state.json["board"] as? [String: Any])?["name"] as? String, "serve test board")
        XCTAssertEqual((state.json["loop"] as? [String: Any])?["samples"] as? Int, 51)
        XCTAssertEqual((state.json["profile"] as? [String: Any])?["calibrated"] as? Bool, false)
        let profile = try board.request("GET", "/api/profile")
        XCTAssertEqual(profile.status, 200)
        XCTAssertTrue(profile.json["profile"] is NSNull)
        let missing = try board.request("GET", "/api/nothing")
        XCTAssertEqual(missing.status, 404)
        XCTAssertNotNil(missing.json["error"] as? String)
        await board.close()
    }

    func testWrongMethodIs405WithAllow() async throws {
        let board = try await ServedBoard(self)
        let r = try board.request("DELETE", "/api/state")
        XCTAssertEqual(r.status, 405)
        XCTAssertEqual(r.headers["allow"], "GET")
        XCTAssertEqual(try board.request("GET", "/api/calibrate").status, 405)
        await board.close()
    }

    func testHapticsBodies() async throws {
        let board = try await ServedBoard(self)
        for bad in ["", "not json", "[1]", "{}", #"{"effect": 3}"#, #"{"effect": "buzz", "more": 1}"#, #"{"effect": "rumble"}"#] {
            let r = try board.request("POST", "/api/haptics", body: bad)
            XCTAssertEqual(r.status, 400, bad)
            XCTAssertNotNil(r.json["error"] as? String, bad)
        }
        let ok = try board.request("POST", "/api/haptics", body: #"{"effect": "pulse:50"}"#)
        XCTAssertEqual(ok.status, 200)
        waitUntil("the motor plays") { board.engine?.isActive == true || (try? String(contentsOfFile: board.motorLog, encoding: .utf8))?.contains("1") == true }
        await board.close()
    }

    func testHapticsWithoutAMotorIs409() async throws {
        let board = try await ServedBoard(self, motor: false)
        let reason = "the board has no motor (add a \"motor\" section to its board file)"
        let refused = try board.request("POST", "/api/haptics", body: #"{"effect": "buzz"}"#)
        XCTAssertEqual(refused.status, 409)
        XCTAssertEqual(refused.json["error"] as? String, reason)
        // The snapshot says so before anything is asked, and the page shows Test motor unavailable.
        let described = try XCTUnwrap(try board.request("GET", "/api/state").json["board"] as? [String: Any])
        XCTAssertEqual(described["motor"] as? Bool, false)
        XCTAssertEqual(described["motorUnavailable"] as? String, reason)
        let page = try board.request("GET", "/").text
        XCTAssertTrue(page.contains(#"<div id="motor-note" hidden></div>"#))
        XCTAssertTrue(page.contains(#"for (const id of ["test-motor", "effect"]) { $(id).disabled = !view.hasMotor; $(id).title = reason; }"#))
        await board.close()
        // A board with a motor carries no such field.
        let withMotor = try await ServedBoard(self)
        let motorBoard = try XCTUnwrap(try withMotor.request("GET", "/api/state").json["board"] as? [String: Any])
        XCTAssertEqual(motorBoard["motor"] as? Bool, true)
        XCTAssertNil(motorBoard["motorUnavailable"])
        await withMotor.close()
    }

    func testBodiesOfCalibrateAndZero() async throws {
        let board = try await ServedBoard(self)
        XCTAssertEqual(try board.request("POST", "/api/zero", body: "{").status, 400)
        XCTAssertEqual(try board.request("POST", "/api/zero", body: #"{"now": true}"#).status, 400)
        XCTAssertEqual(try board.request("POST", "/api/calibrate", body: "[]").status, 400)
        XCTAssertFalse(FileManager.default.fileExists(atPath: board.session.profilePath), "a refused request writes nothing")
        await board.close()
    }

    func testBodyTooLargeIs413AndHeadTooLargeIs431() async throws {
        let board = try await ServedBoard(self)
        let c = try TestConnection(port: board.port)
        c.send("POST /api/haptics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n")
        let r = try c.response()
        XCTAssertEqual(r.status, 413)
        XCTAssertEqual(r.headers["connection"], "close")
        XCTAssertTrue(c.readToEnd())
        let d = try TestConnection(port: board.port)
        d.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + String(repeating: "a", count: 9000) + "\r\n\r\n")
        XCTAssertEqual(try d.response().status, 431)
        await board.close()
    }

    func testMalformedRequestIs400AndTheServerCarriesOn() async throws {
        let board = try await ServedBoard(self)
        let c = try TestConnection(port: board.port)
        c.send("GARBAGE\r\n\r\n")
        XCTAssertEqual(try c.response().status, 400)
        XCTAssertEqual(try board.request("GET", "/api/state").status, 200)
        await board.close()
    }

    func testCalibrateRunsOnceAt409AndWritesTheProfileReadFromDisk() async throws {
        // Tilted 20° and still, with a sensor calibration written to the profile by another
        // command after serve started: it must survive serve's write.
        let board = try await ServedBoard(self, script: "flat")
        try board.runLoop(seconds: 0.2)
        let sensor = CalibrationProfile.SensorCorrection(offsetG: Vector3(0.01, 0, 0), scale: .one, residualMg: 1, writtenToChip: false)
        var onDisk = CalibrationProfile(board: board.session.profileIdentity, createdAt: "2026-01-01T00:00:00Z", sampleCount: 0,
                                        noiseMg: .zero, neutral: .level, sensor: sensor)
        onDisk.temperatureC = 21
        try ProfileStore.save(onDisk, path: board.session.profilePath)

        let stream = try TestConnection(port: board.port)
        XCTAssertEqual(try stream.upgrade(host: "127.0.0.1:\(board.port)").status, 101)
        XCTAssertEqual(stream.message()?["type"] as? String, "snapshot")

        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 202)
        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 409)
        try board.runLoop(seconds: 3)
        var states: [String] = []
        while let m = stream.message() {
            if m["type"] as? String == "calibration", let s = m["state"] as? String {
                states.append(s)
                if s == "done" || s == "failed" { break }
            }
        }
        XCTAssertEqual(states.first, "running")
        XCTAssertEqual(states.last, "done")
        let saved = try XCTUnwrap(try ProfileStore.load(path: board.session.profilePath, expectedBoard: board.session.profileIdentity))
        XCTAssertEqual(saved.sensor, sensor, "the sensor calibration written meanwhile is kept")
        XCTAssertGreaterThan(saved.sampleCount, 150)
        XCTAssertNotEqual(saved.createdAt, onDisk.createdAt)
        // A second capture may start now.
        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 202)
        await board.close()
    }

    func testCalibrateAcrossAnOutageTakesItsFullSampleCount() async throws {
        // Unplugged for 4 s in the middle of the capture: the hole is not captured time.
        let board = try await ServedBoard(self, script: "flat", faults: #"[{"at": 1.0, "kind": "unplug", "seconds": 4}]"#)
        try board.runLoop(seconds: 0.3)
        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 202)
        try board.runLoop(seconds: 9)
        let saved = try XCTUnwrap(try ProfileStore.load(path: board.session.profilePath, expectedBoard: board.session.profileIdentity))
        // 2 s at 100 Hz, counting both ends, as `tiltboard calibrate` takes.
        XCTAssertEqual(saved.sampleCount, 201)
        XCTAssertEqual(board.loop.busStatistics.outages, 1)
        XCTAssertEqual(saved.neutral.tiltDeg, 0, accuracy: 0.1)
        await board.close()
    }

    func testCalibrateBringsTheMarkerBackToTheCentre() async throws {
        let board = try await ServedBoard(self, script: "tilt-left")
        try board.runLoop(seconds: 4)
        let before = try board.request("GET", "/api/state").json
        let xBefore = try XCTUnwrap((before["control"] as? [String: Any])?["x"] as? Double)
        XCTAssertLessThan(xBefore, -0.5, "tilted left, the marker is off to the left")
        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 202)
        try board.runLoop(seconds: 3)
        let after = try board.request("GET", "/api/state").json
        let control = try XCTUnwrap(after["control"] as? [String: Any])
        XCTAssertEqual(control["x"] as? Double ?? 9, 0, accuracy: 0.05)
        XCTAssertEqual(control["y"] as? Double ?? 9, 0, accuracy: 0.05)
        let profile = try XCTUnwrap(after["profile"] as? [String: Any])
        XCTAssertEqual(profile["calibrated"] as? Bool, true)
        XCTAssertGreaterThan(profile["neutralTiltDeg"] as? Double ?? 0, 20)
        await board.close()
    }

    func testCalibrateGivesUpWithTheCalibrateMessage() async throws {
        let board = try await ServedBoard(self, script: #"{"segments": [{"walk": {"bounceG": 0.3, "stepHz": 2, "seconds": 40}}]}"#)
        let stream = try TestConnection(port: board.port)
        XCTAssertEqual(try stream.upgrade(host: "localhost:\(board.port)").status, 101)
        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 202)
        // Walking, the board never keeps still long enough.
        try board.runLoop(seconds: 31)
        var last: [String: Any]?
        while let m = stream.message() {
            if m["type"] as? String == "calibration", m["state"] as? String == "failed" { last = m; break }
        }
        let message = try XCTUnwrap(last?["message"] as? String)
        XCTAssertTrue(message.hasPrefix("the board was not still for long enough within 30 s"), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: board.session.profilePath))
        await board.close()
    }

    /// The page's Calibrate, Zero and sensitivity each write their own sections of the profile
    /// and keep the rest, a section of a newer version included, as they are.
    func testThePagesWritersKeepEverySectionTheyDoNotOwn() async throws {
        let board = try await ServedBoard(self)
        try board.runLoop(seconds: 0.2)
        let path = board.session.profilePath
        let sensor = CalibrationProfile.SensorCorrection(offsetG: Vector3(0.01, 0, 0), scale: .one, residualMg: 1, writtenToChip: false)
        let start = CalibrationProfile(board: board.session.profileIdentity, createdAt: "2020-01-01T00:00:00Z", temperatureC: 30,
                                       sampleCount: 200, noiseMg: Vector3(1, 1, 1), neutral: NeutralPose.capture(meanGravity: Vector3(0.3, 0, 0.95)),
                                       sensor: sensor, shake: ProfileShake(level: .firm))
        var text = String(decoding: try ProfileStore.encode(start), as: UTF8.self)
        text = String(text.dropLast(3)) + ",\n  \"zzFuture\" : [1, 2.50]\n}\n"
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        func sections() throws -> [String: NSObject] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: NSObject])
        }
        var before = try sections()
        let owned: [(request: () throws -> Void, sections: Set<String>)] = [
            ({ XCTAssertEqual(try board.request("POST", "/api/zero").status, 200) }, ["neutral", "neutralSource", "createdAt"]),
            ({ XCTAssertEqual(try board.request("POST", "/api/shake", body: #"{"level": "gentle"}"#).status, 200) }, ["shake"]),
            ({
                XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 202)
                try board.runLoop(seconds: 3)
            }, ["neutral", "neutralSource", "sampleCount", "noiseMg", "gyroBiasDps", "createdAt", "temperatureC"]),
        ]
        for (n, writer) in owned.enumerated() {
            try writer.request()
            let after = try sections()
            for key in Set(before.keys).union(after.keys).subtracting(writer.sections) {
                XCTAssertEqual(after[key], before[key], "writer \(n) changed \(key)")
            }
            XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains("\"zzFuture\" : [1, 2.50]\n"), "writer \(n)")
            XCTAssertNotEqual(after, before, "writer \(n) wrote")
            before = after
        }
        await board.close()
    }

    func testZeroWritesLevelKeepingTheRest() async throws {
        let board = try await ServedBoard(self)
        let tilted = NeutralPose.capture(meanGravity: Vector3(0.3, 0, 0.95))
        try ProfileStore.save(CalibrationProfile(board: board.session.profileIdentity, createdAt: "2026-01-01T00:00:00Z", temperatureC: 30,
                                                 sampleCount: 200, noiseMg: Vector3(1, 1, 1), neutral: tilted),
                              path: board.session.profilePath)
        let r = try board.request("POST", "/api/zero")
        XCTAssertEqual(r.status, 200)
        let saved = try XCTUnwrap(try ProfileStore.load(path: board.session.profilePath, expectedBoard: board.session.profileIdentity))
        XCTAssertEqual(saved.neutral, .level)
        XCTAssertEqual(saved.temperatureC, 30)
        await board.close()
    }
}

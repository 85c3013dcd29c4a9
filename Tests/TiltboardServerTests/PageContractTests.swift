import Foundation
import XCTest
@testable import Tiltboard
@testable import TiltboardServer
#if canImport(Glibc)
import Glibc
#endif

/// What the page is promised over its WebSocket: every event docs/serve.md lists arrives with its
/// fields, and the stream closes as RFC 6455 §7.4 says for each malformed frame a client sends.
final class PageContractTests: XCTestCase {
    /// Messages from the stream up to (not including) the next snapshot, which `POST /api/zero`
    /// sends to every client and so marks the end of what the loop produced.
    private func messagesUntilSnapshot(_ ws: TestConnection) -> [[String: Any]] {
        var out: [[String: Any]] = []
        while let m = ws.message() {
            if m["type"] as? String == "snapshot" { break }
            out.append(m)
        }
        return out
    }

    func testEveryEventArrivesWithItsFieldsOnAFaultingBoard() async throws {
        // Shaken from the start, the motor buzzed, the sensor unplugged from 3 s to 4 s.
        let board = try await ServedBoard(self, script: "shake", faults: #"[{"at": 3.0, "kind": "unplug", "seconds": 1}]"#)
        let ws = try TestConnection(port: board.port)
        XCTAssertEqual(try ws.upgrade(host: "127.0.0.1:\(board.port)").status, 101)
        XCTAssertEqual(ws.message()?["type"] as? String, "snapshot")
        XCTAssertEqual(try board.request("POST", "/api/haptics", body: #"{"effect":"buzz"}"#).status, 200)
        try board.runLoop(seconds: 6)
        XCTAssertEqual(try board.request("POST", "/api/zero").status, 200)
        let events = messagesUntilSnapshot(ws).filter { $0["type"] as? String != "state" }
        func of(_ type: String) -> [[String: Any]] { events.filter { $0["type"] as? String == type } }

        XCTAssertFalse(events.contains { $0.isEmpty }, "no event arrives as {}")
        let shakes = of("shake")
        XCTAssertFalse(shakes.isEmpty)
        for e in shakes {
            XCTAssertNotNil(e["t"] as? Double)
            XCTAssertGreaterThan(e["shakes"] as? Int ?? 0, 0)
        }
        XCTAssertEqual(of("motor").compactMap { $0["on"] as? Bool }.prefix(2), [true, false])
        XCTAssertEqual(of("motor").filter { $0["t"] as? Double == nil }.count, 0)

        let lost = of("sensor-lost")
        XCTAssertEqual(lost.count, 1)
        let t = try XCTUnwrap(lost.first?["t"] as? Double)
        XCTAssertGreaterThan(t, 1)
        let reason = try XCTUnwrap(lost.first?["reason"] as? String)
        XCTAssertTrue(reason.contains("unplugged"), reason)
        XCTAssertFalse(reason.contains("\n"))
        let back = of("sensor-back")
        XCTAssertEqual(back.count, 1)
        XCTAssertEqual(try XCTUnwrap(back.first?["t"] as? Double) - t, 1.0, accuracy: 0.3, "unplugged for 1 s")
        XCTAssertNotNil(back.first?["reconfigured"] as? Bool)
        await board.close()
    }

    func testCalibrationEventsCarryTheirFields() async throws {
        let board = try await ServedBoard(self, script: "flat")
        let ws = try TestConnection(port: board.port)
        XCTAssertEqual(try ws.upgrade(host: "localhost").status, 101)
        XCTAssertEqual(ws.message()?["type"] as? String, "snapshot")
        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 202)
        try board.runLoop(seconds: 3)
        var running: [String: Any]?, done: [String: Any]?
        while done == nil, let m = ws.message() {
            guard m["type"] as? String == "calibration" else { continue }
            if m["state"] as? String == "running", running == nil { running = m }
            if m["state"] as? String == "done" { done = m }
        }
        let r = try XCTUnwrap(running)
        XCTAssertNotNil(r["progress"] as? Double)
        XCTAssertEqual(r["restarts"] as? Int, 0)
        let d = try XCTUnwrap(done)
        XCTAssertEqual(d["progress"] as? Double, 1.0)
        XCTAssertEqual(d["clamped"] as? Bool, false)
        XCTAssertEqual(d["restarts"] as? Int, 0)
        XCTAssertEqual(d["path"] as? String, board.session.profilePath)
        XCTAssertEqual(try XCTUnwrap(d["tiltDeg"] as? Double), 0, accuracy: 0.5)
        await board.close()
    }

    func testJSONNeverLosesAnEventsFields() {
        struct Broken: Error, CustomStringConvertible { var description: String { "line one\nline two" } }
        let bytes = ServeJSON.encode(ServeJSON.SensorLost(t: .init(.nan), reason: ServeHub.oneLine("\(Broken())")))
        let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
        XCTAssertEqual(object?["type"] as? String, "sensor-lost")
        XCTAssertTrue(object?["t"] is NSNull)
        XCTAssertEqual(object?["reason"] as? String, "line one line two")
        XCTAssertEqual(ServeHub.oneLine(String(repeating: "x", count: 1000)).count, 300)
    }

    // MARK: close codes (RFC 6455 §5.5, §7.4)

    /// The close code the server answers `frame` with, on a fresh stream.
    private func closeCode(answering frame: [UInt8], board: ServedBoard, file: StaticString = #filePath, line: UInt = #line) throws -> UInt16? {
        let ws = try TestConnection(port: board.port)
        XCTAssertEqual(try ws.upgrade(host: "localhost").status, 101, file: file, line: line)
        ws.send(frame)
        while let f = ws.frame() {
            if f.opcode == 8 { return f.payload.count >= 2 ? UInt16(f.payload[0]) << 8 | UInt16(f.payload[1]) : 0 }
        }
        return nil
    }

    private func closeFrame(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
        TestConnection.clientFrame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }

    /// A masked frame with any header bits and a 16-bit length.
    private func rawFrame(first: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [9, 8, 7, 6]
        let n = payload.count
        let len: [UInt8] = n < 126 ? [UInt8(0x80) | UInt8(n)] : [UInt8(0x80 | 126), UInt8(n >> 8), UInt8(n & 0xFF)]
        return [first] + len + mask + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    }

    func testCloseCodesFollowRFC6455() async throws {
        let board = try await ServedBoard(self)
        // Valid codes are echoed; none at all is answered 1000.
        for code: UInt16 in [1000, 1001, 1003, 1007, 1011, 1014, 3000, 4999] {
            XCTAssertEqual(try closeCode(answering: closeFrame(code), board: board), code, "\(code)")
        }
        XCTAssertEqual(try closeCode(answering: TestConnection.clientFrame(opcode: 8, []), board: board), 1000)
        XCTAssertEqual(try closeCode(answering: closeFrame(1000, Array("bye ✓".utf8)), board: board), 1000)
        // Codes no endpoint may send, and a 1-byte payload: protocol error.
        for code: UInt16 in [0, 5, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            XCTAssertEqual(try closeCode(answering: closeFrame(code), board: board), 1002, "\(code)")
        }
        XCTAssertEqual(try closeCode(answering: TestConnection.clientFrame(opcode: 8, [0x03]), board: board), 1002)
        // A reason that is not UTF-8: invalid data.
        XCTAssertEqual(try closeCode(answering: closeFrame(1000, [0xC0, 0xAF]), board: board), 1007)
        // Control frames: at most 125 bytes, never fragmented.
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x89, [UInt8](repeating: 1, count: 126)), board: board), 1002)
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x88, [0x03, 0xE8] + [UInt8](repeating: 0x61, count: 124)), board: board), 1002)
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x09, Array("hi".utf8)), board: board), 1002)
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x08, [0x03, 0xE8]), board: board), 1002)
        // Text that is not UTF-8 (overlong, surrogate, truncated): invalid data.
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82], [0xF5, 0x80, 0x80, 0x80], [0xFF]] {
            XCTAssertEqual(try closeCode(answering: TestConnection.clientFrame(opcode: 1, bad), board: board), 1007, "\(bad)")
        }
        // Fragments: a continuation outside a message, or a new message inside one.
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x80, Array("x".utf8)), board: board), 1002)
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x01, Array("a".utf8)) + rawFrame(first: 0x81, Array("b".utf8)), board: board), 1002)
        // A character split across fragments is fine; the stream then closes normally.
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x01, Array(euro[..<1])) + rawFrame(first: 0x80, Array(euro[1...])) + closeFrame(1000), board: board), 1000)
        // Valid text and a ping in the middle of a fragmented message are fine.
        XCTAssertEqual(try closeCode(answering: rawFrame(first: 0x01, Array("a".utf8)) + rawFrame(first: 0x89, []) + rawFrame(first: 0x80, Array("b".utf8)) + closeFrame(1001), board: board), 1001)
        await board.close()
    }

    func testUTF8CheckerAgreesWithTheStandardLibrary() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20000 {
            let n = Int.random(in: 0...6, using: &rng)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            XCTAssertEqual(WebSocketFrames.isValidUTF8(bytes), String(validating: bytes, as: UTF8.self) != nil, "\(bytes)")
        }
        for s in ["", "abc", "é", "€", "𝄞", "\u{10FFFF}"] { XCTAssertTrue(WebSocketFrames.isValidUTF8(Array(s.utf8)), s) }
    }
}

import Foundation
import XCTest
@testable import Tiltboard
import TiltboardCore
import TiltboardDrivers
@testable import TiltboardServer
import TiltboardSimulator
import TiltboardTestSupport

/// Two simulated boards in one loop group behind one server, as `serve --board a --board b`
/// runs them: one hub per board, every board route also under `/api/boards/<player or name>/`.
final class ServedPlayers {
    let folder: String
    let clock = VirtualClock()
    let serverClock = ManualServerClock()
    let sessions: [BoardSession]
    let engines: [HapticEngine?]
    let loops: [TiltLoop]
    let feeds: [BoardFeed]
    let hubs: [ServeHub]
    let group: TiltLoopGroup
    let server: WebServer
    let port: UInt16

    /// Board names: "left board" and "right board" (with a motor each), at 100 Hz.
    /// `faults`: the simulation's faults of each board by index (JSON), if any.
    init(_ test: XCTestCase, token: String? = nil, names: [String] = ["left board", "right board"],
         faults: [Int: String] = [:]) async throws {
        folder = NSTemporaryDirectory() + "tiltboard-serve-players-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let folder = self.folder
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        var sessions: [BoardSession] = [], engines: [HapticEngine?] = [], loops: [TiltLoop] = [], feeds: [BoardFeed] = []
        for (i, name) in names.enumerated() {
            let json = """
            {"name": "\(name)",
             "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x6\(8 + i)", "rateHz": 100},
             "motor": {"chip": "simulated", "line": \(17 + i), "maxOnSeconds": 2},
             "simulation": {"script": "flat", "noise": false, "motorLog": "\(folder)/motor\(i + 1).log"\(faults[i].map { ", \"faults\": \($0)" } ?? "")}}
            """
            let path = folder + "/board\(i + 1).json"
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            let board = try BoardDescription.load(path: path)
            let session = try BoardSession(board: board, backend: try SimulatedBoard(board: board, clock: clock), clock: clock,
                                           profilePath: folder + "/profiles/board\(i + 1).json", useProfile: true)
            let clock = self.clock
            let engine = try session.openMotor().map { HapticEngine(line: $0, clock: clock, cap: board.motor!.cap) }
            let loop = session.makeLoop(rateHz: 100, haptics: engine)
            let feed = BoardFeed(session: session, loop: loop, haptics: engine)
            loop.observe(LoopObserver(event: { if case let .sensor(event) = $0 { feed.sensorEvent(event) } }))
            sessions.append(session); engines.append(engine); loops.append(loop); feeds.append(feed)
        }
        self.sessions = sessions; self.engines = engines; self.loops = loops; self.feeds = feeds
        hubs = sessions.indices.map { ServeHub(session: sessions[$0], feed: feeds[$0], haptics: engines[$0]) }
        group = try TiltLoopGroup(loops)
        let api = ServeAPI(hubs: hubs, policy: AccessPolicy(ownNames: ["testpi", "testpi.local"], token: token), page: WebPage.html)
        server = WebServer(host: "127.0.0.1", port: 0, api: api, clock: serverClock)
        port = try await server.start()
    }

    /// Runs the group for `seconds` of virtual time, each board feeding its own hub, then passes
    /// the newest frames on.
    func runLoops(seconds: Double) {
        let feeds = self.feeds, loops = self.loops
        let observers = loops.indices.map { i in
            [LoopObserver(sample: { out, tick in feeds[i].tick(out, tick, loop: loops[i]) })]
        }
        _ = group.start(for: .seconds(seconds), observers: observers).wait()
        for hub in hubs { hub.pump() }
    }

    /// One request on a new connection: its response.
    func request(_ method: String, _ target: String, headers: String = "", body: String = "") throws -> TestResponse {
        let c = try TestConnection(port: port)
        c.send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        return try c.response()
    }

    func close() async {
        await server.stop(grace: .zero)
        for engine in engines { engine?.shutdown() }
        for session in sessions.reversed() { session.close() }
    }
}

final class ServePlayersTests: XCTestCase {
    func testBothBoardsAreListedInPlayerOrder() async throws {
        let players = try await ServedPlayers(self)
        players.runLoops(seconds: 0.3)
        let list = try players.request("GET", "/api/boards")
        XCTAssertEqual(list.status, 200)
        XCTAssertEqual(list.headers["content-type"], "application/json")
        let boards = try XCTUnwrap(list.json["boards"] as? [[String: Any]])
        XCTAssertEqual(boards.map { $0["player"] as? Int }, [1, 2])
        XCTAssertEqual(boards.map { $0["path"] as? String }, ["/api/boards/1", "/api/boards/2"])
        let described = boards.map { $0["board"] as? [String: Any] ?? [:] }
        XCTAssertEqual(described.map { $0["name"] as? String }, ["left board", "right board"])
        XCTAssertEqual(described.map { $0["chip"] as? String }, ["MPU-6050", "MPU-6050"])
        XCTAssertEqual(described.map { $0["motor"] as? Bool }, [true, true])
        XCTAssertEqual(try players.request("POST", "/api/boards").status, 405)
        await players.close()
    }

    func testEachRouteReachesOnlyItsBoardAndTheOldPathsMeanPlayerOne() async throws {
        let players = try await ServedPlayers(self)
        players.runLoops(seconds: 0.3)
        // State: by number and by name, each its own board; the old path is player 1.
        let name = { (r: TestResponse) in (r.json["board"] as? [String: Any])?["name"] as? String }
        XCTAssertEqual(name(try players.request("GET", "/api/state")), "left board")
        XCTAssertEqual(name(try players.request("GET", "/api/boards/1/state")), "left board")
        XCTAssertEqual(name(try players.request("GET", "/api/boards/2/state")), "right board")
        XCTAssertEqual(name(try players.request("GET", "/api/boards/right%20board/state")), "right board")
        XCTAssertEqual(try players.request("GET", "/api/boards/2/profile").json["path"] as? String, players.folder + "/profiles/board2.json")

        // Zero on player 2 saves only player 2's profile.
        let zero = try players.request("POST", "/api/boards/2/zero")
        XCTAssertEqual(zero.status, 200, zero.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: players.folder + "/profiles/board2.json"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: players.folder + "/profiles/board1.json"))
        let calibrated = { (r: TestResponse) in (r.json["profile"] as? [String: Any])?["calibrated"] as? Bool }
        XCTAssertEqual(calibrated(try players.request("GET", "/api/boards/2/state")), true)
        XCTAssertEqual(calibrated(try players.request("GET", "/api/state")), false)
        // The old path zeroes player 1.
        XCTAssertEqual(try players.request("POST", "/api/zero").status, 200)
        XCTAssertTrue(FileManager.default.fileExists(atPath: players.folder + "/profiles/board1.json"))

        // Sensitivity on player 2 only, by name; the detector of player 2 uses it from its next tick.
        let firm = try players.request("POST", "/api/boards/right%20board/shake", body: #"{"level": "firm"}"#)
        XCTAssertEqual(firm.status, 200, firm.text)
        let level = { (r: TestResponse) in (r.json["sensitivity"] as? [String: Any])?["level"] as? String }
        XCTAssertEqual(level(try players.request("GET", "/api/boards/2/state")), "firm")
        XCTAssertEqual(level(try players.request("GET", "/api/boards/1/state")), "default")
        players.runLoops(seconds: 0.1)
        let threshold = { (i: Int) throws -> Double? in
            let r = try players.request("GET", "/api/boards/\(i)/state")
            return r.json["thresholdG"] as? Double
        }
        XCTAssertEqual(try threshold(2), 1.2)
        XCTAssertEqual(try threshold(1), 0.8)

        // The motor test buzzes motor 2 alone.
        let buzz = try players.request("POST", "/api/boards/2/haptics", body: #"{"effect": "buzz"}"#)
        XCTAssertEqual(buzz.status, 200, buzz.text)
        let onLines = { (n: Int) -> Int in
            let log = (try? String(contentsOfFile: players.folder + "/motor\(n).log", encoding: .utf8)) ?? ""
            return log.split(separator: "\n").filter { $0.split(separator: " ").last == "1" }.count
        }
        waitUntil("motor 2 goes on") { onLines(2) > 0 }
        XCTAssertEqual(onLines(1), 0, "motor 1 never went on")

        // Calibration runs on its own board.
        XCTAssertEqual(try players.request("POST", "/api/boards/2/calibrate").status, 202)
        XCTAssertTrue(players.hubs[1].feed.isCapturing)
        XCTAssertFalse(players.hubs[0].feed.isCapturing)
        await players.close()
    }

    func testEachBoardsStreamCarriesItsOwnBoard() async throws {
        let players = try await ServedPlayers(self)
        players.runLoops(seconds: 0.2)
        let ws = try TestConnection(port: players.port)
        ws.send("GET /api/boards/2/stream HTTP/1.1\r\nHost: 127.0.0.1:\(players.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        XCTAssertEqual(try ws.response().status, 101)
        let first = try XCTUnwrap(ws.message())
        XCTAssertEqual(first["type"] as? String, "snapshot")
        XCTAssertEqual((first["board"] as? [String: Any])?["name"] as? String, "right board")
        waitUntil("the stream is registered") { players.hubs[1].clientCount == 1 }
        XCTAssertEqual(players.hubs[0].clientCount, 0)
        await players.close()
    }

    func testABoardThatFailsIsToldOnItsOwnStreamWhileTheOtherPlaysOn() async throws {
        // Player 2's sensor unplugged from 1 s to 1.5 s.
        let players = try await ServedPlayers(self, faults: [1: #"[{"at": 1.0, "kind": "unplug", "seconds": 0.5}]"#])
        var streams: [TestConnection] = []
        for n in 1...2 {
            let ws = try TestConnection(port: players.port)
            ws.send("GET /api/boards/\(n)/stream HTTP/1.1\r\nHost: 127.0.0.1:\(players.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            XCTAssertEqual(try ws.response().status, 101)
            XCTAssertEqual(ws.message()?["type"] as? String, "snapshot")
            streams.append(ws)
        }
        waitUntil("both streams are registered") { players.hubs.allSatisfy { $0.clientCount == 1 } }
        players.runLoops(seconds: 3)
        // Zero on each board sends its own stream a snapshot, which ends what the loop produced.
        for n in 1...2 { XCTAssertEqual(try players.request("POST", "/api/boards/\(n)/zero").status, 200) }
        func events(_ ws: TestConnection) -> [[String: Any]] {
            var out: [[String: Any]] = []
            while let m = ws.message(), m["type"] as? String != "snapshot" { out.append(m) }
            return out
        }
        let one = events(streams[0]), two = events(streams[1])
        let kinds = { (e: [[String: Any]]) in e.compactMap { $0["type"] as? String }.filter { $0 != "state" } }
        XCTAssertEqual(kinds(two), ["sensor-lost", "sensor-back"])
        XCTAssertEqual(kinds(one), [], "player 1 hears nothing of player 2's sensor")
        // Player 1 kept every tick; player 2 missed those of its half second away.
        let samples = { (r: TestResponse) in (r.json["loop"] as? [String: Any])?["samples"] as? Int ?? 0 }
        let first = samples(try players.request("GET", "/api/boards/1/state"))
        let second = samples(try players.request("GET", "/api/boards/2/state"))
        XCTAssertEqual(first, 301)
        XCTAssertLessThan(second, first)
        await players.close()
    }

    func testAnUnknownBoardOrRouteIs404WithAJSONError() async throws {
        let players = try await ServedPlayers(self)
        for target in ["/api/boards/3/state", "/api/boards/0/state", "/api/boards/nobody/state", "/api/boards//state", "/api/boards/01/state"] {
            let r = try players.request("GET", target)
            XCTAssertEqual(r.status, 404, target)
            XCTAssertEqual(r.headers["content-type"], "application/json", target)
            XCTAssertTrue((r.json["error"] as? String)?.hasPrefix("no such board: ") == true, "\(target): \(r.text)")
        }
        for target in ["/api/boards/2", "/api/boards/2/", "/api/boards/2/nothing", "/api/boards/2/boards"] {
            let r = try players.request("GET", target)
            XCTAssertEqual(r.status, 404, target)
            XCTAssertEqual(r.json["error"] as? String, "no such page: \"\(target)\"", target)
        }
        XCTAssertEqual(try players.request("GET", "/api/boards/2/zero").status, 405)
        await players.close()
    }

    func testTwoBoardsOfOneNameAreAddressedByNumber() async throws {
        let players = try await ServedPlayers(self, names: ["same board", "same board"])
        XCTAssertEqual(try players.request("GET", "/api/boards/same%20board/state").status, 404)
        XCTAssertEqual(try players.request("GET", "/api/boards/2/state").status, 200)
        await players.close()
    }

    func testTheNewRoutesNeedTheTokenAsTheOldOnes() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        let players = try await ServedPlayers(self, token: token)
        for target in ["/api/boards", "/api/boards/2/state", "/api/state"] {
            XCTAssertEqual(try players.request("GET", target).status, 401, target)
            XCTAssertEqual(try players.request("GET", target, headers: "Authorization: Bearer \(token)\r\n").status, 200, target)
            XCTAssertEqual(try players.request("GET", target, headers: "Origin: http://evil.example\r\nAuthorization: Bearer \(token)\r\n").status, 403, target)
        }
        XCTAssertEqual(try players.request("POST", "/api/boards/2/zero").status, 401)
        XCTAssertFalse(FileManager.default.fileExists(atPath: players.folder + "/profiles/board2.json"))
        await players.close()
    }
}

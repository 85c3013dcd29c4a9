import Foundation
import XCTest
@testable import Tiltboard
@testable import TiltboardServer
#if canImport(Glibc)
import Glibc
#endif

/// Host, Origin and token rules, the client limit, the idle and request deadlines, slow clients and
/// the goodbye at stop, over real sockets on 127.0.0.1 with the server's time in the test's hands.
final class ServeSecurityTests: XCTestCase {
    private let token = "0123456789abcdef0123456789abcdef"

    func testHostMustBeOwnNameLocalhostOrAnIPLiteral() async throws {
        let board = try await ServedBoard(self)
        let p = board.port
        for host in ["127.0.0.1:\(p)", "localhost:\(p)", "LOCALHOST", "testpi.local:\(p)", "testpi",
                     "192.168.1.20:\(p)", "[::1]:\(p)", "[fe80::1]"] {
            XCTAssertEqual(try board.request("GET", "/api/state", host: host).status, 200, host)
        }
        // A port must be 1…65535 and the one the server listens on.
        let other = p == 65535 ? 65534 : p + 1
        for host in ["evil.example:\(p)", "attacker.com", "127.0.0.1.evil.com", "testpi.local.evil.com", "[::1", "a:b:c", "1.2.3.4:99999999",
                     "127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:0", "127.0.0.1:", "127.0.0.1:-1", "127.0.0.1:+80",
                     "127.0.0.1:\(other)", "localhost:\(other)", "[::1]:\(other)", "[::1]:99999", "[::1]x"] {
            let r = try board.request("GET", "/api/state", host: host)
            XCTAssertEqual(r.status, 403, host)
            XCTAssertTrue((r.json["error"] as? String ?? "").hasPrefix("refused Host"), host)
        }
        XCTAssertEqual(try board.request("GET", "/api/state", host: "").status, 400)
        let c = try TestConnection(port: board.port)
        c.send("GET /api/state HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try c.response().status, 400, "no Host at all")
        await board.close()
    }

    func testOriginWhenSentMustMatchTheHost() async throws {
        let board = try await ServedBoard(self)
        let host = "127.0.0.1:\(board.port)"
        XCTAssertEqual(try board.request("POST", "/api/zero", host: host, headers: "Origin: http://\(host)\r\n").status, 200)
        for origin in ["http://evil.example", "null", "https://\(host)", "http://127.0.0.1:1", "http://localhost:\(board.port)"] {
            let r = try board.request("POST", "/api/haptics", host: host, headers: "Origin: \(origin)\r\n", body: #"{"effect":"buzz"}"#)
            XCTAssertEqual(r.status, 403, origin)
            XCTAssertTrue((r.json["error"] as? String ?? "").hasPrefix("refused Origin"), origin)
        }
        XCTAssertEqual(board.engine?.isActive, false, "no refused request reached the motor")
        // The WebSocket is refused before the upgrade.
        let ws = try TestConnection(port: board.port)
        XCTAssertEqual(try ws.upgrade(host: host, extraHeaders: "Origin: http://evil.example\r\n").status, 403)
        XCTAssertEqual(board.hub.clientCount, 0)
        await board.close()
    }

    func testBeyondLoopbackEveryRequestNeedsTheToken() async throws {
        let board = try await ServedBoard(self, token: token)
        for path in ["/", "/api/state", "/api/profile"] {
            let r = try board.request("GET", path)
            XCTAssertEqual(r.status, 401, path)
            XCTAssertNotNil(r.json["error"] as? String)
        }
        XCTAssertEqual(try board.request("POST", "/api/calibrate").status, 401)
        XCTAssertEqual(try board.request("GET", "/api/state", headers: "Authorization: Bearer \(token.uppercased())\r\n").status, 401)
        XCTAssertEqual(try board.request("GET", "/api/state", headers: "Authorization: Bearer \(token)x\r\n").status, 401)
        XCTAssertEqual(try board.request("GET", "/api/state?token=nope").status, 401)
        XCTAssertFalse(board.feed.isCapturing, "no capture started without the token")

        XCTAssertEqual(try board.request("GET", "/api/state", headers: "Authorization: Bearer \(token)\r\n").status, 200)
        XCTAssertEqual(try board.request("GET", "/api/state", headers: "Cookie: a=b; tiltboard-token=\(token)\r\n").status, 200)
        let page = try board.request("GET", "/?token=\(token)")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["set-cookie"], "tiltboard-token=\(token); Path=/; HttpOnly; SameSite=Strict")
        // The stream needs it too, before the upgrade.
        let ws = try TestConnection(port: board.port)
        XCTAssertEqual(try ws.upgrade(host: "testpi.local:\(board.port)").status, 401)
        let ok = try TestConnection(port: board.port)
        XCTAssertEqual(try ok.upgrade(host: "testpi.local:\(board.port)", extraHeaders: "Cookie: tiltboard-token=\(token)\r\n").status, 101)
        await board.close()
    }

    func testTokenFileIsPrivateAndKept() throws {
        let folder = NSTemporaryDirectory() + "tiltboard-token-" + UUID().uuidString
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let path = ServeToken.path(forProfile: folder + "/profiles/board.json")
        XCTAssertEqual(path, folder + "/profiles/serve-token")
        let first = try ServeToken.loadOrCreate(path: path, renew: false)
        XCTAssertTrue(first.created)
        XCTAssertEqual(first.token.count, 32)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        let again = try ServeToken.loadOrCreate(path: path, renew: false)
        XCTAssertEqual(again.token, first.token)
        XCTAssertFalse(again.created)
        let renewed = try ServeToken.loadOrCreate(path: path, renew: true)
        XCTAssertNotEqual(renewed.token, first.token)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), renewed.token + "\n")
    }

    func testATokenFileNotOursOrNotPrivateIsRefused() throws {
        let folder = NSTemporaryDirectory() + "tiltboard-token-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/serve-token"
        let token = "0123456789abcdef0123456789abcdef"
        func refusal() -> ServeTokenFileError? {
            do { _ = try ServeToken.loadOrCreate(path: path, renew: false); return nil } catch { return error as? ServeTokenFileError }
        }
        // Readable by others.
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, 0o644), 0)
        var error = try XCTUnwrap(refusal())
        XCTAssertEqual(error.problem, .mode(0o644))
        XCTAssertEqual(error.description, "the token file \(path) has mode 644, which lets others read or change it, so it is not used")
        XCTAssertEqual(error.category, .permissionDenied)
        XCTAssertEqual(chmod(path, 0o640), 0)
        XCTAssertEqual(refusal()?.problem, .mode(0o640))
        XCTAssertEqual(chmod(path, 0o600), 0)
        XCTAssertEqual(try ServeToken.loadOrCreate(path: path, renew: false).token, token, "mode 0600 and ours: used")
        // Another user's (nobody's), even with mode 0600.
        XCTAssertEqual(chown(path, 65534, 65534), 0)
        error = try XCTUnwrap(refusal())
        XCTAssertEqual(error.problem, .owner(65534, geteuid()))
        XCTAssertTrue(error.description.contains("belongs to uid 65534"), error.description)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), token + "\n", "left as it is")
        // --new-token replaces it with our own.
        let renewed = try ServeToken.loadOrCreate(path: path, renew: true)
        XCTAssertNotEqual(renewed.token, token)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual(attributes[.ownerAccountID] as? Int, Int(geteuid()))
        XCTAssertEqual((attributes[.posixPermissions] as? Int ?? 0) & 0o777, 0o600)
        // A symlink of ours to a private file of ours is followed, as ssh follows one.
        try FileManager.default.removeItem(atPath: path)
        let target = folder + "/elsewhere"
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: target))
        XCTAssertEqual(chmod(target, 0o600), 0)
        XCTAssertEqual(symlink(target, path), 0)
        XCTAssertEqual(try ServeToken.loadOrCreate(path: path, renew: false).token, token)
        // What is checked is the file it names.
        XCTAssertEqual(chmod(target, 0o644), 0)
        XCTAssertEqual(refusal()?.problem, .mode(0o644))
        XCTAssertEqual(chmod(target, 0o600), 0)
        // --new-token writes at the target, the link kept.
        let throughLink = try ServeToken.loadOrCreate(path: path, renew: true)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path), target)
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), throughLink.token + "\n")
        // A link another user owns is not followed: they could point it anywhere.
        if geteuid() == 0 {
            XCTAssertEqual(lchown(path, 65534, 65534), 0)
            XCTAssertEqual(refusal()?.problem, .symlinkOwner(65534, 0))
        }
        // Not a regular file: 73, as every such file.
        try FileManager.default.removeItem(atPath: path)
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let fifo = try XCTUnwrap(refusal())
        XCTAssertEqual(fifo.problem, .notAFile)
        XCTAssertEqual(fifo.category, .cannotCreate)
    }

    func testOverTheClientLimitIs503UntilOneLeaves() async throws {
        var limits = WebServer.Limits()
        limits.maxClients = 2
        limits.moreClients = "allow more"
        let board = try await ServedBoard(self, limits: limits)
        let a = try TestConnection(port: board.port)
        let b = try TestConnection(port: board.port)
        waitUntil("two connections are open") { board.server.counts.open == 2 }
        let r = try board.request("GET", "/api/state")
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.json["error"] as? String, "too many clients (at most 2): close another tab or device, or allow more")
        // The open ones still work.
        a.send("GET /api/state HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertEqual(try a.response().status, 200)
        b.send("GET /api/state HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(try b.response().status, 200)
        XCTAssertTrue(b.readToEnd())
        waitUntil("one connection left") { board.server.counts.open == 1 }
        XCTAssertEqual(try board.request("GET", "/api/state").status, 200)
        _ = a
        await board.close()
    }

    func testIdleConnectionsAreClosedAndSlowRequestsGet408() async throws {
        let board = try await ServedBoard(self)
        let idle = try TestConnection(port: board.port)
        waitUntil("the server waits on the idle connection") { board.serverClock.sleepers >= 1 }
        board.serverClock.advance(by: board.server.limits.idleSeconds - 1)
        idle.send("GET /api/state HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertEqual(try idle.response().status, 200, "still open just before the idle limit")
        waitUntil("the server waits again") { board.serverClock.sleepers >= 1 }
        board.serverClock.advance(by: board.server.limits.idleSeconds + 1)
        XCTAssertTrue(idle.readToEnd())
        XCTAssertTrue(idle.received.isEmpty, "closed without a response")

        var waits = board.serverClock.waits
        let slow = try TestConnection(port: board.port)
        slow.send("GET /api/state HTTP/1.1\r\nHost: local")
        // Two waits: for the first bytes (the idle limit), then for the rest (the request's deadline).
        waitUntil("the server waits for the rest") { board.serverClock.waits >= waits + 2 && board.serverClock.sleepers == 1 }
        // The head trickles in: a byte now and then does not extend the request's deadline.
        for _ in 0..<3 {
            board.serverClock.advance(by: board.server.limits.requestSeconds / 4)
            waits = board.serverClock.waits
            slow.send("h")
            waitUntil("the server took the byte and waits again") { board.serverClock.waits > waits && board.serverClock.sleepers == 1 }
        }
        board.serverClock.advance(by: board.server.limits.requestSeconds / 2)
        XCTAssertEqual(try slow.response().status, 408)
        await board.close()
    }

    func testAClientThatNeverReadsGetsOnlyTheNewestFrame() async throws {
        let board = try await ServedBoard(self, script: "tilt-left")
        let box = board.hub.connect()
        try board.runLoop(seconds: 3, pumpEvery: 1)
        // 301 frames published, none taken: the snapshot queued at connect, then one state.
        guard case .queued = await box.next() else { return XCTFail("the snapshot comes first") }
        guard case let .state(json, dropped, framed) = await box.next() else { return XCTFail("then the newest state") }
        XCTAssertEqual(dropped, 300)
        XCTAssertEqual(Array(framed), WebSocketFrames.frame(.text, json), "the shared frame carries the same text")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        XCTAssertEqual(object["t"] as? Double ?? 0, 3, accuracy: 0.011)
        XCTAssertEqual(object["type"] as? String, "state")
        board.hub.disconnect(box)
        await board.close()
    }

    func testAStalledStreamDoesNotStallTheServer() async throws {
        var limits = WebServer.Limits()
        limits.writeSeconds = 5
        let board = try await ServedBoard(self, script: "tilt-left", limits: limits)
        let stalled = try TestConnection(port: board.port)
        var size: Int32 = 4096
        setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        XCTAssertEqual(try stalled.upgrade(host: "localhost").status, 101)
        waitUntil("the stream is registered") { board.hub.clientCount == 1 }
        // Frames of about 300 bytes until the socket buffers are full and a write waits.
        var seconds = 0.0
        while board.server.stalledWrites == 0 && seconds < 3600 {
            try board.runLoop(seconds: 5, pumpEvery: 1)
            seconds += 5
        }
        XCTAssertEqual(board.server.stalledWrites, 1)
        XCTAssertEqual(try board.request("GET", "/api/state").status, 200, "others are served meanwhile")
        try board.runLoop(seconds: 5, pumpEvery: 1)
        XCTAssertEqual(board.hub.clientCount, 1)
        // The stalled writer is cut at its write limit, and the stream closed.
        waitUntil("the stalled write waits on its deadline") { board.serverClock.sleepers >= 1 }
        board.serverClock.advance(by: limits.writeSeconds + 1)
        waitUntil("the stalled client is dropped") { board.hub.clientCount == 0 }
        _ = stalled
        await board.close()
    }

    func testStopTellsTheClientsAndClosesTheStream() async throws {
        let board = try await ServedBoard(self)
        let ws = try TestConnection(port: board.port)
        XCTAssertEqual(try ws.upgrade(host: "localhost").status, 101)
        XCTAssertEqual(ws.message()?["type"] as? String, "snapshot")
        // A ping is answered.
        ws.send(TestConnection.clientFrame(opcode: 9, Array("hi".utf8)))
        var pong: (UInt8, [UInt8])?
        while let f = ws.frame() { if f.opcode == 10 { pong = f; break } }
        XCTAssertEqual(pong?.1, Array("hi".utf8))
        await board.server.stop(grace: .seconds(5))
        var sawStopping = false
        var close: [UInt8]?
        while let f = ws.frame() {
            if f.opcode == 1, String(decoding: f.payload, as: UTF8.self).contains("\"stopping\"") { sawStopping = true }
            if f.opcode == 8 { close = f.payload; break }
        }
        XCTAssertTrue(sawStopping)
        XCTAssertEqual(close.map { Array($0.prefix(2)) }, [0x03, 0xE9], "close code 1001, going away")
        XCTAssertTrue(ws.readToEnd())
        await board.close()
    }

    func testAnOversizedClientFrameClosesTheStream() async throws {
        let board = try await ServedBoard(self)
        let ws = try TestConnection(port: board.port)
        XCTAssertEqual(try ws.upgrade(host: "localhost").status, 101)
        ws.send([0x82, 0xFF, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 2, 3, 4])
        var close: [UInt8]?
        while let f = ws.frame() { if f.opcode == 8 { close = f.payload; break } }
        XCTAssertEqual(close.map { Array($0.prefix(2)) }, [0x03, 0xF1], "close code 1009, too big")
        XCTAssertTrue(ws.readToEnd())
        waitUntil("the stream is gone") { board.hub.clientCount == 0 }
        await board.close()
    }
}

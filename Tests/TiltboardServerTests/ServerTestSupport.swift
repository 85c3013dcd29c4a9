import Foundation
import Synchronization
import XCTest
@testable import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardServer
import TiltboardSimulator
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// The server's time in tests: nothing happens until the test advances it.
final class ManualServerClock: ServerClock, Sendable {
    private struct Sleeper { let id: Int; let until: UInt64; let continuation: CheckedContinuation<Void, Error> }
    private struct State { var now: UInt64 = 0; var sleepers: [Sleeper] = []; var nextID = 0; var waits = 0 }
    private let state = Mutex(State())

    func now() -> UInt64 { state.withLock { $0.now } }

    func sleep(for duration: Duration) async throws {
        let span = Nanoseconds.span(duration)
        guard span > 0 else { return try Task.checkCancellation() }
        let id = state.withLock { s -> Int in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                let cancelledAlready = state.withLock { s -> Bool in
                    if Task.isCancelled { return true }
                    s.sleepers.append(Sleeper(id: id, until: s.now &+ span, continuation: c))
                    s.waits += 1
                    return false
                }
                if cancelledAlready { c.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Sleepers waiting now.
    var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Waits begun so far (a server that took new bytes starts a new one).
    var waits: Int { state.withLock { $0.waits } }

    /// Moves time on and wakes every sleeper that is due.
    func advance(by seconds: Double) {
        let due = state.withLock { s -> [Sleeper] in
            s.now &+= Nanoseconds.span(seconds: seconds)
            let due = s.sleepers.filter { $0.until <= s.now }
            s.sleepers.removeAll { $0.until <= s.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

/// Waits for `condition`, checking every millisecond, up to a generous limit (a real server runs
/// on other threads); fails the test if it never holds.
func waitUntil(_ what: String, timeout: Double = 20, file: StaticString = #filePath, line: UInt = #line,
               _ condition: () -> Bool) {
    if !pollUntil(timeout: timeout, every: 0.001, condition) { XCTFail("timed out waiting until \(what)", file: file, line: line) }
}

/// A served simulated board: session, loop, feed, hub and a server on 127.0.0.1, port 0.
final class ServedBoard {
    let folder: String
    let clock = VirtualClock()
    let serverClock = ManualServerClock()
    let session: BoardSession
    let loop: TiltLoop
    let feed: BoardFeed
    let hub: ServeHub
    let server: WebServer
    let engine: HapticEngine?
    let port: UInt16
    let motorLog: String

    init(_ test: XCTestCase, script: String = "flat", token: String? = nil, limits: WebServer.Limits = WebServer.Limits(),
         motor: Bool = true, faults: String? = nil) async throws {
        folder = NSTemporaryDirectory() + "tiltboard-serve-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let folder = self.folder
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        motorLog = folder + "/motor.log"
        var script = script
        if script.hasPrefix("{") {
            try Data(script.utf8).write(to: URL(fileURLWithPath: folder + "/script.json"))
            script = folder + "/script.json"
        }
        let motorSection = motor ? #""motor": {"chip": "simulated", "line": 17, "maxOnSeconds": 2},"# : ""
        let json = """
        {"name": "serve test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100}, \(motorSection)
         "simulation": {"script": "\(script)", "noise": false, "motorLog": "\(motorLog)"\(faults.map { ", \"faults\": \($0)" } ?? "")}}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: folder + "/board.json"))
        let board = try BoardDescription.load(path: folder + "/board.json")
        session = try BoardSession(board: board, backend: try SimulatedBoard(board: board, clock: clock), clock: clock,
                                   profilePath: folder + "/profiles/board.json", useProfile: true)
        let clock = self.clock
        engine = try session.openMotor().map { HapticEngine(line: $0, clock: clock, cap: board.motor!.cap) }
        loop = session.makeLoop(rateHz: 100, haptics: engine)
        feed = BoardFeed(session: session, loop: loop, haptics: engine)
        let feed = self.feed
        loop.observe(LoopObserver(event: { if case let .sensor(event) = $0 { feed.sensorEvent(event) } }))
        hub = ServeHub(session: session, feed: feed, haptics: engine)
        let api = ServeAPI(hub: hub, policy: AccessPolicy(ownNames: ["testpi", "testpi.local"], token: token), page: WebPage.html)
        server = WebServer(host: "127.0.0.1", port: 0, limits: limits, api: api, clock: serverClock)
        port = try await server.start()
    }

    /// Runs the loop for `seconds` of virtual time, feeding the server's side and passing the
    /// newest frame on every `pumpEvery` samples (as the page's rate would), and after the last.
    func runLoop(seconds: Double, pumpEvery: Int = 2) throws {
        let feed = self.feed, loop = self.loop, hub = self.hub
        var n = 0
        _ = try loop.start(for: .seconds(seconds), observers: [LoopObserver(sample: { out, tick in
            feed.tick(out, tick, loop: loop)
            n += 1
            if n % pumpEvery == 0 { hub.pump() }
        })]).wait()
        hub.pump()
    }

    func close() async {
        await server.stop(grace: .zero)
        engine?.shutdown()
        session.close()
    }
}

/// A blocking client socket with a generous receive timeout.
final class TestConnection {
    let fd: Int32
    var received: [UInt8] = []

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { close(fd); throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit { close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Reads once into `received`; false at the end of the stream (or a timeout or reset).
    @discardableResult
    func readSome() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        received += buffer[..<n]
        return true
    }

    /// Reads until the other side closes; true when it did.
    func readToEnd() -> Bool {
        while readSome() {}
        return true
    }

    /// One whole response: status, headers (lower-case names) and body.
    func response() throws -> TestResponse {
        while true {
            if let end = HTTPHeadEnd.find(received) {
                let head = String(decoding: received[..<end], as: UTF8.self)
                var headers: [String: String] = [:]
                let lines = head.components(separatedBy: "\r\n")
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                if received.count >= end + length {
                    let status = Int(lines[0].split(separator: " ")[1]) ?? 0
                    let body = Array(received[end..<end + length])
                    received.removeFirst(end + length)
                    return TestResponse(status: status, headers: headers, body: body)
                }
            }
            guard readSome() else { throw POSIXError(.ECONNRESET) }
        }
    }

    /// Sends a WebSocket handshake and checks the 101.
    func upgrade(host: String, extraHeaders: String = "") throws -> TestResponse {
        send("GET /api/stream HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extraHeaders)\r\n")
        return try response()
    }

    /// The next server frame: opcode and payload; nil at the end of the stream.
    func frame() -> (opcode: UInt8, payload: [UInt8])? {
        while true {
            if received.count >= 2 {
                var length = Int(received[1] & 0x7F)
                var offset = 2
                if length == 126, received.count >= 4 { length = Int(received[2]) << 8 | Int(received[3]); offset = 4 }
                if length < 126 || offset == 4, received.count >= offset + length {
                    let frame = (received[0] & 0x0F, Array(received[offset..<offset + length]))
                    received.removeFirst(offset + length)
                    return frame
                }
            }
            guard readSome() else { return nil }
        }
    }

    /// The next text frame parsed as a JSON object.
    func message() -> [String: Any]? {
        while let (opcode, payload) = frame() {
            if opcode == 1 { return (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] }
        }
        return nil
    }

    /// A masked client frame.
    static func clientFrame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [1, 2, 3, 4]
        return [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    }
}

struct TestResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum HTTPHeadEnd {
    static func find(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}

extension ServedBoard {
    /// One request on a new connection: its response.
    func request(_ method: String, _ target: String, host: String? = nil, headers: String = "", body: String = "") throws -> TestResponse {
        let c = try TestConnection(port: port)
        let hostHeader = host.map { "Host: \($0)\r\n" } ?? "Host: 127.0.0.1:\(port)\r\n"
        c.send("\(method) \(target) HTTP/1.1\r\n\(hostHeader)\(headers)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        return try c.response()
    }
}

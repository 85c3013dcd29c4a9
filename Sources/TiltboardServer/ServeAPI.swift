import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardCore

/// The routes: the page at `/` and the JSON API under `/api/`. Every request passes the access
/// policy first (Host, Origin, token), the WebSocket upgrade included. With several boards,
/// `GET /api/boards` lists them and every board route is also under `/api/boards/<player or
/// name>/`; the routes without a board mean player 1.
package final class ServeAPI: Sendable {
    /// The boards served, in player order (player 1 first).
    package let hubs: [ServeHub]
    /// Player 1's board: the one the routes without a board mean.
    package var hub: ServeHub { hubs[0] }
    package let policy: AccessPolicy
    private let page: [UInt8]

    package enum Outcome: Sendable {
        case respond(HTTPResponse)
        /// Complete the WebSocket handshake with this key and stream this board's frames.
        case upgrade(key: String, hub: ServeHub)
    }

    /// Paths and the methods each takes.
    static let routes: [String: Set<String>] = [
        "/": ["GET"], "/api/state": ["GET"], "/api/stream": ["GET"], "/api/profile": ["GET"],
        "/api/calibrate": ["POST"], "/api/zero": ["POST"], "/api/haptics": ["POST"],
        "/api/shake": ["POST"], "/api/boards": ["GET"],
    ]

    /// Where one board's own routes start: `/api/boards/N/state` is `/api/state` for player N.
    package static let boardsPrefix = "/api/boards/"

    /// One board.
    package convenience init(hub: ServeHub, policy: AccessPolicy, page: String) {
        self.init(hubs: [hub], policy: policy, page: page)
    }

    /// Several boards, in player order; at least one.
    package init(hubs: [ServeHub], policy: AccessPolicy, page: String) {
        precondition(!hubs.isEmpty, "serve needs a board")
        self.hubs = hubs; self.policy = policy; self.page = Array(page.utf8)
    }

    /// `serverPort`: the port the server listens on, which a Host with a port must name.
    package func handle(_ head: HTTPRequestHead, body: [UInt8], serverPort: UInt16? = nil) -> Outcome {
        if let refusal = policy.refusal(head, serverPort: serverPort) { return .respond(refusal) }
        var path = head.path
        var hub = self.hub
        if path.hasPrefix(Self.boardsPrefix) {
            let rest = path.dropFirst(Self.boardsPrefix.count)
            let id = String(rest.prefix { $0 != "/" })
            guard let found = board(id) else {
                return .respond(.error(404, "no such board: \(AccessPolicy.quoted(id.removingPercentEncoding ?? id)) (GET /api/boards lists them)"))
            }
            let route = "/api/" + rest.dropFirst(id.count + 1)
            guard rest.dropFirst(id.count).hasPrefix("/"), route != "/api/", route != "/api/boards", Self.routes[route] != nil else {
                return .respond(.error(404, "no such page: \(AccessPolicy.quoted(head.path))"))
            }
            path = route
            hub = found
        }
        guard let methods = Self.routes[path] else { return .respond(.error(404, "no such page: \(AccessPolicy.quoted(head.path))")) }
        guard methods.contains(head.method) else {
            var r = HTTPResponse.error(405, "\(head.path) takes \(methods.sorted().joined(separator: ", ")), not \(head.method)")
            r.headers.append(("Allow", methods.sorted().joined(separator: ", ")))
            return .respond(r)
        }
        switch path {
        case "/": return .respond(pageResponse(head))
        case "/api/boards": return .respond(.json(200, boardList()))
        case "/api/stream":
            switch WebSocketFrames.handshakeKey(head) {
            case let .success(key): return .upgrade(key: key, hub: hub)
            case let .failure(error): return .respond(.error(400, error.message))
            }
        case "/api/state":
            return .respond(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: hub.snapshotJSON()))
        case "/api/profile": return .respond(profile(hub))
        case "/api/calibrate":
            if let bad = Self.emptyObjectProblem(body) { return .respond(.error(400, bad)) }
            switch hub.startCapture() {
            case .started:
                return .respond(.json(202, ServeJSON.CalibrateStarted(durationSeconds: .init(hub.feed.captureSettings.still.duration),
                                                                      timeoutSeconds: .init(hub.feed.captureSettings.still.timeout))))
            case .alreadyRunning: return .respond(.error(409, "a calibration is already running: wait for its result on the stream"))
            }
        case "/api/zero":
            if let bad = Self.emptyObjectProblem(body) { return .respond(.error(400, bad)) }
            do {
                try hub.zero()
                return .respond(.json(200, ServeJSON.ZeroDone(profile: hub.profileInfo())))
            } catch {
                return .respond(.error(500, "the neutral pose is level now but was not saved: \(describe(error))"))
            }
        case "/api/haptics": return .respond(haptics(body, hub))
        case "/api/shake": return .respond(shake(body, hub))
        default: return .respond(.error(404, "no such page"))
        }
    }

    /// The board `id` names: a player number (`1` for the first board), or a board's name
    /// (percent-encoded in the path) when exactly one board has it.
    package func board(_ id: String) -> ServeHub? {
        if let n = Int(id), String(n) == id { return hubs.indices.contains(n - 1) ? hubs[n - 1] : nil }
        guard let name = id.removingPercentEncoding, !name.isEmpty else { return nil }
        let named = hubs.filter { $0.name == name }
        return named.count == 1 ? named[0] : nil
    }

    /// `GET /api/boards`.
    private func boardList() -> ServeJSON.BoardList {
        ServeJSON.BoardList(boards: hubs.enumerated().map { i, hub in
            ServeJSON.BoardEntry(player: i + 1, path: Self.boardsPrefix + String(i + 1), board: hub.boardInfo)
        })
    }

    private func pageResponse(_ head: HTTPRequestHead) -> HTTPResponse {
        var r = HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"),
                                                    ("Content-Security-Policy", "default-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:"),
                                                    ("Referrer-Policy", "no-referrer")], body: page)
        // The token from the printed URL becomes a cookie, so the page's own requests carry it.
        if let token = policy.token, head.queryItem("token") != nil {
            r.headers.append(("Set-Cookie", "\(AccessPolicy.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"))
        }
        return r
    }

    private func profile(_ hub: ServeHub) -> HTTPResponse {
        let path = hub.profilePath
        do {
            let p = try ProfileStore.load(path: path, expectedBoard: hub.identity)
            return .json(200, ServeJSON.StoredProfile(path: path, profile: p))
        } catch {
            return .error(500, "\(describe(error))")
        }
    }

    private func haptics(_ body: [UInt8], _ hub: ServeHub) -> HTTPResponse {
        let asked: (name: String, effect: HapticEffect)
        switch Self.effect(fromBody: body) {
        case let .success(e): asked = e
        case let .failure(problem): return .error(400, problem.message)
        }
        guard hub.haptics != nil else { return .error(409, ServeHub.noMotor) }
        hub.play(asked.effect)
        return .json(200, ServeJSON.HapticsPlayed(effect: asked.name))
    }

    private func shake(_ body: [UInt8], _ hub: ServeHub) -> HTTPResponse {
        let asked: ProfileShake?
        switch Self.shake(fromBody: body) {
        case let .success(s): asked = s
        case let .failure(problem): return .error(400, problem.message)
        }
        do {
            let settings = try hub.setShake(asked)
            return .json(200, ServeJSON.ShakeSet(shake: hub.shakeInfo(), thresholdG: .init(settings.thresholdG), profile: hub.profileInfo()))
        } catch {
            return .error(500, "the sensitivity was not saved, nothing changed: \(describe(error))")
        }
    }

    /// The sensitivity `{"level": NAME}` asks for: a level (`gentle`, `normal`, `firm`), or
    /// `default` for the board file's settings (the profile's `shake` section removed), or, for
    /// experts, `{"thresholdG": G}` with optional `minReversals`, `minFraction`, `cooldownMs`.
    package static func shake(fromBody body: [UInt8]) -> Result<ProfileShake?, BodyProblem> {
        let usage = "the body must be {\"level\": NAME} with NAME one of \(ShakeSensitivity.namesList) or default, or {\"thresholdG\": G} (optional minReversals, minFraction, cooldownMs)"
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any], !object.isEmpty else {
            return .failure(BodyProblem(message: usage))
        }
        if let problem = strictProblem(body) { return .failure(problem) }
        if let unknown = object.keys.sorted().first(where: { !ProfileShake.keys.contains($0) }) {
            return .failure(BodyProblem(message: "unknown field \(AccessPolicy.quoted(unknown)): \(usage)"))
        }
        var shake = ProfileShake()
        if let value = object["level"] {
            guard let name = value as? String else { return .failure(BodyProblem(message: usage)) }
            if name == "default" {
                guard object.count == 1 else { return .failure(BodyProblem(message: "\"default\" takes no other field: \(usage)")) }
                return .success(nil)
            }
            guard let level = ShakeSensitivity(rawValue: name) else {
                return .failure(BodyProblem(message: "\(AccessPolicy.quoted(name)) is not a sensitivity: use one of \(ShakeSensitivity.namesList) or default"))
            }
            shake.level = level.rawValue
        }
        func number(_ key: String) -> Double?? {
            guard let v = object[key] else { return .some(nil) }
            guard let n = v as? NSNumber, String(cString: n.objCType) != "c" else { return nil }
            return .some(n.doubleValue)
        }
        guard let t = number("thresholdG"), let r = number("minReversals"), let f = number("minFraction"),
              let c = number("cooldownMs") else { return .failure(BodyProblem(message: usage)) }
        shake.thresholdG = t
        if let r {
            guard r == r.rounded(), let i = Int(exactly: r) else {
                return .failure(BodyProblem(message: "minReversals must be an integer from 1 to 20"))
            }
            shake.minReversals = i
        }
        shake.minFraction = f
        shake.cooldownMs = c
        if let problem = shake.problem { return .failure(BodyProblem(message: ErrorWording.profileValue(problem))) }
        return .success(shake)
    }

    /// A key twice in one object or a comma before `}` or `]`, which JSONSerialization lets
    /// through (which of two values wins would be undefined): refused, naming the key.
    static func strictProblem(_ body: [UInt8]) -> BodyProblem? {
        guard let problem = StrictJSON.problem(body) else { return nil }
        return BodyProblem(message: ErrorWording.strictJSON(key: problem.key, problem.kind))
    }

    /// What a body did wrong.
    package struct BodyProblem: CategorizedError, Sendable, Equatable {
        package var message: String
        package var description: String { message }
        package var category: ErrorCategory { .invalidRequest }
    }

    /// The effect `{"effect": NAME}` asks for (a preset or `pulse:MS`).
    package static func effect(fromBody body: [UInt8]) -> Result<(name: String, effect: HapticEffect), BodyProblem> {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .failure(BodyProblem(message: "the body must be a JSON object: {\"effect\": NAME}"))
        }
        if let problem = strictProblem(body) { return .failure(problem) }
        guard Set(object.keys) == ["effect"], let name = object["effect"] as? String else {
            return .failure(BodyProblem(message: "the body must be {\"effect\": NAME} with NAME one of \(HapticEffect.presetNames.joined(separator: ", ")) or pulse:MS"))
        }
        do { return .success((name, try HapticEffect.parse(name: name))) } catch { return .failure(BodyProblem(message: "\(describe(error))")) }
    }

    /// Nil when `body` is empty or a JSON object with no members, else what is wrong.
    package static func emptyObjectProblem(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return "the body must be empty or a JSON object"
        }
        if let problem = strictProblem(body) { return problem.message }
        return object.isEmpty ? nil : "unknown field \(AccessPolicy.quoted(object.keys.sorted()[0])): this takes no fields"
    }
}

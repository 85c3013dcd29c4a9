import Foundation
import Synchronization
import Tiltboard
import TiltboardCore
import TiltboardDrivers

/// The server's side of the board: takes the loop's newest frame at the page's rate, turns it into
/// JSON once for every client, notices events (a shake, the motor, a capture's progress and end, the
/// sensor lost and back), saves what the page changes in the profile, and hands each client its
/// frames through its own latest-wins mailbox. Sendable: its mutable state is under locks, and of
/// the session it only reads the board and writes the profile file (the loop applies the pose).
package final class ServeHub: @unchecked Sendable {
    package let session: BoardSession
    package let feed: BoardFeed
    package let haptics: HapticEngine?

    private struct State {
        var clients: [ObjectIdentifier: ClientMailbox] = [:]
        var last = LoopFrame()
        var lastJSON: [UInt8]?
        var reportedProgress = -1.0
        var reportedRestarts = 0
        /// Loop time of the last restart reported: a moving board restarts every few samples, and
        /// one message a second says enough (as `calibrate` does).
        var lastRestartT = -Double.infinity
    }

    private let state = Mutex(State())
    /// Profile writes one at a time (`saveNeutral` and `zeroNeutral` read the file again first).
    private let profileLock = Mutex(())

    /// What the board is, read once: the loop owns the session's sensor from now on.
    private let board: [String: Any]
    package let identity: ProfileBoardIdentity
    package let profilePath: String

    package init(session: BoardSession, feed: BoardFeed, haptics: HapticEngine?) {
        self.session = session; self.feed = feed; self.haptics = haptics
        identity = session.profileIdentity
        profilePath = session.profilePath
        var board: [String: Any] = ["name": session.board.name, "chip": session.sensor.identity.part,
                                    "simulated": session.board.isSimulated, "motor": haptics != nil,
                                    "rateHz": session.sensor.actualRateHz]
        if let cap = session.board.motor?.cap { board["maxOnSeconds"] = cap.maxOnSeconds }
        if haptics == nil { board["motorUnavailable"] = Self.noMotor }
        self.board = board
    }

    // MARK: clients

    /// A new client, sent the full state at once.
    package func connect() -> ClientMailbox {
        let box = ClientMailbox()
        box.offerQueued(WebSocketFrames.frame(.text, snapshotJSON()))
        state.withLock { $0.clients[ObjectIdentifier(box)] = box }
        return box
    }

    package func disconnect(_ box: ClientMailbox) {
        _ = state.withLock { $0.clients.removeValue(forKey: ObjectIdentifier(box)) }
    }

    /// State frames replaced before they were sent, summed over the clients connected now.
    package var droppedFrames: UInt64 { state.withLock { Array($0.clients.values) }.reduce(0) { $0 &+ $1.dropped } }

    /// WebSocket clients connected now.
    package var clientCount: Int { state.withLock { $0.clients.count } }

    /// Tells every client the server is stopping and closes their streams.
    package func closeAll() {
        let farewell = WebSocketFrames.frame(.text, Self.json(["type": "stopping"])) + WebSocketFrames.close(1001, reason: "tiltboard serve is stopping")
        for box in state.withLock({ Array($0.clients.values) }) { box.close(farewell: farewell) }
    }

    // MARK: the loop's frames

    /// Takes the newest frame (if the loop published one since) and passes it and any events on.
    /// Called at the page's rate by `run(rateHz:clock:)`, or directly by tests.
    package func pump() {
        var events: [[UInt8]] = []
        for event in feed.takeSensorEvents() {
            switch event {
            case let .lost(t, error): events.append(Self.json(["type": "sensor-lost", "t": t, "reason": Self.oneLine("\(error)")]))
            case let .back(t, reconfigured): events.append(Self.json(["type": "sensor-back", "t": t, "reconfigured": reconfigured]))
            }
        }
        let frame = feed.slot.take()
        if let frame { events += frameEvents(frame) }
        if let outcome = feed.takeOutcome() { events.append(finish(outcome)) }
        let json = frame.map(Self.stateJSON)
        let clients = state.withLock { s -> [ClientMailbox] in
            if let frame { s.last = frame }
            if let json { s.lastJSON = json }
            return Array(s.clients.values)
        }
        let frames = events.map { WebSocketFrames.frame(.text, $0) }
        let framed = json.map { Data(WebSocketFrames.frame(.text, $0)) }
        for box in clients {
            for event in frames { box.offerQueued(event) }
            if let json, let framed { box.offerState(json, framed: framed) }
        }
    }

    /// Pumps `rateHz` times a second until cancelled.
    package func run(rateHz: Double, clock: any ServerClock) async {
        while !Task.isCancelled {
            do { try await clock.sleep(for: Nanoseconds.duration(seconds: 1 / rateHz)) } catch { return }
            pump()
        }
    }

    private func frameEvents(_ frame: LoopFrame) -> [[UInt8]] {
        state.withLock { s in
            var events: [[UInt8]] = []
            let t = frame.output.t
            if frame.shakes != s.last.shakes { events.append(Self.json(["type": "shake", "t": t, "shakes": frame.shakes])) }
            if frame.haptic != s.last.haptic { events.append(Self.json(["type": "motor", "t": t, "on": frame.haptic])) }
            let c = frame.calibration
            if c.running {
                if c.attempt != s.last.calibration.attempt { s.reportedProgress = -1; s.reportedRestarts = 0; s.lastRestartT = -.infinity }
                if c.restarts != s.reportedRestarts, let why = c.lastFailure, t - s.lastRestartT >= 1 {
                    s.reportedRestarts = c.restarts
                    s.lastRestartT = t
                    s.reportedProgress = 0
                    events.append(Self.json(["type": "calibration", "state": "restarted", "progress": 0.0,
                                             "restarts": c.restarts, "message": "moved — starting again (\(why))"]))
                }
                // Every 5 %: enough for a smooth bar.
                if abs(c.progress - s.reportedProgress) >= 0.05 {
                    s.reportedProgress = c.progress
                    events.append(Self.json(["type": "calibration", "state": "running", "progress": c.progress, "restarts": c.restarts]))
                }
            }
            return events
        }
    }

    /// Saves a finished capture (re-reading the profile on disk first) and says how it ended.
    private func finish(_ outcome: CalibrationOutcome) -> [UInt8] {
        switch outcome {
        case let .captured(result):
            do {
                try profileLock.withLock { _ in _ = try session.saveNeutral(result.pose, capture: result.capture, applying: false) }
                broadcastSnapshot()
                var event: [String: Any] = ["type": "calibration", "state": "done", "progress": 1.0,
                                            "tiltDeg": result.pose.tiltDeg, "clamped": result.pose.clamped,
                                            "restarts": result.restarts, "path": profilePath]
                if result.pose.clamped { event["message"] = "held \(Self.rounded(result.pose.tiltDeg))° from level: only \(Self.rounded(feed.captureSettings.maxTiltDeg))° is compensated" }
                return Self.json(event)
            } catch {
                return Self.json(["type": "calibration", "state": "failed", "message": "the neutral pose applies but was not saved: \(error)"])
            }
        case let .failed(error):
            return Self.json(["type": "calibration", "state": "failed", "message": "\(error)"])
        }
    }

    // MARK: what the API does

    package enum CaptureStart { case started, alreadyRunning }

    /// Starts a neutral capture on the loop.
    package func startCapture() -> CaptureStart {
        feed.requestCapture() ? .started : .alreadyRunning
    }

    /// Sets the neutral pose to level and saves it (re-reading the profile on disk first).
    package func zero() throws {
        feed.requestLevel()
        try profileLock.withLock { _ in _ = try session.zeroNeutral(applying: false) }
        broadcastSnapshot()
    }

    /// Stores `shake` (a sensitivity level, expert keys or nil for the board's default) in the
    /// profile (re-reading the file first) and has the loop's detector use it from its next tick.
    /// Returns the settings now in force.
    @discardableResult
    package func setShake(_ shake: ProfileShake?) throws -> ShakeDetectorSettings {
        let settings = try profileLock.withLock { _ -> ShakeDetectorSettings in
            let profile = try session.saveShake(shake)
            return session.shakeSettings(for: profile)
        }
        feed.requestShakeSettings(settings)
        broadcastSnapshot()
        return settings
    }

    /// The shake sensitivity stored in the profile, for the page: `level` (a name, `custom`,
    /// or `default` when the profile sets none) and the threshold in force after a change.
    package func shakeInfo() -> [String: Any] {
        let stored = (try? ProfileStore.load(path: profilePath, expectedBoard: identity))??.shake
        let settings = session.shakeSettings(for: (try? ProfileStore.load(path: profilePath, expectedBoard: identity)) ?? nil)
        let level: String
        if let stored, !stored.isEmpty {
            level = (stored.thresholdG == nil ? stored.level : ShakeSensitivity(thresholdG: settings.thresholdG)?.rawValue) ?? "custom"
        } else {
            level = "default"
        }
        return ["level": level, "thresholdG": settings.thresholdG, "levels": ShakeSensitivity.allCases.map(\.rawValue),
                "description": ProfileShake.describe(settings)]
    }

    /// Why nothing can buzz: the snapshot's `board.motorUnavailable` and the 409 of `POST /api/haptics`.
    package static let noMotor = "the board has no motor (add a \"motor\" section to its board file)"

    /// Plays `effect` on the motor, within the board's on-time cap.
    package func play(_ effect: HapticEffect) { haptics?.play(effect) }

    private func broadcastSnapshot() {
        let frame = WebSocketFrames.frame(.text, snapshotJSON())
        for box in state.withLock({ Array($0.clients.values) }) { box.offerQueued(frame) }
    }

    // MARK: JSON

    /// `GET /api/state` and a client's first message: the latest frame and what it is about.
    package func snapshotJSON() -> [UInt8] {
        let (frame, hasFrame) = state.withLock { ($0.last, $0.lastJSON != nil) }
        var object = (try? JSONSerialization.jsonObject(with: Data(Self.stateJSON(frame)))) as? [String: Any] ?? [:]
        if !hasFrame { object["t"] = NSNull() }
        object["type"] = "snapshot"
        object["board"] = board
        object["profile"] = profileInfo()
        object["effects"] = HapticEffect.presetNames
        object["sensitivity"] = shakeInfo()
        object["calibration"] = ["running": feed.isCapturing, "progress": frame.calibration.progress]
        return Self.json(object)
    }

    /// The profile as on disk: path, whether there is one, when it was made and its neutral tilt.
    package func profileInfo() -> [String: Any] {
        var info: [String: Any] = ["path": profilePath]
        do {
            if let p = try ProfileStore.load(path: profilePath, expectedBoard: identity) {
                info["calibrated"] = true
                info["createdAt"] = p.createdAt
                info["neutralTiltDeg"] = p.neutral.tiltDeg
                info["sensorCalibrated"] = p.sensor != nil
                if let t = p.temperatureC { info["temperatureC"] = t }
            } else {
                info["calibrated"] = false
            }
        } catch {
            info["calibrated"] = false
            info["problem"] = "\(error)"
        }
        return info
    }

    /// A state frame: the fields of a JSON run line (`writeRunLine`) plus `type`, the raw tilt (before the
    /// neutral pose), the shake count and the loop's health.
    static func stateJSON(_ frame: LoopFrame) -> [UInt8] {
        var w = JSONLineWriter(capacity: 400)
        w.beginObject()
        w.plainString("type", "state")
        w.writeRunFields(frame.output, haptic: frame.haptic)
        let raw = TiltAngles(gravity: frame.output.accel)
        w.beginObject("raw")
        w.number("pitchDeg", raw.pitchDeg, fractionDigits: 2)
        w.number("rollDeg", raw.rollDeg, fractionDigits: 2)
        w.endObject()
        w.integer("shakes", Int(clamping: frame.shakes))
        w.number("linearG", frame.output.linearG, fractionDigits: 3)
        w.number("linearPeakG", frame.linearPeakG, fractionDigits: 3)
        w.number("thresholdG", frame.output.shakeThresholdG, fractionDigits: 2)
        w.integer("monotonicNs", Int(clamping: frame.wakeTimeNs))
        w.beginObject("loop")
        w.integer("samples", Int(clamping: frame.samples))
        w.integer("missedTicks", Int(clamping: frame.missedTicks))
        w.endObject()
        w.endObject()
        return w.bytes
    }

    /// `object` as JSON. Whatever it holds is made encodable first (an error as its one-line
    /// description, a non-finite number as null), so no event ever goes out without its fields.
    static func json(_ object: [String: Any]) -> [UInt8] {
        let clean = encodable(object)
        return Array((try? JSONSerialization.data(withJSONObject: clean, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8))
    }

    static func encodable(_ value: Any) -> Any {
        switch value {
        case let s as String: return s
        case let b as Bool: return b
        case let d as Double: return d.isFinite ? d : NSNull()
        case let f as Float: return f.isFinite ? Double(f) : NSNull()
        case let i as Int: return i
        case let i as any BinaryInteger: return Int(clamping: i)
        case is NSNull: return NSNull()
        case let a as [Any]: return a.map(encodable)
        case let o as [String: Any]: return o.mapValues(encodable)
        default: return oneLine("\(value)")
        }
    }

    /// `text` on one line (line breaks and other control characters as spaces) and at most 300
    /// characters, for a field the page shows as a sentence.
    static func oneLine(_ text: String) -> String {
        var out = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        if out.count > 300 { out = String(out.prefix(299)) + "…" }
        return out
    }

    static func rounded(_ x: Double) -> String { String(format: "%.1f", x) }
}

/// Time for the server's limits and pacing: the system's, or a manual one in tests.
package protocol ServerClock: Sendable {
    /// Now, in nanoseconds since some fixed start (monotonic).
    func now() -> UInt64
    /// Returns after `duration`, or throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

package struct SystemServerClock: ServerClock {
    package init() {}
    package func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    package func sleep(for duration: Duration) async throws {
        try await Task.sleep(nanoseconds: Nanoseconds.span(duration))
    }
}

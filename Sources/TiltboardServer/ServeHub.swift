import Foundation
import Synchronization
import Tiltboard
import TiltboardCommands
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
    private let board: ServeJSON.Board
    /// What the board is, as the snapshot's `board` and `GET /api/boards` say.
    package var boardInfo: ServeJSON.Board { board }
    /// The board's name (from its board file), by which the API can address it.
    package var name: String { board.name }
    package let identity: ProfileBoardIdentity
    package let profilePath: String

    package init(session: BoardSession, feed: BoardFeed, haptics: HapticEngine?) {
        self.session = session; self.feed = feed; self.haptics = haptics
        identity = session.profileIdentity
        profilePath = session.profilePath
        board = ServeJSON.Board(name: session.board.name, chip: session.sensor.identity.part,
                                simulated: session.board.isSimulated, motor: haptics != nil,
                                rateHz: .init(session.sensor.actualRateHz),
                                maxOnSeconds: (session.board.motor?.cap).map { ServeJSON.Real($0.maxOnSeconds) },
                                motorUnavailable: haptics == nil ? Self.noMotor : nil)
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
        let farewell = WebSocketFrames.frame(.text, ServeJSON.encode(ServeJSON.Stopping())) + WebSocketFrames.close(1001, reason: "tiltboard serve is stopping")
        for box in state.withLock({ Array($0.clients.values) }) { box.close(farewell: farewell) }
    }

    // MARK: the loop's frames

    /// Takes the newest frame (if the loop published one since) and passes it and any events on.
    /// Called at the page's rate by `run(rateHz:clock:)`, or directly by tests.
    package func pump() {
        var events: [[UInt8]] = []
        for event in feed.takeSensorEvents() {
            switch event {
            case let .lost(t, error): events.append(ServeJSON.encode(ServeJSON.SensorLost(t: .init(t), reason: Self.oneLine("\(describe(error))"))))
            case let .back(t, reconfigured): events.append(ServeJSON.encode(ServeJSON.SensorBack(t: .init(t), reconfigured: reconfigured)))
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
            if frame.shakes != s.last.shakes { events.append(ServeJSON.encode(ServeJSON.ShakeEvent(t: .init(t), shakes: Int(clamping: frame.shakes)))) }
            if frame.haptic != s.last.haptic { events.append(ServeJSON.encode(ServeJSON.MotorEvent(t: .init(t), on: frame.haptic))) }
            let c = frame.calibration
            if c.running {
                if c.attempt != s.last.calibration.attempt { s.reportedProgress = -1; s.reportedRestarts = 0; s.lastRestartT = -.infinity }
                if c.restarts != s.reportedRestarts, let why = c.lastFailure, t - s.lastRestartT >= 1 {
                    s.reportedRestarts = c.restarts
                    s.lastRestartT = t
                    s.reportedProgress = 0
                    events.append(ServeJSON.encode(ServeJSON.CalibrationEvent(state: "restarted", progress: .init(0), restarts: c.restarts,
                                                                              message: "moved — starting again (\(describe(why)))")))
                }
                // Every 5 %: enough for a smooth bar.
                if abs(c.progress - s.reportedProgress) >= 0.05 {
                    s.reportedProgress = c.progress
                    events.append(ServeJSON.encode(ServeJSON.CalibrationEvent(state: "running", progress: .init(c.progress), restarts: c.restarts)))
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
                var event = ServeJSON.CalibrationEvent(state: "done", progress: .init(1), restarts: result.restarts,
                                                       tiltDeg: .init(result.pose.tiltDeg), clamped: result.pose.clamped, path: profilePath)
                if result.pose.clamped { event.message = "held \(Self.rounded(result.pose.tiltDeg))° from level: only \(Self.rounded(feed.captureSettings.maxTiltDeg))° is compensated" }
                return ServeJSON.encode(event)
            } catch {
                return ServeJSON.encode(ServeJSON.CalibrationEvent(state: "failed", message: "the neutral pose applies but was not saved: \(describe(error))"))
            }
        case let .failed(error):
            return ServeJSON.encode(ServeJSON.CalibrationEvent(state: "failed", message: "\(describe(error))"))
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
    package func shakeInfo() -> ServeJSON.Sensitivity {
        let stored = (try? ProfileStore.load(path: profilePath, expectedBoard: identity))??.shake
        let settings = session.shakeSettings(for: (try? ProfileStore.load(path: profilePath, expectedBoard: identity)) ?? nil)
        let level: String
        if let stored, !stored.isEmpty {
            level = (stored.thresholdG == nil ? stored.level : ShakeSensitivity(thresholdG: settings.thresholdG)?.rawValue) ?? "custom"
        } else {
            level = "default"
        }
        return ServeJSON.Sensitivity(level: level, thresholdG: .init(settings.thresholdG), levels: ShakeSensitivity.allCases.map(\.rawValue),
                                     description: ProfileShake.describe(settings))
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
        // The state frame's own bytes, read back: the snapshot repeats exactly what the stream sent.
        // (Its writer has exactly these fields, so this never falls back.)
        let state = (try? ServeJSON.StateFields(stateFrame: Self.stateJSON(frame))) ?? ServeJSON.StateFields()
        return ServeJSON.encode(ServeJSON.Snapshot(state: state, t: hasFrame ? state.t : .init(nil), board: board, profile: profileInfo(),
                                                   effects: HapticEffect.presetNames, sensitivity: shakeInfo(),
                                                   calibration: .init(running: feed.isCapturing, progress: .init(frame.calibration.progress))))
    }

    /// The profile as on disk: path, whether there is one, when it was made and its neutral tilt.
    package func profileInfo() -> ServeJSON.ProfileInfo {
        var info = ServeJSON.ProfileInfo(path: profilePath, calibrated: false)
        do {
            if let p = try ProfileStore.load(path: profilePath, expectedBoard: identity) {
                info.calibrated = true
                info.createdAt = p.createdAt
                info.neutralTiltDeg = .init(p.neutral.tiltDeg)
                info.sensorCalibrated = p.sensor != nil
                info.temperatureC = p.temperatureC.map { .init($0) }
            }
        } catch {
            info.problem = "\(describe(error))"
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

import Foundation
import Tiltboard

/// The JSON `serve` sends, as types: every snapshot, event and API answer is one of these, encoded
/// by `JSONEncoder` with sorted keys. A field is a number, a boolean or a string by its declared
/// type, never by the value it happens to hold (through `[String: Any]` and `NSNumber`, a 0 or a 1
/// came out as `false` or `true`). The schemas in docs/schema/ describe each of them.
package enum ServeJSON {
    /// `value` as compact JSON with sorted keys and unescaped slashes.
    package static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every number goes through `Real` (null when not finite) or is an integer, so this cannot
        // fail; `{}` would still be valid JSON if it ever did.
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    /// A real number that is `null` when it is not finite (or absent where the key must stay).
    package struct Real: Codable, Sendable, Equatable {
        package var value: Double?

        package init(_ value: Double?) { self.value = value }

        package init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            value = c.decodeNil() ? nil : try c.decode(Double.self)
        }

        package func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            if let value, value.isFinite { try c.encode(value) } else { try c.encodeNil() }
        }
    }

    // MARK: the fields of a state frame, as a snapshot repeats them

    /// A state frame's fields (`ServeHub.stateJSON`), read back from its bytes so the snapshot
    /// carries exactly the values the stream sends, rounded as there.
    package struct StateFields: Codable, Sendable, Equatable {
        package struct Tilt: Codable, Sendable, Equatable { var pitchDeg = Real(0); var rollDeg = Real(0); var trusted = true }
        package struct Control: Codable, Sendable, Equatable {
            var x = Real(0); var y = Real(0); var vx = Real(0); var vy = Real(0); var headingDeg = Real(0)
        }
        package struct Raw: Codable, Sendable, Equatable { var pitchDeg = Real(0); var rollDeg = Real(0) }
        package struct Loop: Codable, Sendable, Equatable { var samples = 0; var missedTicks = 0 }

        package var t = Real(0)
        package var tilt = Tilt()
        package var control = Control()
        package var shake = false
        package var haptic = false
        package var raw = Raw()
        package var shakes = 0
        package var linearG = Real(0)
        package var linearPeakG = Real(0)
        package var thresholdG = Real(0)
        package var monotonicNs = 0
        package var loop = Loop()

        package init() {}

        /// The fields of the state frame `bytes` (as `ServeHub.stateJSON` writes them).
        package init(stateFrame bytes: [UInt8]) throws {
            self = try JSONDecoder().decode(Self.self, from: Data(bytes))
        }
    }

    // MARK: what `GET /api/state` and a stream's first message hold

    package struct Board: Encodable, Sendable, Equatable {
        var name: String
        var chip: String
        var simulated: Bool
        var motor: Bool
        var rateHz: Real
        var maxOnSeconds: Real?
        /// Why nothing can buzz, on a board without a motor.
        var motorUnavailable: String?
    }

    /// The profile as on disk (`profile` in a snapshot and in the answers of Zero and Shake).
    package struct ProfileInfo: Encodable, Sendable, Equatable {
        var path: String
        var calibrated: Bool
        var createdAt: String?
        var neutralTiltDeg: Real?
        var sensorCalibrated: Bool?
        var temperatureC: Real?
        var problem: String?
    }

    /// The shake sensitivity (`sensitivity` in a snapshot, `shake` in the answer of `POST /api/shake`).
    package struct Sensitivity: Encodable, Sendable, Equatable {
        var level: String
        var thresholdG: Real
        var levels: [String]
        var description: String
    }

    package struct Calibration: Encodable, Sendable, Equatable {
        var running: Bool
        var progress: Real
    }

    package struct Snapshot: Encodable, Sendable {
        var state: StateFields
        /// Nil (`"t": null`) before the loop's first frame.
        var t: Real
        var board: Board
        var profile: ProfileInfo
        var effects: [String]
        var sensitivity: Sensitivity
        var calibration: Calibration

        private enum Key: String, CodingKey {
            case type, t, tilt, control, shake, haptic, raw, shakes, linearG, linearPeakG, thresholdG, monotonicNs, loop
            case board, profile, effects, sensitivity, calibration
        }

        package func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("snapshot", forKey: .type)
            try c.encode(t, forKey: .t)
            try c.encode(state.tilt, forKey: .tilt)
            try c.encode(state.control, forKey: .control)
            try c.encode(state.shake, forKey: .shake)
            try c.encode(state.haptic, forKey: .haptic)
            try c.encode(state.raw, forKey: .raw)
            try c.encode(state.shakes, forKey: .shakes)
            try c.encode(state.linearG, forKey: .linearG)
            try c.encode(state.linearPeakG, forKey: .linearPeakG)
            try c.encode(state.thresholdG, forKey: .thresholdG)
            try c.encode(state.monotonicNs, forKey: .monotonicNs)
            try c.encode(state.loop, forKey: .loop)
            try c.encode(board, forKey: .board)
            try c.encode(profile, forKey: .profile)
            try c.encode(effects, forKey: .effects)
            try c.encode(sensitivity, forKey: .sensitivity)
            try c.encode(calibration, forKey: .calibration)
        }
    }

    // MARK: the stream's events

    package struct ShakeEvent: Encodable, Sendable { var type = "shake"; var t: Real; var shakes: Int }
    package struct MotorEvent: Encodable, Sendable { var type = "motor"; var t: Real; var on: Bool }
    package struct SensorLost: Encodable, Sendable { var type = "sensor-lost"; var t: Real; var reason: String }
    package struct SensorBack: Encodable, Sendable { var type = "sensor-back"; var t: Real; var reconfigured: Bool }
    package struct Stopping: Encodable, Sendable { var type = "stopping" }

    /// `{"type": "calibration", "state": …}`: running, restarted, done or failed, with the fields
    /// each has (an absent field is left out).
    package struct CalibrationEvent: Encodable, Sendable {
        var type = "calibration"
        var state: String
        var progress: Real?
        var restarts: Int?
        var message: String?
        var tiltDeg: Real?
        var clamped: Bool?
        var path: String?
    }

    // MARK: the API's answers

    package struct ErrorBody: Encodable, Sendable { var error: String }
    /// `GET /api/boards`: every board served, in player order.
    package struct BoardList: Encodable, Sendable { var boards: [BoardEntry] }
    /// One board of `GET /api/boards`: its player number (1 for the first `--board`), the prefix
    /// of its own routes (`/api/boards/N`), and what the snapshot's `board` says of it.
    package struct BoardEntry: Encodable, Sendable {
        var player: Int
        var path: String
        var board: Board
    }
    package struct CalibrateStarted: Encodable, Sendable { var started = true; var durationSeconds: Real; var timeoutSeconds: Real }
    package struct ZeroDone: Encodable, Sendable { var profile: ProfileInfo }
    package struct ShakeSet: Encodable, Sendable { var shake: Sensitivity; var thresholdG: Real; var profile: ProfileInfo }
    package struct HapticsPlayed: Encodable, Sendable { var effect: String }

    /// `GET /api/profile`: the profile as stored, or `null`.
    package struct StoredProfile: Encodable, Sendable {
        var path: String
        var profile: CalibrationProfile?

        private enum Key: String, CodingKey { case path, profile }

        package func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(path, forKey: .path)
            try c.encode(profile, forKey: .profile)
        }
    }
}

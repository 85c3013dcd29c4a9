import Foundation
import XCTest
@testable import Tiltboard
@testable import TiltboardCommands
@testable import TiltboardCLI
import TiltboardCore
import TiltboardDrivers
@testable import TiltboardServer

/// Every kind of JSON the project emits, made by the encoders the commands use, with the values
/// a consumer must survive: 0, 1, true, false, negative zero, the largest and smallest value each
/// field can hold, and (for measured values) a non-finite one. Each is checked here by its
/// exact text and by decoding it into strict types (a boolean where a number belongs fails);
/// with `TILTBOARD_SCHEMA_SAMPLES=DIR` each is also written to DIR/<schema>/<case>, where the
/// schema CI stage (Tests/schema/run-schema.sh) validates it against docs/schema/ with the
/// jsonschema package. Files named `invalid-…` hold what the reader refuses and must fail there.
final class SchemaBoundaryTests: XCTestCase {
    static let big = Double.greatestFiniteMagnitude
    static let tiny = Double.leastNonzeroMagnitude

    /// Writes `bytes` as DIR/`ref`/`name` when the samples folder is set; `ref` is a schema's name,
    /// with `@def` for one of its `$defs`.
    private func emit(_ ref: String, _ name: String, _ bytes: [UInt8]) throws {
        guard let dir = ProcessInfo.processInfo.environment["TILTBOARD_SCHEMA_SAMPLES"], !dir.isEmpty else { return }
        let folder = URL(fileURLWithPath: dir).appendingPathComponent(ref)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    // MARK: run --json lines and --udp datagrams

    /// What a consumer decodes a run line into: a boolean where a number belongs fails here.
    struct RunLine: Decodable {
        struct Tilt: Decodable { var pitchDeg: Double?; var rollDeg: Double?; var trusted: Bool }
        struct Control: Decodable { var x: Double?; var y: Double?; var vx: Double?; var vy: Double?; var headingDeg: Double? }
        var t: Double?
        var tilt: Tilt
        var control: Control
        var shake: Bool
        var haptic: Bool
        var dropped: UInt64?
    }

    private func output(t: Double, tilt: TiltAngles, control c: Double, heading: Double, shaking: Bool) -> PipelineOutput {
        PipelineOutput(t: t, tilt: tilt, control: ControlOutput(x: c, y: c, vx: c, vy: c, headingDeg: heading, atEdgeX: false, atEdgeY: false),
                       shaking: shaking)
    }

    func testRunLines() throws {
        let big = Self.big, tiny = Self.tiny
        let cases: [(String, PipelineOutput, Bool, UInt64, [String])] = [
            ("zeros", output(t: 0, tilt: .init(pitchDeg: 0, rollDeg: 0), control: 0, heading: 0, shaking: false), false, 0,
             [#"{"t":0,"tilt":{"pitchDeg":0,"rollDeg":0,"trusted":true},"control":{"x":0,"y":0,"vx":0,"vy":0,"headingDeg":0},"shake":false,"haptic":false}"#]),
            ("ones", output(t: 1, tilt: .init(pitchDeg: 1, rollDeg: 1), control: 1, heading: 1, shaking: true), true, 1,
             [#""control":{"x":1,"y":1,"vx":1,"vy":1,"headingDeg":1},"shake":true,"haptic":true,"dropped":1}"#, #""pitchDeg":1,"rollDeg":1,"#]),
            ("negative-zero", output(t: -0.0, tilt: .init(pitchDeg: -0.0, rollDeg: -0.0), control: -0.0, heading: -0.0, shaking: false), false, 0,
             [#"{"t":0,"#, #""control":{"x":0,"y":0,"vx":0,"vy":0,"headingDeg":0}"#]),
            ("largest", output(t: big, tilt: .init(pitchDeg: 180, rollDeg: 90), control: big, heading: 180, shaking: true), true, .max,
             [#"{"t":1.7976931348623157e+308,"#, #""vx":1.7976931348623157e+308,"#, #""headingDeg":180}"#,
              #""dropped":9223372036854775807}"#]),
            ("smallest", output(t: -big, tilt: .init(pitchDeg: -179.99, rollDeg: -90), control: -big, heading: -180, shaking: false), false, 0,
             [#"{"t":-1.7976931348623157e+308,"#, #""vy":-1.7976931348623157e+308,"#, #""headingDeg":-180}"#]),
            ("nearest-zero", output(t: tiny, tilt: .init(pitchDeg: -tiny, rollDeg: tiny), control: -tiny, heading: tiny, shaking: false), false, 0,
             [#"{"t":0,"tilt":{"pitchDeg":0,"rollDeg":0,"#, #""control":{"x":0,"y":0,"vx":0,"vy":0,"headingDeg":0}"#]),
            ("not-finite", output(t: .nan, tilt: .init(pitchDeg: 0, rollDeg: 0), control: .infinity, heading: -.infinity, shaking: false), false, 0,
             [#"{"t":null,"#, #""control":{"x":null,"y":null,"vx":null,"vy":null,"headingDeg":null}"#]),
        ]
        var line = JSONLineWriter()
        var all: [UInt8] = []
        for (name, out, haptic, dropped, expected) in cases {
            line.writeRunLine(out, haptic: haptic, dropped: dropped)
            let json = text(line.bytes)
            for piece in expected { XCTAssertTrue(json.contains(piece), "\(name): \(piece) not in \(json)") }
            let decoded = try JSONDecoder().decode(RunLine.self, from: Data(line.bytes))
            XCTAssertEqual(decoded.shake, out.shaking, name)
            XCTAssertEqual(decoded.haptic, haptic, name)
            try emit("run-line", "\(name).jsonl", line.bytes)
            // The datagram: the same object without its newline.
            try emit("run-line", "udp-\(name).json", Array(line.bytes.dropLast()))
            all += line.bytes
        }
        XCTAssertEqual(all.filter { $0 == 0x0A }.count, cases.count)
    }

    // MARK: read --json, shake --json, probe --json

    struct ReadLine: Decodable { var t: Double?; var accel: [Double?]; var gyro: [Double?]?; var tempC: Double? }

    func testReadLines() throws {
        let big = Self.big
        let cases: [(String, Sample, String)] = [
            ("zeros", Sample(t: 0, accel: Vector3(0, 0, 0), gyro: Vector3(0, 0, 0), tempC: 0),
             #"{"t":0,"accel":[0,0,0],"gyro":[0,0,0],"tempC":0}"#),
            ("ones", Sample(t: 1, accel: Vector3(1, 1, 1), gyro: Vector3(1, 1, 1), tempC: 1),
             #"{"t":1,"accel":[1,1,1],"gyro":[1,1,1],"tempC":1}"#),
            ("negative-zero", Sample(t: -0.0, accel: Vector3(-0.0, -0.0, -0.0), gyro: Vector3(-0.0, -0.0, -0.0), tempC: -0.0),
             #"{"t":0,"accel":[0,0,0],"gyro":[0,0,0],"tempC":0}"#),
            ("largest", Sample(t: big, accel: Vector3(big, big, big), gyro: Vector3(big, big, big), tempC: big),
             #"{"t":1.7976931348623157e+308,"accel":[1.7976931348623157e+308,1.7976931348623157e+308,1.7976931348623157e+308],"gyro":[1.7976931348623157e+308,1.7976931348623157e+308,1.7976931348623157e+308],"tempC":1.7976931348623157e+308}"#),
            ("smallest", Sample(t: -big, accel: Vector3(-big, -big, -big), gyro: Vector3(-big, -big, -big), tempC: -big),
             #"{"t":-1.7976931348623157e+308,"accel":[-1.7976931348623157e+308,-1.7976931348623157e+308,-1.7976931348623157e+308],"gyro":[-1.7976931348623157e+308,-1.7976931348623157e+308,-1.7976931348623157e+308],"tempC":-1.7976931348623157e+308}"#),
            ("accelerometer-only", Sample(t: 0.5, accel: Vector3(0.00001, -0.00001, 1)), #"{"t":0.5,"accel":[0.00001,-0.00001,1]}"#),
            ("not-finite", Sample(t: 1, accel: Vector3(.nan, .infinity, -.infinity), gyro: Vector3(.nan, 0, 0), tempC: .nan),
             #"{"t":1,"accel":[null,null,null],"gyro":[null,0,0],"tempC":null}"#),
        ]
        try checkLines(cases, schema: "read-line", as: ReadLine.self) { $0.write(sample: $1) }
    }

    /// Writes each case as a line, checks it is exactly `expected` (plus the newline) and decodes
    /// into `T`, and emits it for `schema`.
    private func checkLines<Value, T: Decodable>(_ cases: [(String, Value, String)], schema: String, as: T.Type,
                                                 write: (inout JSONLineWriter, Value) -> Void) throws {
        var line = JSONLineWriter()
        for (name, value, expected) in cases {
            line.reset()
            write(&line, value)
            XCTAssertEqual(text(line.bytes), expected + "\n", name)
            _ = try JSONDecoder().decode(T.self, from: Data(line.bytes))
            try emit(schema, "\(name).jsonl", line.bytes)
        }
    }

    struct ShakeLine: Decodable { var event: String; var t: Double?; var durationS: Double?; var peakG: Double? }

    func testShakeEvents() throws {
        let big = Self.big
        let cases: [(String, ShakeEvent, String)] = [
            ("start-zeros", ShakeEvent(phase: .started, t: 0, peakG: 0, startT: 0), #"{"event":"start","t":0,"peakG":0}"#),
            ("end-zeros", ShakeEvent(phase: .ended, t: 0, peakG: 0, startT: 0), #"{"event":"end","t":0,"durationS":0,"peakG":0}"#),
            ("end-ones", ShakeEvent(phase: .ended, t: 2, peakG: 1, startT: 1), #"{"event":"end","t":2,"durationS":1,"peakG":1}"#),
            ("end-negative-zero", ShakeEvent(phase: .ended, t: -0.0, peakG: -0.0, startT: 0), #"{"event":"end","t":0,"durationS":0,"peakG":0}"#),
            ("end-largest", ShakeEvent(phase: .ended, t: big, peakG: big, startT: 0),
             #"{"event":"end","t":1.7976931348623157e+308,"durationS":1.7976931348623157e+308,"peakG":1.7976931348623157e+308}"#),
            ("end-smallest", ShakeEvent(phase: .ended, t: -big, peakG: -big, startT: 0),
             #"{"event":"end","t":-1.7976931348623157e+308,"durationS":-1.7976931348623157e+308,"peakG":-1.7976931348623157e+308}"#),
            ("end-overflowing", ShakeEvent(phase: .ended, t: big, peakG: 1, startT: -big), #"{"event":"end","t":1.7976931348623157e+308,"durationS":null,"peakG":1}"#),
        ]
        try checkLines(cases, schema: "shake-event", as: ShakeLine.self) { $0.write(shakeEvent: $1) }
    }

    /// The schema names every chip of the registry, and no other: a chip folder added without
    /// its schema entry fails here, before the CI stage's validator sees its probe line.
    func testTheSchemasChipListIsTheRegistrys() throws {
        let url = URL(fileURLWithPath: packageRoot).appendingPathComponent("docs/schema/common.schema.json")
        let schema = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let defs = try XCTUnwrap(schema["$defs"] as? [String: Any])
        let chip = try XCTUnwrap(defs["chip"] as? [String: Any])
        let names = try XCTUnwrap(chip["enum"] as? [String])
        XCTAssertEqual(Set(names), Set(ChipKind.allCases.map(\.rawValue)))
        XCTAssertEqual(names.count, ChipKind.allCases.count)
    }

    func testProbeLines() throws {
        let cases: [(String, ProbeResult, String)] = [
            ("lowest", ProbeResult(address: 0x00, chip: nil, part: "unknown device", chipID: 0x00),
             #"{"address":"0x00","part":"unknown device","chipID":"0x00"}"#),
            ("highest", ProbeResult(address: 0x7F, chip: .lis3dh, part: "LIS3DH", chipID: 0xFF),
             #"{"address":"0x7f","chip":"lis3dh","part":"LIS3DH","chipID":"0xff"}"#),
            ("no-id", ProbeResult(address: 0x68, chip: nil, part: "unknown device", chipID: nil), #"{"address":"0x68","part":"unknown device"}"#),
        ] + ChipKind.allCases.map { chip in
            ("chip-\(chip.rawValue)", ProbeResult(address: chip.addresses[0], chip: chip, part: chip.partName, chipID: 0x68), "")
        }
        var line = JSONLineWriter()
        for (name, device, expected) in cases {
            line.reset()
            line.write(probed: device)
            if !expected.isEmpty { XCTAssertEqual(text(line.bytes), expected + "\n", name) }
            try emit("probe-line", "\(name).jsonl", line.bytes)
        }
    }

    // MARK: serve: state frames, snapshots, events, answers

    private func frame(_ v: Double, count: UInt64, trusted: Bool, on: Bool) -> LoopFrame {
        var f = LoopFrame()
        f.output = output(t: v, tilt: .init(pitchDeg: 0, rollDeg: 0), control: v, heading: v, shaking: on)
        f.output.tiltTrusted = trusted
        f.output.linearG = v
        f.output.shakeThresholdG = v
        f.linearPeakG = v
        f.haptic = on
        f.wakeTimeNs = count; f.samples = count; f.missedTicks = count; f.shakes = count
        return f
    }

    func testStateFramesAndSnapshots() throws {
        let cases: [(String, LoopFrame, [String])] = [
            ("zeros", frame(0, count: 0, trusted: false, on: false),
             [#""shakes":0,"linearG":0,"linearPeakG":0,"thresholdG":0,"monotonicNs":0,"loop":{"samples":0,"missedTicks":0}}"#, #""vx":0,"#]),
            ("ones", frame(1, count: 1, trusted: true, on: true),
             [#""shakes":1,"linearG":1,"linearPeakG":1,"thresholdG":1,"monotonicNs":1,"loop":{"samples":1,"missedTicks":1}}"#, #""vx":1,"#]),
            ("negative-zero", frame(-0.0, count: 0, trusted: true, on: false), [#""linearG":0,"linearPeakG":0,"thresholdG":0,"#]),
            ("largest", frame(Self.big, count: .max, trusted: true, on: true),
             [#""shakes":9223372036854775807,"linearG":1.7976931348623157e+308,"#, #""missedTicks":9223372036854775807}"#]),
            ("smallest", frame(-Self.big, count: 0, trusted: false, on: false), [#""thresholdG":-1.7976931348623157e+308,"#]),
            ("not-finite", frame(.nan, count: 0, trusted: false, on: false), [#""linearG":null,"#, #"{"type":"state","t":null,"#]),
        ]
        for (name, f, expected) in cases {
            let state = ServeHub.stateJSON(f)
            let json = text(state)
            for piece in expected { XCTAssertTrue(json.contains(piece), "\(name): \(piece) not in \(json)") }
            let fields = try ServeJSON.StateFields(stateFrame: state)
            XCTAssertEqual(fields.shakes, Int(clamping: f.shakes), name)
            try emit("serve@state", "\(name).json", state)
            try emit("serve", "state-\(name).json", state)
            try emit("serve@state", "\(name)-dropped.json", WebServer.withDropped(state, f.shakes == 0 ? 1 : .max))

            // The snapshot repeats the state frame's values, as numbers.
            let snapshot = ServeJSON.Snapshot(
                state: fields, t: f.samples == 0 ? .init(nil) : fields.t,
                board: .init(name: "b", chip: "MPU-6050", simulated: f.haptic, motor: !f.haptic, rateHz: .init(f.linearPeakG),
                             maxOnSeconds: f.haptic ? .init(f.linearPeakG) : nil),
                profile: profileInfo(f.linearPeakG, calibrated: f.haptic),
                effects: HapticEffect.presetNames,
                sensitivity: .init(level: "custom", thresholdG: .init(f.linearPeakG), levels: ShakeSensitivity.allCases.map(\.rawValue), description: "custom (1.0 g)"),
                calibration: .init(running: f.haptic, progress: .init(f.linearPeakG)))
            let bytes = ServeJSON.encode(snapshot)
            let object = text(bytes)
            XCTAssertTrue(object.hasPrefix(#"{"board":{"#), object)
            XCTAssertEqual(try ServeJSON.StateFields(stateFrame: bytes).shakes, Int(clamping: f.shakes), name)
            if f.shakes == 0 { XCTAssertTrue(object.contains(#""shakes":0,"#) && object.contains(#""missedTicks":0,"#), object) }
            try emit("serve@snapshot", "\(name).json", bytes)
            try emit("serve@apiState", "\(name).json", bytes)
        }
    }

    private func profileInfo(_ v: Double, calibrated: Bool) -> ServeJSON.ProfileInfo {
        calibrated ? .init(path: "/p/profile.json", calibrated: true, createdAt: "2026-11-21T08:30:00Z", neutralTiltDeg: .init(v),
                           sensorCalibrated: true, temperatureC: .init(v))
                   : .init(path: "/p/profile.json", calibrated: false, problem: "profile /p/profile.json: not valid JSON")
    }

    func testEventsAndAnswers() throws {
        let values: [(String, Double, Int)] = [("zeros", 0, 0), ("ones", 1, 1), ("negative-zero", -0.0, 0),
                                               ("largest", Self.big, .max), ("smallest", -Self.big, 0), ("not-finite", .nan, 0)]
        for (name, v, n) in values {
            let on = n != 0
            let events: [(String, any Encodable)] = [
                ("shake", ServeJSON.ShakeEvent(t: .init(v), shakes: n)),
                ("motor", ServeJSON.MotorEvent(t: .init(v), on: on)),
                ("sensor-lost", ServeJSON.SensorLost(t: .init(v), reason: "no ACK from 0x68 on /dev/i2c-1")),
                ("sensor-back", ServeJSON.SensorBack(t: .init(v), reconfigured: on)),
                ("stopping", ServeJSON.Stopping()),
                ("calibration-running", ServeJSON.CalibrationEvent(state: "running", progress: .init(v), restarts: n)),
                ("calibration-restarted", ServeJSON.CalibrationEvent(state: "restarted", progress: .init(0), restarts: n, message: "moved — starting again")),
                ("calibration-done", ServeJSON.CalibrationEvent(state: "done", progress: .init(1), restarts: n, message: on ? "held" : nil,
                                                                tiltDeg: .init(v), clamped: on, path: "/p/profile.json")),
                ("calibration-failed", ServeJSON.CalibrationEvent(state: "failed", message: "the board never kept still")),
            ]
            for (kind, event) in events {
                let bytes = ServeJSON.encode(event)
                try emit("serve", "\(kind)-\(name).json", bytes)
            }
            let answers: [(String, any Encodable)] = [
                ("apiCalibrate", ServeJSON.CalibrateStarted(durationSeconds: .init(v), timeoutSeconds: .init(v))),
                ("apiZero", ServeJSON.ZeroDone(profile: profileInfo(v, calibrated: on))),
                ("apiShake", ServeJSON.ShakeSet(shake: .init(level: "custom", thresholdG: .init(v), levels: ["gentle"], description: "custom (1.0 g)"),
                                                thresholdG: .init(v), profile: profileInfo(v, calibrated: !on))),
                ("apiHaptics", ServeJSON.HapticsPlayed(effect: "pulse:150")),
                ("error", ServeJSON.ErrorBody(error: "no such page: \"/x\"")),
            ]
            for (def, answer) in answers { try emit("serve@\(def)", "\(name).json", ServeJSON.encode(answer)) }
        }
        // The bug this guards against: the answer to {"thresholdG": 1} said "thresholdG":true.
        let one = text(ServeJSON.encode(ServeJSON.ShakeSet(shake: .init(level: "custom", thresholdG: .init(1), levels: [], description: "custom (1.0 g)"),
                                                           thresholdG: .init(1), profile: profileInfo(0, calibrated: false))))
        XCTAssertEqual(one, #"{"profile":{"calibrated":false,"path":"/p/profile.json","problem":"profile /p/profile.json: not valid JSON"},"shake":{"description":"custom (1.0 g)","level":"custom","levels":[],"thresholdG":1},"thresholdG":1}"#)
        XCTAssertEqual(text(ServeJSON.encode(ServeJSON.ShakeEvent(t: .init(-0.0), shakes: 0))), #"{"shakes":0,"t":-0,"type":"shake"}"#)
        XCTAssertEqual(text(ServeJSON.encode(ServeJSON.MotorEvent(t: .init(.infinity), on: false))), #"{"on":false,"t":null,"type":"motor"}"#)
        for (name, profile) in try profiles() {
            try emit("serve@apiProfile", "\(name).json", ServeJSON.encode(ServeJSON.StoredProfile(path: "/p/profile.json", profile: profile)))
        }
        try emit("serve@apiProfile", "none.json", ServeJSON.encode(ServeJSON.StoredProfile(path: "/p/profile.json", profile: nil)))
    }

    // MARK: the profile file and profile show --json

    private static let identity = ProfileBoardIdentity(name: "simulated MPU-6050 board", chip: .mpu6050, bus: "simulated", address: 0x68, chipID: 0x68)

    /// Profiles at each value their fields can hold (each passes the reader's checks).
    private func profiles() throws -> [(String, CalibrationProfile)] {
        func profile(_ v: Double, count: Int, unit: Quaternion, mean: Vector3, tilt: Double, clamped: Bool, offset: Double, scale: Double,
                     gyro: Double, residual: Double, maxTilt: Double, sensorMean: Double, shake: ProfileShake, temperature: Double) -> CalibrationProfile {
            CalibrationProfile(board: Self.identity, createdAt: "2026-11-21T08:30:00Z", temperatureC: temperature, sampleCount: count,
                               noiseMg: Vector3(v, v, v), neutral: NeutralPose(rotation: unit, meanRawG: mean, tiltDeg: tilt, clamped: clamped),
                               sensor: .init(offsetG: Vector3(offset, offset, offset), scale: Vector3(scale, scale, scale),
                                             crossAxis: Matrix3.identity, gyroBiasDps: Vector3(gyro, gyro, gyro), residualMg: residual, writtenToChip: clamped),
                               gyroBiasDps: Vector3(gyro, gyro, gyro), neutralSource: .init(sensorMeanG: Vector3(sensorMean, sensorMean, sensorMean), maxTiltDeg: maxTilt),
                               shake: shake)
        }
        let big = Self.big
        return [
            ("zeros", profile(0, count: 0, unit: .identity, mean: Vector3(0, 0, 1), tilt: 0, clamped: false, offset: 0, scale: 1, gyro: 0, residual: 0,
                              maxTilt: 0, sensorMean: 1, shake: ProfileShake(thresholdG: 1, minFraction: 0, cooldownMs: 0), temperature: 0)),
            ("ones", profile(1, count: 1, unit: Quaternion(w: 0, x: 1, y: 0, z: 0), mean: Vector3(1, 1, 1), tilt: 1, clamped: true, offset: 1, scale: 1,
                             gyro: 1, residual: 1, maxTilt: 1, sensorMean: 1, shake: ProfileShake(level: .firm, thresholdG: 1, minReversals: 1, minFraction: 1, cooldownMs: 1),
                             temperature: 1)),
            ("negative-zero", profile(-0.0, count: 0, unit: Quaternion(w: 1, x: -0.0, y: -0.0, z: -0.0), mean: Vector3(-0.0, -0.0, 1), tilt: -0.0, clamped: false,
                                      offset: -0.0, scale: 1, gyro: -0.0, residual: -0.0, maxTilt: -0.0, sensorMean: 1,
                                      shake: ProfileShake(minFraction: -0.0, cooldownMs: -0.0), temperature: -0.0)),
            ("largest", profile(big, count: .max, unit: Quaternion(w: 0, x: 0, y: 0, z: 1), mean: Vector3(16, 16, 16), tilt: 180, clamped: true, offset: 2,
                                scale: 2, gyro: 500, residual: big, maxTilt: 90, sensorMean: 16,
                                shake: ProfileShake(level: .gentle, thresholdG: 16, minReversals: 20, minFraction: 1, cooldownMs: 60_000), temperature: 150.0.nextDown)),
            ("smallest", profile(0, count: 0, unit: Quaternion(w: -1, x: 0, y: 0, z: 0), mean: Vector3(-16, -16, -16), tilt: 0, clamped: false, offset: -2,
                                 scale: 0.5, gyro: -500, residual: 0, maxTilt: 0, sensorMean: -16,
                                 shake: ProfileShake(thresholdG: Self.tiny, minReversals: 1, minFraction: 0, cooldownMs: 0), temperature: (-60.0).nextUp)),
            ("minimal", CalibrationProfile(board: Self.identity, createdAt: "2026-11-21T08:30:00.250Z", sampleCount: 200, noiseMg: Vector3(0.4, 0.4, 0.5),
                                           neutral: NeutralPose(rotation: .identity, meanRawG: Vector3(0, 0, 1), tiltDeg: 0, clamped: false))),
        ]
    }

    func testProfileFiles() throws {
        for (name, profile) in try profiles() {
            XCTAssertNil(profile.problem, name)
            let bytes = try ProfileStore.encode(profile)
            // What is written is read back as it was.
            XCTAssertEqual(try ProfileStore.decode(bytes, path: name), profile, name)
            try emit("profile", "\(name).json", bytes)
            try emit("profile-show", "\(name).json", Array(try ProfileShowOutput(path: "/p/\(name).json", profile: profile).jsonText().utf8))
        }
        let largest = text(try ProfileStore.encode(try profiles()[3].1))
        XCTAssertTrue(largest.contains(#""sampleCount" : 9223372036854775807"#), largest)
        XCTAssertTrue(largest.contains(#""residualMg" : 1.7976931348623157e+308"#), largest)
        XCTAssertTrue(text(try ProfileStore.encode(try profiles()[2].1)).contains(#""tiltDeg" : -0"#))
        try emit("profile-show", "none.json", Array(try ProfileShowOutput(path: "/p/none.json", profile: nil).jsonText().utf8))

        // What the reader refuses, the schema refuses too (checked by the CI stage).
        var outside: [(String, (inout CalibrationProfile) -> Void)] = [
            ("threshold-zero", { $0.shake = ProfileShake(thresholdG: 0) }),
            ("threshold-above-16", { $0.shake = ProfileShake(thresholdG: 16.5) }),
            ("reversals-zero", { $0.shake = ProfileShake(minReversals: 0) }),
            ("reversals-21", { $0.shake = ProfileShake(minReversals: 21) }),
            ("fraction-above-1", { $0.shake = ProfileShake(minFraction: 1.5) }),
            ("cooldown-above-60000", { $0.shake = ProfileShake(cooldownMs: 60_001) }),
            ("scale-below-half", { $0.sensor?.scale = Vector3(0.4, 1, 1) }),
            ("offset-above-2", { $0.sensor?.offsetG = Vector3(0, 2.5, 0) }),
            ("gyro-above-500", { $0.gyroBiasDps = Vector3(0, 0, 501) }),
            ("temperature-150", { $0.temperatureC = 150 }),
            ("temperature-minus-60", { $0.temperatureC = -60 }),
            ("tilt-above-180", { $0.neutral.tiltDeg = 180.5 }),
            ("max-tilt-above-90", { $0.neutralSource?.maxTiltDeg = 91 }),
            ("negative-samples", { $0.sampleCount = -1 }),
            ("negative-noise", { $0.noiseMg = Vector3(0, -1, 0) }),
            ("residual-negative", { $0.sensor?.residualMg = -1 }),
        ]
        outside.append(("level-unknown", { $0.shake = ProfileShake(); $0.shake?.level = "wild" }))
        let base = try profiles()[1].1
        for (name, change) in outside {
            var profile = base
            change(&profile)
            XCTAssertNotNil(profile.problem, name)
            try emit("profile", "invalid-\(name).json", try ProfileStore.encode(profile))
        }
        // A newer form is refused by this version's reader and by its schema.
        var newer = base
        newer.schemaVersion = 2
        XCTAssertThrowsError(try ProfileStore.decode(try ProfileStore.encode(newer), path: "newer"))
        try emit("profile", "invalid-schema-version-2.json", try ProfileStore.encode(newer))
    }

    // MARK: doctor --json and bench --json

    func testDoctorReports() throws {
        let cases: [(String, DoctorCommand.Report)] = [
            ("all-well", .init(checks: [.init(id: "i2c-enabled", status: .pass, detail: "simulated board"),
                                        .init(id: "realtime", status: .skip, detail: "not permitted", fix: "run as a service")], exitCode: 0)),
            ("unavailable", .init(checks: [.init(id: "sensor", status: .fail, detail: "no ACK at 0x68", fix: "check the wiring", cause: .unavailable)], exitCode: 69)),
            ("permission", .init(checks: [.init(id: "i2c-permission", status: .fail, detail: "/dev/i2c-1: permission denied", fix: "add the udev rule", cause: .permission)],
                                 exitCode: 77)),
            ("no-checks", .init(checks: [], exitCode: 0)),
        ]
        for (name, report) in cases {
            let bytes = try report.jsonLine()
            XCTAssertTrue(text(bytes).hasSuffix("\"exitCode\":\(report.exitCode)}\n"), text(bytes))
            try emit("doctor", "\(name).json", bytes)
        }
    }

    func testBenchReports() throws {
        func loop(_ v: Double, _ n: UInt64, _ i: Int, _ s: Int64, fifo: Bool, optionals: Bool) -> LoopBenchmarkResult {
            LoopBenchmarkResult(rateHz: v, tickRateHz: v, fifo: fifo, ticks: n, missedTicks: n, latenessP50Microseconds: v, latenessP99Microseconds: v,
                                latenessMaxMicroseconds: v, samples: n, transactions: i, bytes: i, transactionsPerSample: v, transactionsPerTick: v,
                                bytesPerSample: v, allocationsPerTick: optionals ? v : nil, expectedSamples: optionals ? n : nil,
                                droppedSamples: optionals ? s : nil, fifoOverflows: i, realtimeNote: optionals ? "SCHED_FIFO refused" : nil)
        }
        func run(_ v: Double, _ n: UInt64, _ i: Int, optionals: Bool) -> ServeBenchmarkRun {
            ServeBenchmarkRun(clients: i, ticks: n, missedTicks: n, latenessP50Microseconds: v, latenessP99Microseconds: v, bytesReceived: i,
                              framesDropped: n, residentBytesAfter: optionals ? n : nil, realtimeNote: optionals ? "refused" : nil)
        }
        func part(_ v: Double, _ n: UInt64) -> HoldStillBenchmark.PartResult {
            .init(seed: n, stillTiltDeg: v, stillDriftPerMin: v, warmUpTiltDeg: v, warmUpDriftPerMin: v, stepReadsDeg: v, stepRiseSeconds: v,
                  stepTo80PercentSeconds: v)
        }
        let values: [(String, Double, UInt64, Int, Int64, Bool)] = [
            ("zeros", 0, 0, 0, 0, false), ("ones", 1, 1, 1, 1, true), ("negative-zero", -0.0, 0, 0, 0, false),
            ("largest", Self.big, .max, .max, .max, true), ("smallest", -Self.big, 0, .min, .min, true),
        ]
        for (name, v, n, i, s, optionals) in values {
            let loops = BenchReport(board: "b", simulated: optionals, chip: "MPU-6050", loops: [loop(v, n, i, s, fifo: optionals, optionals: optionals)],
                                    pipelineSamplesPerSecond: v, readAndPipelineSamplesPerSecond: v, peakResidentBytes: optionals ? n : nil,
                                    realtimeNote: optionals ? "refused" : nil)
            try emit("bench@loops", "\(name).json", Array(try BenchCommand.jsonLine(loops).utf8))
            let summaries = [HoldStillBenchmark.ChipSummary(chip: .mpu6050, results: [part(v, n)])]
            try emit("bench@holdStill", "\(name).json", Array(try BenchCommand.jsonLine(summaries).utf8))
            let serve = ServeBenchmarkReport(rateHz: v, secondsPerRun: v, uiRateHz: v, without: [run(v, n, i, optionals: optionals)],
                                             with: [run(v, n, i, optionals: !optionals)], medianP50Without: v, medianP50With: v,
                                             medianP99Without: v, medianP99With: v)
            try emit("bench@serve", "\(name).json", Array(try BenchCommand.jsonLine(serve).utf8))
            if name == "largest" {
                let line = try BenchCommand.jsonLine(loops)
                XCTAssertTrue(line.contains(#""ticks":18446744073709551615"#) && line.contains(#""transactions":9223372036854775807"#), line)
            }
        }
    }
}

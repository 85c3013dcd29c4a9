#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import Tiltboard

/// How still a calibrated board stays, on seeded worst-case simulated parts, on a manual clock.
///
/// Each part (`SensorImperfections.worstCase`) is calibrated with the plain neutral capture at a
/// 20° pose (2 s, default stillness; no tilt limit clamps it), then, with the default tilt chain
/// and controller:
/// - `still`: held at that pose for 60 s at a steady die temperature;
/// - `warmUp`: calibrated at power-on and held for 60 s while the die warms by 10 °C (time
///   constant 20 s, so 9.5 °C of it within the minute);
/// - `step`: held still for 13 s, then turned 10° (pitch, over 50 ms).
/// Figures: the largest |tilt| from the neutral pose over the minute (after 5 s to settle), the
/// marker's displacement over that minute, and the step's settled reading, its 10–90 % rise
/// time and when it first read 80 % (8° of an exact 10°). Worst-case parts are not sensor
/// calibrated, so their offsets and scale errors make the step read less or more than 10°.
package enum HoldStillBenchmark {
    /// One part's figures.
    package struct PartResult: Codable, Sendable, Equatable {
        package var seed: UInt64
        /// Largest |tilt| while held still at a steady temperature, degrees.
        package var stillTiltDeg: Double
        /// Marker displacement over that minute, area units.
        package var stillDriftPerMin: Double
        /// Largest |tilt| while held still through the warm-up, degrees.
        package var warmUpTiltDeg: Double
        /// Marker displacement over the warm-up minute, area units.
        package var warmUpDriftPerMin: Double
        /// What the 10° step reads once settled, degrees (uncorrected offsets and scale make it
        /// differ from 10°: a sensor calibration removes that).
        package var stepReadsDeg: Double
        /// 10–90 % rise time of the step's reading, seconds.
        package var stepRiseSeconds: Double
        /// From the start of the step until it reads 80 % of its settled change, seconds.
        package var stepTo80PercentSeconds: Double
    }

    /// Median and worst of one figure over the parts.
    package struct Spread: Codable, Sendable, Equatable {
        package var median: Double
        package var worst: Double

        init(_ values: [Double]) {
            let sorted = values.sorted()
            let n = sorted.count
            median = n == 0 ? .nan : (n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2)
            worst = sorted.last ?? .nan
        }
    }

    /// Every figure's spread for one chip.
    package struct ChipSummary: Codable, Sendable, Equatable {
        package var chip: String
        package var parts: Int
        package var stillTiltDeg: Spread
        package var stillDriftPerMin: Spread
        package var warmUpTiltDeg: Spread
        package var warmUpDriftPerMin: Spread
        package var stepReadsDeg: Spread
        package var stepRiseSeconds: Spread
        package var stepTo80PercentSeconds: Spread
        package var results: [PartResult]

        package init(chip: ChipKind, results: [PartResult]) {
            self.chip = chip.partName
            parts = results.count
            stillTiltDeg = Spread(results.map(\.stillTiltDeg))
            stillDriftPerMin = Spread(results.map(\.stillDriftPerMin))
            warmUpTiltDeg = Spread(results.map(\.warmUpTiltDeg))
            warmUpDriftPerMin = Spread(results.map(\.warmUpDriftPerMin))
            stepReadsDeg = Spread(results.map(\.stepReadsDeg))
            stepRiseSeconds = Spread(results.map(\.stepRiseSeconds))
            stepTo80PercentSeconds = Spread(results.map(\.stepTo80PercentSeconds))
            self.results = results
        }
    }

    /// The pose the parts are calibrated and held at.
    package static let pose = TiltAngles(pitchDeg: 20, rollDeg: 5)
    static let settleSeconds = 5.0
    static let holdSeconds = 60.0
    static let stepAt = 13.0
    static let warmUpSeconds = 20.0

    /// Runs the three scenarios on the worst-case part `seed` of `chip`.
    package static func run(chip: ChipKind, seed: UInt64) throws -> PartResult {
        let still = try hold(chip: chip, seed: seed, warmUp: false)
        let warm = try hold(chip: chip, seed: seed, warmUp: true)
        let step = try stepResponse(chip: chip, seed: seed)
        return PartResult(seed: seed, stillTiltDeg: still.tilt, stillDriftPerMin: still.drift,
                          warmUpTiltDeg: warm.tilt, warmUpDriftPerMin: warm.drift,
                          stepReadsDeg: step.final, stepRiseSeconds: step.rise, stepTo80PercentSeconds: step.to80)
    }

    /// `parts` seeded parts (seeds 1…parts) of each chip; `progress` hears of each chip.
    package static func run(parts: Int, chips: [ChipKind] = ChipKind.allCases,
                           progress: (String) -> Void = { _ in }) throws -> [ChipSummary] {
        try chips.map { chip in
            progress("hold still: \(parts) worst-case \(chip.partName) parts…")
            return ChipSummary(chip: chip, results: try (1...UInt64(Swift.max(1, parts))).map { try run(chip: chip, seed: $0) })
        }
    }

    /// The summaries as the hold-still benchmark's text.
    package static func render(_ summaries: [ChipSummary]) -> String {
        func f(_ s: Spread, _ digits: Int) -> String {
            String(format: "%.\(digits)f / %.\(digits)f", s.median, s.worst)
        }
        var text = "hold still, worst-case parts, median / worst:\n"
        for s in summaries {
            text += "\(s.chip) (\(s.parts) parts)\n"
            text += "  held still 60 s        |tilt| \(f(s.stillTiltDeg, 3))°   marker drift \(f(s.stillDriftPerMin, 4)) units/min\n"
            text += "  10 °C warm-up, 60 s    |tilt| \(f(s.warmUpTiltDeg, 3))°   marker drift \(f(s.warmUpDriftPerMin, 4)) units/min\n"
            text += "  10° step               10–90 % \(f(s.stepRiseSeconds, 3)) s   80 % after \(f(s.stepTo80PercentSeconds, 3)) s   "
                + "reads \(f(s.stepReadsDeg, 2))°\n"
        }
        return text
    }

    // MARK: Scenarios

    /// Calibrates at `pose` and holds it; largest |tilt| and marker displacement over the minute.
    static func hold(chip: ChipKind, seed: UInt64, warmUp: Bool) throws -> (tilt: Double, drift: Double) {
        let script = try MotionScript(start: pose, segments: [])
        var maxTilt = 0.0
        var startPosition: Vector3?
        var endPosition = Vector3.zero
        try calibrateAndRun(chip: chip, seed: seed, script: script, warmUp: warmUp,
                            seconds: settleSeconds + holdSeconds) { t, out in
            guard t >= settleSeconds else { return }
            maxTilt = Swift.max(maxTilt, tiltDeg(out.neutralGravity))
            let position = Vector3(out.control.x, out.control.y, 0)
            if startPosition == nil { startPosition = position }
            endPosition = position
        }
        return (maxTilt, (endPosition - (startPosition ?? endPosition)).length * 60 / holdSeconds)
    }

    /// Calibrates, holds, then turns the board 10°: the change it settles at, its 10–90 % rise
    /// time and when it first read 80 % of it.
    static func stepResponse(chip: ChipKind, seed: UInt64) throws -> (final: Double, rise: Double, to80: Double) {
        let target = TiltAngles(pitchDeg: pose.pitchDeg + 10, rollDeg: pose.rollDeg)
        // The calibration takes the script's first seconds; the step comes after `stepAt`.
        let script = try MotionScript(start: pose, segments: [.hold(pose, seconds: stepAt), .rotate(to: target, seconds: 0.05)])
        var before: Vector3?
        var trace: [(t: Double, change: Double)] = []
        try calibrateAndRun(chip: chip, seed: seed, script: script, warmUp: false, seconds: 20) { _, out in
            if out.t < stepAt { before = out.neutralGravity; return }
            guard let before else { return }
            trace.append((out.t, degrees(acos(Swift.min(1, before.normalized.dot(out.neutralGravity.normalized))))))
        }
        let tail = trace.suffix(100)
        let final = tail.map(\.change).reduce(0, +) / Double(Swift.max(1, tail.count))
        func first(_ fraction: Double) -> Double { trace.first { $0.change >= fraction * final }?.t ?? .nan }
        return (final, first(0.9) - first(0.1), first(0.8) - stepAt)
    }

    /// Opens a simulated board with the worst-case part, calibrates the neutral pose with the
    /// plain capture and runs the default pipeline for `seconds`; `body` gets the seconds since
    /// the run started and each output, whose `t` is on the script's clock.
    static func calibrateAndRun(chip: ChipKind, seed: UInt64, script: MotionScript, warmUp: Bool, seconds: Double,
                                body: (Double, PipelineOutput) -> Void) throws {
        var board = BoardDescription.builtInSimulated(chip: chip)
        board.simulation?.part = .worst
        board.simulation?.seed = seed
        let clock = ManualClock()
        let session = try BoardSession(board: board, backend: SimulatedBoard(board: board, clock: clock), clock: clock,
                                       profilePath: "/nonexistent/hold-still-bench.json", useProfile: false)
        defer { session.close() }
        var part = SensorImperfections.worstCase(chip: chip, seed: seed)
        part.warmUpC = warmUp ? DatasheetLimits.warmUpC : 0
        part.warmUpSeconds = warmUpSeconds
        guard let device = session.simulatedDevice else { preconditionFailure("hold-still bench needs a simulated chip") }
        device.imperfections = part
        device.motion = script

        // Default capture, except that the pose is compensated whatever its angle: the offsets of
        // some worst-case ADXL345 parts put the 20° pose beyond the default 30° limit.
        let result = try NeutralCalibration(settings: NeutralCapture.Settings(maxTiltDeg: 90)).run(on: session)
        let profile = CalibrationProfile(board: session.profileIdentity, createdAt: CalibrationProfile.timestamp(Date()),
                                         temperatureC: result.capture.temperatureC, sampleCount: result.capture.sampleCount,
                                         noiseMg: result.capture.noiseMg, neutral: result.pose,
                                         gyroBiasDps: result.capture.gyroBiasDps)
        try session.apply(profile: profile)

        var pipeline = TiltPipeline(tracker: session.makeTiltTracker())
        let start = clock.nowSeconds()
        try session.sampleRaw(discardSeconds: 0, shouldStop: { false }) { raw in
            var out = pipeline.process(raw)
            out.t = start + raw.t
            body(raw.t, out)
            return raw.t >= seconds
        }
    }

    static func tiltDeg(_ neutralGravity: Vector3) -> Double {
        degrees(acos(Swift.min(1, Swift.max(-1, neutralGravity.normalized.z))))
    }
}

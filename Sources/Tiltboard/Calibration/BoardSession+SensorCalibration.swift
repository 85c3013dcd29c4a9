import Foundation
import TiltboardCore

extension BoardSession {
    /// Saves a fitted sensor calibration, keeping every section of the profile but its own
    /// (`ProfileWriter.sensorCalibration`) as it is on disk (the neutral pose, level when none;
    /// the shake sensitivity), and applies the profile written to this session. With
    /// `writeToChip` the offsets (and the gyro bias) are then programmed into the chip's offset
    /// registers and the profile records `writtenToChip`, so later sessions program them again
    /// and correct only the scale in software.
    @discardableResult
    public func saveSensorCalibration(_ result: SensorCalibrationResult, writeToChip: Bool,
                                      now: Date = Date()) throws -> CalibrationProfile {
        let existing = try profileForEditing().profile
        let c = result.fit.calibration
        let correction = CalibrationProfile.SensorCorrection(
            offsetG: c.offsetG, scale: c.scale, crossAxis: c.crossAxis, gyroBiasDps: c.gyroBiasDps,
            residualMg: result.fit.residualMg, writtenToChip: writeToChip)
        // A gyro bias fitted now is newer than one from an earlier neutral capture.
        var profile = CalibrationProfile(
            board: profileIdentity, createdAt: CalibrationProfile.timestamp(now),
            temperatureC: result.capture.temperatureC ?? existing?.temperatureC,
            sampleCount: existing?.sampleCount ?? Swift.max(1, result.capture.sampleCount),
            noiseMg: existing?.noiseMg ?? result.capture.noiseMg,
            neutral: existing?.neutral ?? NeutralPose.level,
            sensor: correction,
            gyroBiasDps: c.gyroBiasDps == nil ? existing?.gyroBiasDps : nil,
            neutralSource: existing?.neutralSource, shake: existing?.shake)
        // The neutral pose captured through the old calibration, seen through the new one.
        profile.neutral = profile.neutralPose(mount: board.mount)
        if let problem = profile.problem {
            throw CalibrationProcedureError(problem: problem)
        }
        // Only the sensor calibration's sections change on disk (`ProfileWriter.sensorCalibration`).
        let written = try ProfileStore.save(profile, path: profilePath, writer: .sensorCalibration)
        try apply(profile: written)
        return written
    }
}

/// A fitted sensor calibration that cannot be stored (`saveSensorCalibration`): the six faces
/// are to be captured again.
public struct CalibrationProcedureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the profile the fit would make (`CalibrationProfile.problem`).
    public var problem: ProfileValueProblem
    /// The error for a fit whose profile has `problem`.
    package init(problem: ProfileValueProblem) { self.problem = problem }
    /// The structured form for logs; the program words it.
    public var description: String { "CalibrationProcedureError(problem: \(problem))" }
}

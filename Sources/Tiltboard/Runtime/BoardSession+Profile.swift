import Foundation
import TiltboardCore

/// What a capture measured, recorded in the profile beside the result.
public struct CaptureSummary: Sendable, Equatable {
    /// Samples the capture averaged.
    public var sampleCount: Int
    /// Per-axis standard deviation of the still samples, mg.
    public var noiseMg: Vector3
    /// The die temperature during the capture, °C (nil on a chip without a sensor).
    public var temperatureC: Double?
    /// Mean gyro output while still, sensor frame, °/s: the gyro bias (nil without a gyro).
    public var gyroBiasDps: Vector3?
    /// A neutral capture's mean in raw sensor terms (`BoardSession.neutralSource`); nil for other captures.
    package var neutralSource: CalibrationProfile.NeutralSource?

    /// A summary of a capture of `sampleCount` samples.
    package init(sampleCount: Int, noiseMg: Vector3, temperatureC: Double?, gyroBiasDps: Vector3? = nil,
                neutralSource: CalibrationProfile.NeutralSource? = nil) {
        self.sampleCount = sampleCount; self.noiseMg = noiseMg; self.temperatureC = temperatureC
        self.gyroBiasDps = gyroBiasDps; self.neutralSource = neutralSource
    }
}

extension BoardSession {
    /// The profile on disk for this board, for editing: nil when there is none. A corrupt or
    /// truncated one is replaced (it stays in `.bak`), so `replacing` names it for a note;
    /// a newer-version or other-board profile is never overwritten (throws).
    package func profileForEditing() throws -> (profile: CalibrationProfile?, replacing: ProfileError?) {
        do {
            return (try ProfileStore.load(path: profilePath, expectedBoard: profileIdentity), nil)
        } catch let error as ProfileError where error.kind == .corrupt || error.kind == .invalid {
            return (nil, error)
        }
    }

    /// A neutral capture in raw sensor terms, from the mean `boardMeanG` of samples that went
    /// through `chain` (its software calibration and mount) while the chip's offset registers held
    /// `chipOffsets`: what the chip would have read with nothing programmed. Independent of the
    /// calibration in use, so a later sensor calibration re-derives the same physical pose.
    package func neutralSource(boardMeanG: Vector3, chain: TiltTracker, maxTiltDeg: Double) -> CalibrationProfile.NeutralSource {
        let sensorFrame = (chain.mount.inverse ?? chain.mount.transposed) * boardMeanG
        let read = chain.calibration.unapply(accel: sensorFrame)
        return CalibrationProfile.NeutralSource(sensorMeanG: read + chipOffsets.accelG, maxTiltDeg: maxTiltDeg)
    }

    /// Saves `pose` as the board's neutral pose, keeping every section of the profile but the
    /// neutral capture's (`ProfileWriter.neutralCapture`) as it is on disk, and applies the
    /// profile written to this session (unless `applying` is false: a loop running on
    /// the session has the pose already, and the chip must not be written from another thread).
    /// Written atomically. With `capture.neutralSource` the stored pose is derived from it through
    /// the sensor calibration on disk (which another program may have changed since this session
    /// loaded its own), not taken from `pose`.
    @discardableResult
    public func saveNeutral(_ pose: NeutralPose, capture: CaptureSummary, now: Date = Date(),
                            applying: Bool = true) throws -> CalibrationProfile {
        let existing = try profileForEditing().profile
        var profile = CalibrationProfile(board: profileIdentity, createdAt: CalibrationProfile.timestamp(now),
                                         temperatureC: capture.temperatureC ?? existing?.temperatureC,
                                         sampleCount: capture.sampleCount, noiseMg: capture.noiseMg,
                                         neutral: pose, sensor: existing?.sensor,
                                         gyroBiasDps: capture.gyroBiasDps ?? existing?.gyroBiasDps,
                                         neutralSource: capture.neutralSource, shake: existing?.shake)
        profile.neutral = profile.neutralPose(mount: board.mount)
        // Only the neutral capture's sections change on disk (`ProfileWriter.neutralCapture`).
        let written = try ProfileStore.save(profile, path: profilePath, writer: .neutralCapture)
        if applying { try apply(profile: written) }
        return written
    }

    /// Resets the stored neutral pose to level (keeping every other section, `ProfileWriter.zero`)
    /// and applies it (unless `applying` is false, as for `saveNeutral`). Works on a board with no
    /// profile yet, or a corrupt one (kept in `.bak`).
    @discardableResult
    public func zeroNeutral(now: Date = Date(), applying: Bool = true) throws -> CalibrationProfile {
        let existing = try profileForEditing().profile
        let level = NeutralPose.level
        let profile = CalibrationProfile(board: profileIdentity, createdAt: CalibrationProfile.timestamp(now),
                                         temperatureC: existing?.temperatureC,
                                         sampleCount: existing?.sampleCount ?? 0,
                                         noiseMg: existing?.noiseMg ?? .zero,
                                         neutral: level, sensor: existing?.sensor, gyroBiasDps: existing?.gyroBiasDps,
                                         shake: existing?.shake)
        let written = try ProfileStore.save(profile, path: profilePath, writer: .zero)
        if applying { try apply(profile: written) }
        return written
    }

    /// The shake settings a loop uses by default: the board file's, with the profile's `shake`
    /// section over them (the board file's alone when the profile is ignored or there is none).
    public var shakeSettings: ShakeDetectorSettings {
        shakeSettings(for: profile)
    }

    /// The shake settings with `profile`'s section over the board file's, and `overrides` (the
    /// settings given for one run, e.g. a threshold the program was given) over both.
    public func shakeSettings(for profile: CalibrationProfile?,
                              overrides o: BoardDescription.ShakeSection = .init()) -> ShakeDetectorSettings {
        let base = board.shake.detectorSettings
        var s = profile?.shake?.settings(over: base) ?? base
        if let v = o.thresholdG { s.thresholdG = v }
        if let v = o.minFraction { s.minFraction = v }
        if let v = o.minReversals { s.minReversals = v }
        if let v = o.cooldownMs { s.cooldownMs = v }
        return s
    }

    /// Stores `shake` (nil: remove the section) in the board's profile, keeping everything else;
    /// on a board with no profile yet (or a corrupt one, kept in `.bak`) a level neutral pose is
    /// stored with it, as `zeroNeutral` does. Returns the profile written. The running loop is
    /// not touched: the caller applies `shakeSettings(for:)` at a tick boundary.
    @discardableResult
    public func saveShake(_ shake: ProfileShake?, now: Date = Date()) throws -> CalibrationProfile {
        let existing = try profileForEditing().profile
        var profile = existing ?? CalibrationProfile(board: profileIdentity, createdAt: CalibrationProfile.timestamp(now),
                                                     sampleCount: 0, noiseMg: .zero, neutral: .level)
        profile.shake = (shake?.isEmpty ?? true) ? nil : shake
        return try ProfileStore.save(profile, path: profilePath, writer: .shake)
    }
}

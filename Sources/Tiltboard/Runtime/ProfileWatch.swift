import Foundation
import TiltboardCore
import TiltboardLinux

extension BoardSession {
    /// The watch (`TiltLoop.Configuration.watch`) that makes a loop pick up this board's profile
    /// when another program (`calibrate`, `serve`'s page, `monitor`) changes it on disk, a profile
    /// reached through a symlink as its target: once every `interval` a thread of the loop's own
    /// compares the file's inode, size and modification time with the last seen, loads a changed
    /// file, and the loop thread applies it at the next tick boundary (chip offsets, software
    /// calibration, gyro bias, the neutral pose derived through the new calibration, the shake
    /// settings with `shakeOverrides` over the profile's). A file that cannot be used, or is gone,
    /// changes nothing; `notes` hears why (`ProfileWatchNote`).
    public func profileWatch(interval: Duration = .seconds(1), shakeOverrides: BoardDescription.ShakeSection = .init(),
                             notes: @escaping @Sendable (ProfileWatchNote) -> Void = { _ in }) -> LoopWatch {
        let path = profilePath
        let identity = profileIdentity
        nonisolated(unsafe) let session = self
        let seen = ProfileFingerprintBox(ProfileFingerprint(path: path))
        return LoopWatch(interval: interval) {
            let now = ProfileFingerprint(path: path)
            guard now != seen.value else { return nil }
            seen.value = now
            guard now != nil else { return nil }
            let profile: CalibrationProfile?
            do {
                profile = try ProfileStore.load(path: path, expectedBoard: identity)
            } catch {
                notes(.unusable(path: path, error: error))
                return nil
            }
            guard let profile else { return nil }
            return { loop in try session.applyOnLoop(profile, loop, shakeOverrides: shakeOverrides) }
        }
    }

    /// Loop thread: `profile` into the chip's offset registers and the loop's pipeline.
    func applyOnLoop(_ profile: CalibrationProfile, _ loop: TiltLoop, shakeOverrides: BoardDescription.ShakeSection) throws {
        try apply(profile: profile)
        let calibration = softwareCalibration
        loop.setCalibration(calibration, biasKnown: calibration.gyroBiasDps != nil, calibratedTempC: profile.temperatureC,
                            neutral: profile.neutralPose(mount: board.mount))
        loop.setShakeSettings(shakeSettings(for: profile, overrides: shakeOverrides))
    }
}

/// What the profile watch tells of a changed profile it did not apply.
public enum ProfileWatchNote: Sendable {
    /// The profile at `path` changed on disk but cannot be used (`error`, a `ProfileError` or a
    /// file error): the calibration in use stays.
    case unusable(path: String, error: any Error)
}

/// What tells a rewritten file from the one seen before (an atomic save is a new inode), through
/// a symlinked profile to the file it names (`FileStamp`).
typealias ProfileFingerprint = FileStamp

/// The watcher thread's memory of the file; only that thread touches it.
final class ProfileFingerprintBox: @unchecked Sendable {
    var value: ProfileFingerprint?
    init(_ value: ProfileFingerprint?) { self.value = value }
}

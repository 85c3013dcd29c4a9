import Foundation
import TiltboardCore
import TiltboardLinux

extension BoardSession {
    /// The watch (`TiltLoop.Configuration.watch`) that makes a loop pick up this board's profile
    /// when another program (`calibrate`, `serve`'s page, `monitor`) changes it on disk, a profile
    /// reached through a symlink as its target: once
    /// every `intervalSeconds` a thread of the loop's own compares the file's inode, size and
    /// modification time with the last seen, loads a changed file, and the loop thread applies it
    /// at the next tick boundary (chip offsets, software calibration, gyro bias, the neutral pose
    /// derived through the new calibration). A file that cannot be used, or is gone, changes
    /// nothing; `notes` says why.
    public func profileWatch(intervalSeconds: Double = 1,
                             notes: @escaping @Sendable (String) -> Void = { _ in }) -> LoopWatch {
        let path = profilePath
        let identity = profileIdentity
        nonisolated(unsafe) let session = self
        let seen = ProfileFingerprintBox(ProfileFingerprint(path: path))
        return LoopWatch(intervalSeconds: intervalSeconds) {
            let now = ProfileFingerprint(path: path)
            guard now != seen.value else { return nil }
            seen.value = now
            guard now != nil else { return nil }
            let profile: CalibrationProfile?
            do {
                profile = try ProfileStore.load(path: path, expectedBoard: identity)
            } catch {
                notes("the profile changed on disk but cannot be used, keeping the calibration in use: \(error)")
                return nil
            }
            guard let profile else { return nil }
            return { loop in try session.applyOnLoop(profile, loop) }
        }
    }

    /// Loop thread: `profile` into the chip's offset registers and the loop's pipeline.
    func applyOnLoop(_ profile: CalibrationProfile, _ loop: TiltLoop) throws {
        try apply(profile: profile)
        let calibration = softwareCalibration
        loop.setCalibration(calibration, biasKnown: calibration.gyroBiasDps != nil, calibratedTempC: profile.temperatureC,
                            neutral: profile.neutralPose(mount: board.mount))
        loop.setShakeSettings(shakeSettings(for: profile))
    }
}

/// What tells a rewritten file from the one seen before (an atomic save is a new inode), through
/// a symlinked profile to the file it names (`FileStamp`).
typealias ProfileFingerprint = FileStamp

/// The watcher thread's memory of the file; only that thread touches it.
final class ProfileFingerprintBox: @unchecked Sendable {
    var value: ProfileFingerprint?
    init(_ value: ProfileFingerprint?) { self.value = value }
}

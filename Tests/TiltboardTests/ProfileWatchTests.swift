import Foundation
import XCTest
import Tiltboard
import TiltboardCore
import TiltboardSimulator

/// A running loop picks up a profile another program writes meanwhile.
final class ProfileWatchTests: XCTestCase {
    func testARunningLoopAppliesAProfileWrittenMeanwhile() throws {
        let folder = try makeScratchFolder(self)
        let script = folder + "/still.json"
        try MotionScript(start: TiltAngles(pitchDeg: 10, rollDeg: -6), segments: []).jsonData().write(to: URL(fileURLWithPath: script))
        let boardPath = folder + "/board.json"
        try """
        {"name": "watched", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "simulation": {"script": "\(script)", "noise": false}}
        """.write(toFile: boardPath, atomically: true, encoding: .utf8)
        let board = try BoardDescription.load(path: boardPath)
        let clock = VirtualClock()
        let profilePath = folder + "/p.json"
        let session = try BoardSession(board: board, clock: clock, profilePath: profilePath)
        defer { session.close() }
        var configuration = TiltLoop.Configuration(rateHz: 100)
        configuration.watch = session.profileWatch()
        let loop = session.makeLoop(configuration, haptics: nil)
        var sum = Vector3.zero, n = 0.0
        var written = false
        var before: [TiltAngles] = [], after: [TiltAngles] = []
        _ = try loop.run(duration: 6) { out, _ in
            if out.t >= 1 && out.t < 2 { sum += out.accel; n += 1; before.append(out.tilt) }
            if out.t >= 2 && !written {
                written = true
                // What `calibrate` would store for this pose, written by "another program".
                let source = CalibrationProfile.NeutralSource(sensorMeanG: sum / n, maxTiltDeg: 30)
                var p = CalibrationProfile(board: session.profileIdentity, createdAt: "2026-01-01T00:00:00Z", sampleCount: 100,
                                           noiseMg: .zero, neutral: .level, neutralSource: source)
                p.neutral = p.neutralPose(mount: board.mount)
                do { try ProfileStore.save(p, path: profilePath) } catch { XCTFail("\(error)") }
            }
            if out.t >= 4 { after.append(out.tilt) }
        }
        XCTAssertEqual(before.count, 100)
        XCTAssertGreaterThan(abs(before.last!.pitchDeg) + abs(before.last!.rollDeg), 10, "tilted before")
        XCTAssertEqual(after.count, 201)
        for tilt in after {
            XCTAssertEqual(tilt.pitchDeg, 0, accuracy: 0.1)
            XCTAssertEqual(tilt.rollDeg, 0, accuracy: 0.1)
        }
        XCTAssertNotNil(session.profile?.neutralSource, "the session holds the profile from disk")
    }
}

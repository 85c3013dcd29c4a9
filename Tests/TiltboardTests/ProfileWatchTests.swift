import Foundation
import XCTest
import Tiltboard
import TiltboardCore
import TiltboardSimulator

/// A running loop picks up a profile another program writes meanwhile.
final class ProfileWatchTests: XCTestCase {
    func testARunningLoopAppliesAProfileWrittenMeanwhile() throws {
        try runWatched(throughSymlink: false)
    }

    /// `--profile` naming a symlink: a change written at the file it names (the link itself
    /// unchanged) is applied as one made through the link.
    func testASymlinkedProfileIsWatchedAsItsTarget() throws {
        try runWatched(throughSymlink: true)
    }

    private func runWatched(throughSymlink: Bool) throws {
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
        var sessionPath = profilePath
        if throughSymlink {
            // A profile there from the start, reached through the link.
            try ProfileStore.save(CalibrationProfile(board: ProfileBoardIdentity(board: board, chipID: 0x68), createdAt: "2025-01-01T00:00:00Z",
                                                     sampleCount: 0, noiseMg: .zero, neutral: .level), path: profilePath)
            sessionPath = folder + "/link.json"
            XCTAssertEqual(symlink("p.json", sessionPath), 0)
        }
        let session = try BoardSession(board: board, clock: clock, profilePath: sessionPath)
        defer { session.close() }
        var configuration = TiltLoop.Configuration(rateHz: 100)
        configuration.watch = session.profileWatch()
        let loop = session.makeLoop(configuration, haptics: nil)
        var sum = Vector3.zero, n = 0.0
        var written = false
        var saved: [UInt8] = []
        var before: [TiltAngles] = [], after: [TiltAngles] = []
        _ = try loop.start(for: .seconds(6), observers: [LoopObserver(sample: { out, _ in
            if out.t >= 1 && out.t < 2 { sum += out.accel; n += 1; before.append(out.tilt) }
            if out.t >= 2 && !written {
                written = true
                // What `calibrate` would store for this pose, written by "another program".
                let source = CalibrationProfile.NeutralSource(sensorMeanG: sum / n, maxTiltDeg: 30)
                var p = CalibrationProfile(board: session.profileIdentity, createdAt: "2026-01-01T00:00:00Z", sampleCount: 100,
                                           noiseMg: .zero, neutral: .level, neutralSource: source)
                p.neutral = p.neutralPose(mount: board.mount)
                do { try ProfileStore.save(p, path: profilePath); saved = try ProfileStore.encode(p) } catch { XCTFail("\(error)") }
            }
            if out.t >= 4 { after.append(out.tilt) }
        })]).wait()
        XCTAssertEqual(before.count, 100)
        XCTAssertGreaterThan(abs(before.last!.pitchDeg) + abs(before.last!.rollDeg), 10, "tilted before")
        XCTAssertEqual(after.count, 201)
        for tilt in after {
            XCTAssertEqual(tilt.pitchDeg, 0, accuracy: 0.1)
            XCTAssertEqual(tilt.rollDeg, 0, accuracy: 0.1)
        }
        XCTAssertNotNil(session.profile?.neutralSource, "the session holds the profile from disk")
        // The watch reads the profile and never writes it.
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: profilePath))), saved)
        if throughSymlink { XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link.json"), "p.json") }
    }
}
